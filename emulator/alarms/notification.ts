/**
 * The message CloudWatch publishes to an alarm action's SNS topic: a JSON document (what SQS and
 * Lambda subscribers receive as the SNS `Message`) and a subject such as
 * `ALARM: "my-alarm" in US East (N. Virginia)`.
 */
import { SNS_LIMITS } from '../../aws/limits';
import type { MetricKey } from '../metrics';
import type { AlarmTransition, MetricAlarm } from './types';

/** The names CloudWatch notifications give regions (their `Region` field and subject). */
const REGION_NAMES: Readonly<Record<string, string>> = {
  'us-east-1': 'US East (N. Virginia)',
  'us-east-2': 'US East (Ohio)',
  'us-west-1': 'US West (N. California)',
  'us-west-2': 'US West (Oregon)',
  'ca-central-1': 'Canada (Central)',
  'eu-west-1': 'EU (Ireland)',
  'eu-west-2': 'EU (London)',
  'eu-west-3': 'EU (Paris)',
  'eu-central-1': 'EU (Frankfurt)',
  'eu-north-1': 'EU (Stockholm)',
  'eu-south-1': 'EU (Milan)',
  'ap-south-1': 'Asia Pacific (Mumbai)',
  'ap-northeast-1': 'Asia Pacific (Tokyo)',
  'ap-northeast-2': 'Asia Pacific (Seoul)',
  'ap-northeast-3': 'Asia Pacific (Osaka)',
  'ap-southeast-1': 'Asia Pacific (Singapore)',
  'ap-southeast-2': 'Asia Pacific (Sydney)',
  'sa-east-1': 'South America (Sao Paulo)',
};


/** Where the alarm lives, for its ARN and the notification's account and region fields. */
export interface AlarmLocation {
  readonly region: string;
  readonly accountId: string;
  /** When the alarm's configuration was last written (here: when the evaluator was created). */
  readonly configuredAt: Date;
}

/** The JSON document of a CloudWatch alarm notification, in CloudWatch's field order. */
export interface AlarmNotification {
  readonly AlarmName: string;
  readonly AlarmDescription: string | null;
  readonly AWSAccountId: string;
  readonly AlarmConfigurationUpdatedTimestamp: string;
  readonly NewStateValue: string;
  readonly NewStateReason: string;
  readonly StateChangeTime: string;
  readonly Region: string;
  readonly AlarmArn: string;
  readonly OldStateValue: string;
  readonly OKActions: readonly string[];
  readonly AlarmActions: readonly string[];
  readonly InsufficientDataActions: readonly string[];
  readonly Trigger: AlarmTrigger;
}

/** What every `Trigger` has: the rule the alarm evaluates. */
interface TriggerRule {
  readonly Period: number;
  readonly EvaluationPeriods: number;
  readonly DatapointsToAlarm: number;
  readonly ComparisonOperator: string;
  readonly Threshold: number;
  readonly TreatMissingData: string;
  readonly EvaluateLowSampleCountPercentile: '';
}

/** The `Trigger` of a notification for a single-metric alarm. */
export interface MetricTrigger extends TriggerRule {
  readonly MetricName: string;
  readonly Namespace: string;
  readonly StatisticType: 'Statistic';
  readonly Statistic: string;
  readonly Unit: null;
  readonly Dimensions: ReadonlyArray<{ readonly value: string; readonly name: string }>;
}

/** One entry of a metric math alarm's `Metrics`: the expression, or a metric it uses. */
export type TriggerMetric =
  | { readonly Expression: string; readonly Id: string; readonly Label?: string; readonly ReturnData: true }
  | {
      readonly Id: string;
      readonly MetricStat: { readonly Metric: { readonly Dimensions: ReadonlyArray<{ readonly value: string; readonly name: string }>; readonly MetricName: string; readonly Namespace: string }; readonly Period: number; readonly Stat: string };
      readonly ReturnData: false;
    };

/** The `Trigger` of a notification for a metric math alarm. */
export interface MathTrigger extends TriggerRule {
  readonly Metrics: readonly TriggerMetric[];
}

export type AlarmTrigger = MetricTrigger | MathTrigger;

