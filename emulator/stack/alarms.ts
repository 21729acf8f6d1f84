/**
 * The template's alarms, ready for the local alarm evaluator: each alarm on one metric, or on a
 * metric math sum of metrics (`visible + inFlight`), whose metrics local mode measures (see
 * local-metrics.ts). The rest (another expression, a metric nothing local publishes) are listed as
 * not evaluated, with the reason.
 */
import { isQueueDepthAlarm, watchedQueueName, type AlarmMetric, type MetricAlarm } from '../alarms';
import { STATISTICS, metricLabel, type MetricKey, type Statistic } from '../metrics';
import { resolveValue, tryResolveString } from '../../aws/cloudformation/intrinsics';
import type { ProvisionedStack } from './provision';
import { numberProp, ResourceType, resourcesOfType, stringProp, type Template } from '../../aws/cloudformation/template';

/** An alarm local mode does not evaluate, and why. */
export interface NotEvaluatedAlarm {
  readonly alarmName: string;
  /** What it watches: `AWS/Lambda IteratorAge`, or the metric math expression. */
  readonly metric: string;
  readonly reason: string;
  /** The values of the dimensions it watches that local mode resolves (a function's name, a queue's): whose alarm it is. */
  readonly dimensionValues: readonly string[];
}

export interface AlarmSpecs {
  /** Every alarm the evaluator runs. */
  readonly evaluated: MetricAlarm[];
  readonly notEvaluated: NotEvaluatedAlarm[];
}

/** Tells whether local mode records a metric, and if not, why. */
export type Measurability = (key: MetricKey) => { readonly measured: true } | { readonly measured: false; readonly reason: string };

/** Splits the template's alarms into the ones local mode evaluates and the rest. */
export function alarmSpecs(template: Template, stack: ProvisionedStack, measurability: Measurability): AlarmSpecs {
  const specs: AlarmSpecs = { evaluated: [], notEvaluated: [] };
  for (const alarm of resourcesOfType(template, ResourceType.ALARM)) {
    const props = alarm.properties;
    const alarmName = stringProp(props, 'AlarmName') ?? `${stack.stackName}-${alarm.logicalId}`;
    const watch = measured(watchOf(props, stack), measurability);
    if ('reason' in watch) {
      specs.notEvaluated.push({ alarmName, metric: describeWatch(props), reason: watch.reason, dimensionValues: dimensionValuesOf(props, stack) });
      continue;
    }
    specs.evaluated.push({
      alarmName,
      alarmDescription: stringProp(props, 'AlarmDescription'),
      metrics: watch.metrics,
      ...(watch.expression && { expression: watch.expression }),
      periodSeconds: watch.periodSeconds,
      evaluationPeriods: numberProp(props, 'EvaluationPeriods') ?? 1,
      datapointsToAlarm: numberProp(props, 'DatapointsToAlarm') ?? numberProp(props, 'EvaluationPeriods') ?? 1,
      threshold: numberProp(props, 'Threshold') ?? 0,
      comparisonOperator: (stringProp(props, 'ComparisonOperator') ?? 'GreaterThanThreshold') as MetricAlarm['comparisonOperator'],
      treatMissingData: (stringProp(props, 'TreatMissingData') ?? 'missing') as MetricAlarm['treatMissingData'],
      alarmActions: arns(props.AlarmActions, stack),
      okActions: arns(props.OKActions, stack),
      insufficientDataActions: arns(props.InsufficientDataActions, stack),
    });
  }
  return specs;
}

/** The evaluated alarms on a queue's depth (the DLQs' alarms), with the queue each watches. */
export function queueDepthAlarms(specs: AlarmSpecs): { readonly alarm: MetricAlarm; readonly queueName: string }[] {
  return specs.evaluated.filter(isQueueDepthAlarm).map((alarm) => ({ alarm, queueName: watchedQueueName(alarm) ?? '' }));
}

/** What the alarm watches, when local mode can read it; else why not. */
type Watch =
  | { readonly metrics: AlarmMetric[]; readonly expression?: { readonly id: string; readonly expression: string; readonly label?: string }; readonly periodSeconds: number }
  | { readonly reason: string };

interface MetricDataQuery {
  readonly Id: string;
  readonly Expression?: string;
  readonly Label?: string;
  readonly MetricStat?: { readonly Metric?: { readonly Namespace?: string; readonly MetricName?: string; readonly Dimensions?: unknown }; readonly Period?: number; readonly Stat?: string };
}

