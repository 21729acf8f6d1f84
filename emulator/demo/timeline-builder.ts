/**
 * The run's timeline (timeline.ts) from what local mode recorded: per consumer and period, the
 * records its mapping handed to the function (`InvokedEventCount`), the runtime's duplicates and
 * effects (its EMF lines), and its DLQ's held messages (the depth the alarm evaluator sampled);
 * per alarm, the evaluator's transitions.
 */
import { CONSUMER_ENV } from '../../aws/consumer-env';
import { METRICS_NAMESPACE, MetricName } from '../../aws/metrics';
import { AlarmState, type AlarmTransition, type MetricAlarm } from '../alarms';
import { metricLabel, QUEUE_DEPTH_METRIC_NAMES, queueMetric, type MetricKey, type MetricStore, type Statistic } from '../metrics';
import type { MappingSpec } from '../stack/mappings';
import { queueWithUrl, refOf } from '../stack/provision';
import type { LocalStack } from '../stack/runtime';
import { consumerNameOf, sourceOf } from './consumers';
import type { AlarmTimeline, ConsumerPoint, ConsumerTimeline, DemoTimeline, PhaseMark } from './timeline';

/** When the run started and ended (epoch ms), and when it moved on. */
export interface TimelineSpan {
  readonly startedAt: number;
  readonly endedAt: number;
  /** `atMs` since `startedAt`. */
  readonly phases: readonly PhaseMark[];
}

/** The metrics one consumer's points are read from. */
interface ConsumerMetrics {
  readonly deliveries: MetricKey;
  readonly duplicates: MetricKey;
  readonly effects: MetricKey;
  readonly dlq: readonly MetricKey[];
  /** Every dimension value that names this consumer's resources, to find its alarms. */
  readonly names: ReadonlySet<string>;
}

/** The timeline of a run on `stack`, read before the stack stops. */
export function buildTimeline(stack: LocalStack, span: TimelineSpan): DemoTimeline {
  const periodMs = stack.alarmPeriodMs;
  const starts = periodStarts(span.startedAt, span.endedAt, periodMs);
  const alarms = alarmTimelines(stack, span.startedAt);
  const consumers = stack.mappings.map((mapping): ConsumerTimeline => {
    const metrics = consumerMetrics(stack, mapping);
    return {
      name: consumerNameOf(stack, mapping),
      source: sourceOf(stack, mapping),
      points: starts.map((start) => pointOf(stack.metrics, metrics, start, periodMs, span.startedAt)),
      alarms: alarmsOf(stack, metrics.names),
    };
  });
  return { periodMs, durationMs: span.endedAt - span.startedAt, consumers, alarms, phases: span.phases };
}

function periodStarts(startedAt: number, endedAt: number, periodMs: number): number[] {
  const count = Math.max(1, Math.ceil((endedAt - startedAt) / periodMs));
  return Array.from({ length: count }, (_, index) => startedAt + index * periodMs);
}

function pointOf(store: MetricStore, metrics: ConsumerMetrics, start: number, periodMs: number, startedAt: number): ConsumerPoint {
  const read = (key: MetricKey, statistic: Statistic): number => store.statistic(key, statistic, start, start + periodMs) ?? 0;
  return {
    atMs: start - startedAt,
    deliveries: read(metrics.deliveries, 'Sum'),
    duplicates: read(metrics.duplicates, 'Sum'),
    effects: read(metrics.effects, 'Sum'),
    dlqDepth: metrics.dlq.reduce((total, key) => total + read(key, 'Maximum'), 0),
  };
}

function consumerMetrics(stack: LocalStack, mapping: MappingSpec): ConsumerMetrics {
  const environment = stack.functionSpecs.get(mapping.functionLogicalId)?.environment ?? {};
  const service = environment[CONSUMER_ENV.serviceName] || consumerNameOf(stack, mapping);
  const namespace = environment[CONSUMER_ENV.metricsNamespace] || METRICS_NAMESPACE;
  const mappingUuid = refOf(stack.resources, mapping.logicalId);
  const functionName = refOf(stack.resources, mapping.functionLogicalId);
  const runtime = (metricName: string): MetricKey => ({ namespace, metricName, dimensions: { service } });
  const queueName = (url: string | undefined) => queueWithUrl(stack.resources.queues, url)?.name;
  const dlqName = queueName(environment[CONSUMER_ENV.dlqUrl]);
  const sourceName = queueName(mapping.sourceQueueUrl);
  return {
    deliveries: { namespace: 'AWS/Lambda', metricName: 'InvokedEventCount', dimensions: { EventSourceMappingUUID: mappingUuid } },
    duplicates: runtime(MetricName.DUPLICATES),
    effects: runtime(MetricName.PROCESSED),
    dlq: dlqName === undefined ? [] : QUEUE_DEPTH_METRIC_NAMES.map((name) => queueMetric({ name: dlqName }, name)),
    names: new Set([service, mappingUuid, functionName, ...(dlqName === undefined ? [] : [dlqName]), ...(sourceName === undefined ? [] : [sourceName])]),
  };
}

/** The alarms (evaluated or not) that watch one of the consumer's resources, by name. */
function alarmsOf(stack: LocalStack, names: ReadonlySet<string>): string[] {
  const watches = (alarm: Pick<MetricAlarm, 'metrics'>): boolean => alarm.metrics.some((metric) => Object.values(metric.key.dimensions).some((value) => names.has(value)));
  const evaluated = stack.alarms.evaluated.filter(watches).map((alarm) => alarm.alarmName);
  const notEvaluated = stack.alarms.notEvaluated.filter((alarm) => alarm.dimensionValues.some((value) => names.has(value))).map((alarm) => alarm.alarmName);
  return [...evaluated, ...notEvaluated];
}

function alarmTimelines(stack: LocalStack, startedAt: number): AlarmTimeline[] {
  const history = stack.alarmEvaluator.history();
  const evaluated = stack.alarms.evaluated.map((alarm): AlarmTimeline => ({
    alarmName: alarm.alarmName,
    metric: alarm.expression?.expression ?? metricLabel(alarm.metrics[0]?.key ?? { namespace: '', metricName: '', dimensions: {} }),
    evaluated: true,
    states: statesOf(history.filter((transition) => transition.alarmName === alarm.alarmName), startedAt),
  }));
  const notEvaluated = stack.alarms.notEvaluated.map((alarm): AlarmTimeline => ({ alarmName: alarm.alarmName, metric: alarm.metric, evaluated: false, states: [] }));
  return [...evaluated, ...notEvaluated];
}

/** INSUFFICIENT_DATA from the start, then each transition's new state from its time on. */
function statesOf(transitions: readonly AlarmTransition[], startedAt: number): AlarmTimeline['states'] {
  return [
    { atMs: 0, state: AlarmState.INSUFFICIENT_DATA },
    ...transitions.map((transition) => ({ atMs: Math.max(0, Date.parse(transition.timestamp) - startedAt), state: transition.newState })),
  ];
}