/** `arn:aws:cloudwatch:<region>:<account>:alarm:<name>`. */
export function alarmArn(alarm: Pick<MetricAlarm, 'alarmName'>, location: AlarmLocation): string {
  return `arn:aws:cloudwatch:${location.region}:${location.accountId}:alarm:${alarm.alarmName}`;
}

/** `US East (N. Virginia)` for `us-east-1`; unknown regions keep their code. */
export function regionName(region: string): string {
  return REGION_NAMES[region] ?? region;
}

/** CloudWatch's timestamp format: milliseconds and an offset without a colon, `2026-11-30T10:00:00.000+0000`. */
export function cloudWatchTime(date: Date): string {
  return date.toISOString().replace('Z', '+0000');
}

/** The notification document for one transition. */
export function alarmNotification(alarm: MetricAlarm, transition: AlarmTransition, location: AlarmLocation): AlarmNotification {
  return {
    AlarmName: alarm.alarmName,
    AlarmDescription: alarm.alarmDescription ?? null,
    AWSAccountId: location.accountId,
    AlarmConfigurationUpdatedTimestamp: cloudWatchTime(location.configuredAt),
    NewStateValue: transition.newState,
    NewStateReason: transition.reason,
    StateChangeTime: cloudWatchTime(new Date(transition.timestamp)),
    Region: regionName(location.region),
    AlarmArn: alarmArn(alarm, location),
    OldStateValue: transition.oldState,
    OKActions: [...alarm.okActions],
    AlarmActions: [...alarm.alarmActions],
    InsufficientDataActions: [...(alarm.insufficientDataActions ?? [])],
    Trigger: alarmTrigger(alarm),
  };
}

/**
 * The alarm's `Trigger`: the metric, its statistic and dimensions for a single-metric alarm; for a
 * metric math alarm, `Metrics` as the alarm declares them (the expression, then each metric).
 */
function alarmTrigger(alarm: MetricAlarm): AlarmTrigger {
  const rule: TriggerRule = {
    Period: alarm.periodSeconds,
    EvaluationPeriods: alarm.evaluationPeriods,
    DatapointsToAlarm: alarm.datapointsToAlarm,
    ComparisonOperator: alarm.comparisonOperator,
    Threshold: alarm.threshold,
    TreatMissingData: alarm.treatMissingData,
    EvaluateLowSampleCountPercentile: '',
  };
  const [single] = alarm.metrics;
  if (alarm.expression === undefined && single !== undefined) {
    return { MetricName: single.key.metricName, Namespace: single.key.namespace, StatisticType: 'Statistic', Statistic: single.statistic.toUpperCase(), Unit: null, Dimensions: triggerDimensions(single.key), ...rule };
  }
  const expression = alarm.expression ?? { id: 'e1', expression: '' };
  const metrics: TriggerMetric[] = [
    { Expression: expression.expression, Id: expression.id, ...(expression.label !== undefined && { Label: expression.label }), ReturnData: true },
    ...alarm.metrics.map((metric): TriggerMetric => ({
      Id: metric.id ?? metric.key.metricName,
      MetricStat: { Metric: { Dimensions: triggerDimensions(metric.key), MetricName: metric.key.metricName, Namespace: metric.key.namespace }, Period: alarm.periodSeconds, Stat: metric.statistic },
      ReturnData: false,
    })),
  ];
  return { ...rule, Metrics: metrics };
}

/** The dimensions as a notification lists them: `{ value, name }`, in the alarm's order. */
function triggerDimensions(key: MetricKey): { value: string; name: string }[] {
  return Object.entries(key.dimensions).map(([name, value]) => ({ value, name }));
}

/**
 * `<STATE>: "<alarm name>" in <region name>`. Within SNS's limit (less than 100 characters; the
 * contract layer refuses a 100-character subject, as SNS does) the name is shortened with `...`,
 * and characters outside printable ASCII become `_`, as CloudWatch does.
 */
export function alarmSubject(alarmName: string, state: string, region: string): string {
  const where = regionName(region);
  const budget = SNS_LIMITS.maxSubjectLength - state.length - where.length - ': "" in '.length;
  const ascii = alarmName.replace(/[^\x20-\x7e]+/g, '_');
  const name = ascii.length > budget ? `${ascii.slice(0, budget - 3)}...` : ascii;
  return `${state}: "${name}" in ${where}`;
}
