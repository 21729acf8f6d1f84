/**
 * The scale model: docs/scale.md computed from a bench run (`npm run scale-model`). The reader
 * checks the bench JSON, the model turns it into labelled figures, the renderer into the page.
 * What this file does not name is internal.
 */
export { ALL_ASSUMPTIONS, ASSUMED, CHECKED_ON, CONFIRMATION, DYNAMODB, LAMBDA, PRICES, REGION, STREAMS } from './assumptions';
export type { Assumption, Confirmation } from './assumptions';
export { BenchInputError, MODELLED_STRATEGIES, parseBenchRun, readBenchRun } from './bench-input';
export type { BenchHotItem, BenchRun, BenchStrategy, ModelledStrategy } from './bench-input';
export { DEPLOYED } from './deployed';
export type { DeployedSettings } from './deployed';
export { BASIS } from './figures';
export type { Basis, Figure } from './figures';
export { buildScaleModel } from './model';
export type { ScaleModel } from './model';
export { BENCH_RUN, renderScaleDoc, SCALE_DOC } from './render';
