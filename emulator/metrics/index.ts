export * from './types';
export * from './metric-store';
export * from './metric-sampler';
export * from './emf';
export * from './queue-gauges';
