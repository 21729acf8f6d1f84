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

/** The SQS depth metrics an alarm may watch: visible messages, and messages in flight (received, not yet deleted). */
export type QueueDepthMetricName = 'ApproximateNumberOfMessagesVisible' | 'ApproximateNumberOfMessagesNotVisible';

/** One metric of a depth alarm, with the id its metric math names it by (a single-metric alarm has none). */
export interface QueueDepthMetric {
  readonly id?: string;
  readonly metricName: QueueDepthMetricName;
}

/**
 * A CloudWatch alarm on an SQS queue's depth, as the template declares it (`AWS::CloudWatch::Alarm`
 * with the queue's `QueueName` dimension), plus the queue's URL: one metric, or a metric math
 * sum of several of the same queue (`visible + inFlight`), each its own Maximum per period.
 */
export interface QueueDepthAlarm {
  readonly alarmName: string;
  readonly alarmDescription?: string;
  readonly namespace: 'AWS/SQS';
  /** What the alarm adds up; one entry for a single-metric alarm. */
  readonly metrics: readonly QueueDepthMetric[];
  /** Metric math only: the expression's id, text and label. */
  readonly expression?: { readonly id: string; readonly expression: string; readonly label?: string };
  readonly queueName: string;
  /** Where to read the depth; the alarm itself only knows the queue by name. */
  readonly queueUrl: string;
  readonly statistic: 'Maximum';
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
