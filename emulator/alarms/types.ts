import { QUEUE_DEPTH_METRIC_NAMES, type MetricKey, type Statistic } from '../metrics';

/** The states of a CloudWatch alarm. */
export const AlarmState = {
  OK: 'OK',
  ALARM: 'ALARM',
  INSUFFICIENT_DATA: 'INSUFFICIENT_DATA',
} as const;
export type AlarmStateValue = (typeof AlarmState)[keyof typeof AlarmState];

/** CloudWatch's comparison operators for static thresholds. */
export type ComparisonOperator =
  | 'GreaterThanThreshold'
  | 'GreaterThanOrEqualToThreshold'
  | 'LessThanThreshold'
  | 'LessThanOrEqualToThreshold';

/** How CloudWatch treats a period without a datapoint. */
export type TreatMissingData = 'breaching' | 'notBreaching' | 'ignore' | 'missing';

/** One metric of an alarm, with the id its metric math names it by (a single-metric alarm has none). */
export interface AlarmMetric {
  readonly id?: string;
  readonly key: MetricKey;
  readonly statistic: Statistic;
}

/**
 * A CloudWatch alarm as the template declares it (`AWS::CloudWatch::Alarm`): one metric and its
 * statistic, or a metric math sum of several (`visible + inFlight`), each its own statistic per
 * period, then added, as CloudWatch does.
 */
export interface MetricAlarm {
  readonly alarmName: string;
  readonly alarmDescription?: string;
  /** What the alarm adds up; one entry for a single-metric alarm. */
  readonly metrics: readonly AlarmMetric[];
  /** Metric math only: the expression's id, text and label. */
  readonly expression?: { readonly id: string; readonly expression: string; readonly label?: string };
  /** The period on AWS; the local length of a period is `AlarmEvaluatorOptions.periodMs`. */
  readonly periodSeconds: number;
  readonly evaluationPeriods: number;
  readonly datapointsToAlarm: number;
  readonly threshold: number;
  readonly comparisonOperator: ComparisonOperator;
  readonly treatMissingData: TreatMissingData;
  /** Topic ARNs notified on a transition to ALARM. */
  readonly alarmActions: readonly string[];
  /** Topic ARNs notified on a transition to OK. */
  readonly okActions: readonly string[];
  /** Topic ARNs notified on a transition to INSUFFICIENT_DATA. @default [] */
  readonly insufficientDataActions?: readonly string[];
}

/** The queue every metric of the alarm is dimensioned by (`QueueName`), when they all name the same one. */
export function watchedQueueName(alarm: Pick<MetricAlarm, 'metrics'>): string | undefined {
  const names = new Set(alarm.metrics.map((metric) => (metric.key.namespace === 'AWS/SQS' ? metric.key.dimensions.QueueName : undefined)));
  const [name] = names;
  return names.size === 1 ? name : undefined;
}

/** True for an alarm on a queue's depth (visible, in flight, or their sum): a DLQ's alarm. */
export function isQueueDepthAlarm(alarm: Pick<MetricAlarm, 'metrics'>): boolean {
  const depth: readonly string[] = QUEUE_DEPTH_METRIC_NAMES;
  return watchedQueueName(alarm) !== undefined && alarm.metrics.every((metric) => depth.includes(metric.key.metricName));
}

/** The statistic of one period; `value` is undefined when no sample succeeded in it. */
export interface Datapoint {
  /** The start of the period. */
  readonly timestamp: Date;
  readonly value: number | undefined;
}

/** One change of an alarm's state. */
export interface AlarmTransition {
  readonly alarmName: string;
  readonly oldState: AlarmStateValue;
  readonly newState: AlarmStateValue;
  readonly reason: string;
  /** ISO-8601. */
  readonly timestamp: string;
  /** The evaluated window, oldest first. */
  readonly datapoints: readonly Datapoint[];
  /** The topics this transition was published to (empty when it had no actions, or notified nothing). */
  readonly notified: readonly string[];
}
