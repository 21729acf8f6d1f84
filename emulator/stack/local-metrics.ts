/**
 * The metrics local mode measures for the stack's alarms and the demo's report, under the names
 * CloudWatch gives them:
 *
 * - `AWS/SQS` by `QueueName`: `ApproximateNumberOfMessagesVisible` and `...NotVisible` (the queue's
 *   attributes), and `ApproximateAgeOfOldestMessage` (the oldest message fauxqs holds, ready, in
 *   flight or delayed, in template seconds: local time is compressed by the time scale);
 * - `AWS/Lambda` by `FunctionName`: `Invocations`, and `Errors` (invocations that errored, timed
 *   out or crashed, and the batches whose invocation the crash fault killed after its commit);
 * - `AWS/Lambda` by `EventSourceMappingUUID`, the mapping's own counts: `PolledEventCount`,
 *   `InvokedEventCount`, `FailedInvokeEventCount`, and `DeletedEventCount` (queues) or
 *   `DroppedEventCount` (streams);
 * - the runtime's EMF metrics (`EffectivelyOnce` by `service`), from the functions' stdout
 *   (`emfRecorder`, wired where the output sink is).
 *
 * What nothing local produces is said so with the reason, and its alarms are not evaluated.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { METRICS_NAMESPACE } from '../../aws/metrics';
import { CONSUMER_ENV } from '../../aws/consumer-env';
import type { LocalFunction } from '../functions';
import { MetricSampler, oldestMessageAgeGauge, QUEUE_METRIC_NAMES, queueDepthGauges, type CounterSource, type MetricStore } from '../metrics';
import type { Measurability } from './alarms';
import type { MappingSpec } from './mappings';
import { refOf, type ProvisionedStack } from './provision';
import type { FunctionSpec } from './functions';

const FUNCTION_METRICS: readonly string[] = ['Invocations', 'Errors'];
const SQS_MAPPING_METRICS: readonly string[] = ['PolledEventCount', 'InvokedEventCount', 'FailedInvokeEventCount', 'DeletedEventCount'];
const STREAM_MAPPING_METRICS: readonly string[] = ['PolledEventCount', 'InvokedEventCount', 'FailedInvokeEventCount', 'DroppedEventCount'];

/** Why the Lambda metrics local mode does not produce are missing. */
const UNMEASURED_LAMBDA: Readonly<Record<string, string>> = {
  Throttles: 'local functions do not throttle: an invocation waits for a free execution environment',
  IteratorAge: 'local mode does not measure iterator age: DynamoDB Local rounds record times to the minute, which compressed time reads as hours',
};

export interface LocalMetricsOptions {
  readonly stack: ProvisionedStack;
  readonly functions: ReadonlyMap<string, LocalFunction>;
  readonly functionSpecs: readonly FunctionSpec[];
  readonly mappings: readonly MappingSpec[];
  /**
   * The logical ids of the template's mappings that are off (`Enabled: false`): local mode runs
   * none of them, and on AWS they publish nothing, so their metrics are measured and stay empty.
   * @default - none
   */
  readonly disabledMappings?: readonly string[];
  readonly store: MetricStore;
  /** The stack's SQS client (depth attributes). */
  readonly sqs: SQSClient;
  /** A client of fauxqs itself, not of the contract layer in front of it: it answers the oldest message's send time, which SQS has no attribute for. */
  readonly fauxqs: SQSClient;
  /** Local seconds per template second. */
  readonly timeScale: number;
}

/** What local mode measures of the stack, and which metrics those are. */
export interface LocalMetrics {
  readonly sampler: MetricSampler;
  readonly measurability: Measurability;
}

/** The stack's counters and gauges, and the rule of what is measured. */
export function localMetrics(options: LocalMetricsOptions): LocalMetrics {
  const counters = [...functionCounters(options), ...mappingCounters(options)];
  const gauges = [...options.stack.queues.values()].flatMap((queue) => [queueDepthGauges(options.sqs, queue), oldestMessageAgeGauge(options.fauxqs, queue, options.timeScale)]);
  return { sampler: new MetricSampler(options.store, counters, gauges), measurability: measurabilityOf(options) };
}