/** The watch, or the reason of its first metric local mode does not record. */
function measured(watch: Watch, measurability: Measurability): Watch {
  if ('reason' in watch) return watch;
  for (const metric of watch.metrics) {
    const answer = measurability(metric.key);
    if (!answer.measured) return { reason: answer.reason };
  }
  return watch;
}

function watchOf(props: Record<string, unknown>, stack: ProvisionedStack): Watch {
  if (props.Metrics !== undefined) return sumOf(props.Metrics as MetricDataQuery[], stack);
  const metric = alarmMetric(undefined, { Namespace: props.Namespace, MetricName: props.MetricName, Dimensions: props.Dimensions }, props.Statistic, stack);
  if ('reason' in metric) return metric;
  return { metrics: [metric], periodSeconds: numberProp(props, 'Period') ?? 60 };
}

/** `a + b + ...` over metrics with one period; any other expression is not evaluated. */
function sumOf(queries: readonly MetricDataQuery[], stack: ProvisionedStack): Watch {
  const expressions = queries.filter((query) => query.Expression !== undefined);
  const [expression] = expressions;
  if (expressions.length !== 1 || expression?.Expression === undefined || !/^\s*\w+(\s*\+\s*\w+)*\s*$/.test(expression.Expression)) {
    return { reason: 'local mode evaluates one metric, or one sum of metrics (a + b)' };
  }
  const used = expression.Expression.split('+').map((id) => id.trim());
  const metrics: AlarmMetric[] = [];
  for (const id of used) {
    const stat = queries.find((query) => query.Id === id)?.MetricStat;
    if (stat === undefined) return { reason: `the expression names ${id}, which is not a metric of the alarm` };
    const metric = alarmMetric(id, stat.Metric ?? {}, stat.Stat, stack);
    if ('reason' in metric) return metric;
    metrics.push(metric);
  }
  const periods = new Set(used.map((id) => queries.find((query) => query.Id === id)?.MetricStat?.Period ?? 60));
  const [periodSeconds = 60] = periods;
  if (periods.size !== 1) return { reason: 'the metrics of the expression have different periods' };
  return { metrics, expression: { id: expression.Id, expression: expression.Expression, ...(expression.Label !== undefined && { label: expression.Label }) }, periodSeconds };
}

function alarmMetric(id: string | undefined, metric: { readonly Namespace?: unknown; readonly MetricName?: unknown; readonly Dimensions?: unknown }, statistic: unknown, stack: ProvisionedStack): AlarmMetric | { reason: string } {
  if (!STATISTICS.includes(statistic as Statistic)) return { reason: `local mode computes ${STATISTICS.join(', ')}, not ${String(statistic)}` };
  const dimensions = dimensionsOf(metric.Dimensions, stack);
  if (dimensions === undefined) return { reason: 'a dimension names something local mode did not create' };
  return { ...(id !== undefined && { id }), key: { namespace: String(metric.Namespace), metricName: String(metric.MetricName), dimensions }, statistic: statistic as Statistic };
}

function dimensionsOf(value: unknown, stack: ProvisionedStack): Record<string, string> | undefined {
  const dimensions: Record<string, string> = {};
  for (const dimension of (value as { Name: string; Value: unknown }[] | undefined) ?? []) {
    const resolved = tryResolveString(dimension.Value, stack.context);
    if (resolved === undefined) return undefined;
    dimensions[dimension.Name] = resolved;
  }
  return dimensions;
}

/** Every dimension value of the alarm's metrics that resolves locally. */
function dimensionValuesOf(props: Record<string, unknown>, stack: ProvisionedStack): string[] {
  const lists = props.Metrics === undefined ? [props.Dimensions] : (props.Metrics as MetricDataQuery[]).map((query) => query.MetricStat?.Metric?.Dimensions);
  return lists.flatMap((list) => ((list as { Value: unknown }[] | undefined) ?? []).flatMap((dimension) => tryResolveString(dimension.Value, stack.context) ?? []));
}

/** `AWS/SQS ApproximateAgeOfOldestMessage`, or the expression of a metric math alarm. */
function describeWatch(props: Record<string, unknown>): string {
  if (props.Metrics === undefined) return metricLabel({ namespace: String(props.Namespace), metricName: String(props.MetricName), dimensions: {} });
  return (props.Metrics as MetricDataQuery[]).find((query) => query.Expression !== undefined)?.Expression ?? 'metric math';
}

function arns(value: unknown, stack: ProvisionedStack): string[] {
  return value === undefined ? [] : (resolveValue(value, stack.context) as unknown[]).map(String);
}
