/**
 * The DLQ depth alarm as the constructs synthesize it (lib/dlq-alarm.ts): a metric math sum of the
 * queue's visible and in-flight messages, Maximum over one minute, above 0. For tests that walk a
 * template's alarms, and its rule as local mode's evaluator takes it.
 */
import type { MetricAlarm } from '../../emulator/alarms';

/** A template's alarm properties. */
type AlarmProps = Readonly<Record<string, unknown>>;

interface MetricQuery {
  readonly Id: string;
  readonly Expression?: string;
  readonly MetricStat?: { readonly Metric: { readonly Namespace: string; readonly MetricName: string; readonly Dimensions: { Name: string; Value: unknown }[] }; readonly Period: number; readonly Stat: string };
}

/** The `Metrics` of the held-messages alarm on the queue whose `QueueName` is `queueName` (a literal or an intrinsic). */
export function heldMessagesMetrics(queueName: unknown): unknown[] {
  const stat = (metricName: string) => ({ Metric: { Dimensions: [{ Name: 'QueueName', Value: queueName }], MetricName: metricName, Namespace: 'AWS/SQS' }, Period: 60, Stat: 'Maximum' });
  return [
    { Expression: 'visible + inFlight', Id: 'expr_1', Label: 'Messages held (visible + in flight)', ReturnData: true },
    { Id: 'visible', MetricStat: stat('ApproximateNumberOfMessagesVisible'), ReturnData: false },
    { Id: 'inFlight', MetricStat: stat('ApproximateNumberOfMessagesNotVisible'), ReturnData: false },
  ];
}

/** The properties every DLQ alarm has, on the queue named `queueName`: above 0 on one 1-minute datapoint. */
export function heldMessagesAlarm(queueName: unknown): Record<string, unknown> {
  return { Metrics: heldMessagesMetrics(queueName), EvaluationPeriods: 1, DatapointsToAlarm: 1, ComparisonOperator: 'GreaterThanThreshold', Threshold: 0, TreatMissingData: 'notBreaching' };
}

/** The `QueueName` dimension of a held-messages alarm, or undefined for any other alarm. */
export function heldMessagesQueue(props: AlarmProps): unknown {
  const queries = props.Metrics as MetricQuery[] | undefined;
  const visible = queries?.find((query) => query.MetricStat?.Metric.MetricName === 'ApproximateNumberOfMessagesVisible');
  const expression = queries?.find((query) => query.Expression !== undefined);
  if (!visible || expression?.Expression !== 'visible + inFlight') return undefined;
  return visible.MetricStat?.Metric.Dimensions.find((dimension) => dimension.Name === 'QueueName')?.Value;
}

/** Above 0 in 1 of 1 one-minute periods, missing data not breaching: the rule of every DLQ alarm the constructs make. */
export const ABOVE_ZERO_IN_ONE_PERIOD = {
  periodSeconds: 60,
  evaluationPeriods: 1,
  datapointsToAlarm: 1,
  threshold: 0,
  comparisonOperator: 'GreaterThanThreshold',
  treatMissingData: 'notBreaching',
} as const satisfies Partial<MetricAlarm>;