function functionCounters(options: LocalMetricsOptions): CounterSource[] {
  return [...options.functions].flatMap(([logicalId, fn]) => {
    const dimensions = { FunctionName: refOf(options.stack, logicalId) };
    const crashedBatches = (): number => options.mappings.filter((spec) => spec.functionLogicalId === logicalId).reduce((total, spec) => total + spec.mapping.stats.crashes, 0);
    return [
      { key: { namespace: 'AWS/Lambda', metricName: 'Invocations', dimensions }, read: () => fn.stats().invocations },
      { key: { namespace: 'AWS/Lambda', metricName: 'Errors', dimensions }, read: () => fn.stats().errors + fn.stats().timeouts + fn.stats().crashes + crashedBatches() },
    ];
  });
}

function mappingCounters(options: LocalMetricsOptions): CounterSource[] {
  return options.mappings.flatMap((spec) => {
    const dimensions = { EventSourceMappingUUID: refOf(options.stack, spec.logicalId) };
    const counter = (metricName: string, read: () => number): CounterSource => ({ key: { namespace: 'AWS/Lambda', metricName, dimensions }, read });
    const common = [
      counter('PolledEventCount', () => spec.mapping.stats.deliveries),
      counter('InvokedEventCount', () => spec.mapping.stats.deliveries),
      counter('FailedInvokeEventCount', () => spec.mapping.stats.failedInvokeEvents),
    ];
    if (spec.source === 'sqs') return [...common, counter('DeletedEventCount', () => kindCount(spec, 'deleted'))];
    return [...common, counter('DroppedEventCount', () => kindCount(spec, 'recordsSkipped'))];
  });
}

/** A count only one kind of mapping keeps (an SQS mapping's `deleted`, a stream mapping's `recordsSkipped`); 0 on the other. */
function kindCount(spec: MappingSpec, name: 'deleted' | 'recordsSkipped'): number {
  const stats: Partial<Record<typeof name, number>> = spec.mapping.stats;
  return stats[name] ?? 0;
}

/** Which metrics are recorded: the ones above for the stack's own queues, functions and mappings, and the runtime's namespace. */
function measurabilityOf(options: LocalMetricsOptions): Measurability {
  const queues = new Set([...options.stack.queues.values()].map((queue) => queue.name));
  const functions = new Set([...options.functions.keys()].map((logicalId) => refOf(options.stack, logicalId)));
  const mappings = new Map(options.mappings.map((spec) => [refOf(options.stack, spec.logicalId), spec.source]));
  const disabled = new Set((options.disabledMappings ?? []).map((logicalId) => refOf(options.stack, logicalId)));
  const runtimeNamespaces = new Set([METRICS_NAMESPACE, ...options.functionSpecs.flatMap((spec) => spec.environment[CONSUMER_ENV.metricsNamespace] ?? [])]);
  const measured = { measured: true } as const;
  const not = (reason: string) => ({ measured: false, reason }) as const;
  return (key) => {
    const { namespace, metricName, dimensions } = key;
    if (runtimeNamespaces.has(namespace)) return measured;
    if (namespace === 'AWS/SQS') {
      if (!queues.has(dimensions.QueueName ?? '')) return not(`${dimensions.QueueName ?? 'no QueueName'} is not a queue of the stack`);
      return QUEUE_METRIC_NAMES.includes(metricName) ? measured : not(`local mode samples ${QUEUE_METRIC_NAMES.join(', ')} of a queue`);
    }
    if (namespace === 'AWS/Lambda' && dimensions.FunctionName !== undefined) {
      if (!functions.has(dimensions.FunctionName)) return not(`${dimensions.FunctionName} is not a function of the stack`);
      return FUNCTION_METRICS.includes(metricName) ? measured : not(UNMEASURED_LAMBDA[metricName] ?? `local mode counts ${FUNCTION_METRICS.join(' and ')} of a function`);
    }
    if (namespace === 'AWS/Lambda' && dimensions.EventSourceMappingUUID !== undefined) {
      // A mapping that is off polls nothing and publishes nothing: its alarms see no data, as on AWS.
      if (disabled.has(dimensions.EventSourceMappingUUID)) return measured;
      const source = mappings.get(dimensions.EventSourceMappingUUID);
      if (source === undefined) return not('the mapping is not one of the stack');
      const counted = source === 'sqs' ? SQS_MAPPING_METRICS : STREAM_MAPPING_METRICS;
      return counted.includes(metricName) ? measured : not(`local mode counts ${counted.join(', ')} of a ${source} mapping`);
    }
    return not(`nothing local publishes ${namespace} ${metricName}`);
  };
}
