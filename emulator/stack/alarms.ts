/**
 * The template's alarms on SQS queue depth, ready for the local alarm evaluator: on one depth
 * metric, or on a metric math sum of depth metrics of one queue (`visible + inFlight`). Other
 * alarms (such as Lambda's IteratorAge) have no local metric and are listed as not evaluated.
 */
import type { QueueDepthAlarm, QueueDepthMetric, QueueDepthMetricName } from '../alarms';
import { resolveString, resolveValue } from '../../aws/cloudformation/intrinsics';
import type { ProvisionedStack } from './provision';
import { numberProp, ResourceType, resourcesOfType, stringProp, type Template } from '../../aws/cloudformation/template';

export interface AlarmSpecs {
  readonly queueDepth: QueueDepthAlarm[];
  /** Alarms local mode does not evaluate, by name, with the metric they watch. */
  readonly notEvaluated: { readonly alarmName: string; readonly metric: string }[];
}

/** Splits the template's alarms into the ones local mode evaluates and the rest. */
export function alarmSpecs(template: Template, stack: ProvisionedStack): AlarmSpecs {
  const specs: AlarmSpecs = { queueDepth: [], notEvaluated: [] };
  for (const alarm of resourcesOfType(template, ResourceType.ALARM)) {
    const props = alarm.properties;
    const alarmName = stringProp(props, 'AlarmName') ?? `${stack.stackName}-${alarm.logicalId}`;
    const depth = depthOf(props, stack);
    const queue = [...stack.queues.values()].find((candidate) => candidate.name === depth?.queueName);
    if (depth === undefined || !queue) {
      specs.notEvaluated.push({ alarmName, metric: metricLabel(props) });
      continue;
    }
    specs.queueDepth.push({
      alarmName,
      alarmDescription: stringProp(props, 'AlarmDescription'),
      namespace: 'AWS/SQS',
      metrics: depth.metrics,
      ...(depth.expression && { expression: depth.expression }),
      queueName: queue.name,
      queueUrl: queue.url,
      statistic: 'Maximum',
      periodSeconds: depth.periodSeconds,
      evaluationPeriods: numberProp(props, 'EvaluationPeriods') ?? 1,
      datapointsToAlarm: numberProp(props, 'DatapointsToAlarm') ?? numberProp(props, 'EvaluationPeriods') ?? 1,
      threshold: numberProp(props, 'Threshold') ?? 0,
      comparisonOperator: (stringProp(props, 'ComparisonOperator') ?? 'GreaterThanThreshold') as QueueDepthAlarm['comparisonOperator'],
      treatMissingData: (stringProp(props, 'TreatMissingData') ?? 'missing') as QueueDepthAlarm['treatMissingData'],
      alarmActions: arns(props.AlarmActions, stack),
      okActions: arns(props.OKActions, stack),
      insufficientDataActions: arns(props.InsufficientDataActions, stack),
    });
  }
  return specs;
}

const DEPTH_METRIC_NAMES: readonly string[] = ['ApproximateNumberOfMessagesVisible', 'ApproximateNumberOfMessagesNotVisible'] satisfies QueueDepthMetricName[];

/** What the alarm watches, when it is queue depth local mode can sample. */
interface DepthWatch {
  readonly queueName: string;
  readonly metrics: QueueDepthMetric[];
  readonly expression?: { readonly id: string; readonly expression: string; readonly label?: string };
  readonly periodSeconds: number;
}

/** A Maximum of depth metrics: the alarm's own metric, or a metric math sum of metrics of one queue. */
function depthOf(props: Record<string, unknown>, stack: ProvisionedStack): DepthWatch | undefined {
  if (props.Metrics === undefined) {
    const queueName = queueNameOf(props.Dimensions, stack);
    if (props.Namespace !== 'AWS/SQS' || !DEPTH_METRIC_NAMES.includes(String(props.MetricName)) || props.Statistic !== 'Maximum' || queueName === undefined) return undefined;
    return { queueName, metrics: [{ metricName: props.MetricName as QueueDepthMetricName }], periodSeconds: numberProp(props, 'Period') ?? 60 };
  }
  return depthSumOf(props.Metrics as MetricDataQuery[], stack);
}

interface MetricDataQuery {
  readonly Id: string;
  readonly Expression?: string;
  readonly Label?: string;
  readonly MetricStat?: { readonly Metric?: { readonly Namespace?: string; readonly MetricName?: string; readonly Dimensions?: unknown }; readonly Period?: number; readonly Stat?: string };
}

/** `a + b + ...` over Maximums of depth metrics of one queue, with one period; anything else is not evaluated. */
function depthSumOf(queries: readonly MetricDataQuery[], stack: ProvisionedStack): DepthWatch | undefined {
  const expressions = queries.filter((query) => query.Expression !== undefined);
  const [expression] = expressions;
  if (expressions.length !== 1 || expression?.Expression === undefined || !/^\s*\w+(\s*\+\s*\w+)*\s*$/.test(expression.Expression)) return undefined;
  const used = expression.Expression.split('+').map((id) => id.trim());
  const stats = used.map((id) => queries.find((query) => query.Id === id)?.MetricStat);
  if (stats.some((stat) => stat?.Metric?.Namespace !== 'AWS/SQS' || !DEPTH_METRIC_NAMES.includes(String(stat.Metric.MetricName)) || stat.Stat !== 'Maximum')) return undefined;
  const queueNames = new Set(stats.map((stat) => queueNameOf(stat?.Metric?.Dimensions, stack)));
  const periods = new Set(stats.map((stat) => stat?.Period ?? 60));
  const [queueName] = queueNames;
  const [periodSeconds = 60] = periods;
  if (queueNames.size !== 1 || queueName === undefined || periods.size !== 1) return undefined;
  return {
    queueName,
    metrics: used.map((id, index) => ({ id, metricName: stats[index]?.Metric?.MetricName as QueueDepthMetricName })),
    expression: { id: expression.Id, expression: expression.Expression, ...(expression.Label !== undefined && { label: expression.Label }) },
    periodSeconds,
  };
}

function queueNameOf(value: unknown, stack: ProvisionedStack): string | undefined {
  const dimensions = (value as { Name: string; Value: unknown }[] | undefined) ?? [];
  const dimension = dimensions.find((candidate) => candidate.Name === 'QueueName');
  return dimension ? resolveString(dimension.Value, stack.context) : undefined;
}

/** `AWS/SQS/ApproximateNumberOfMessagesVisible`, or the expression of a metric math alarm. */
function metricLabel(props: Record<string, unknown>): string {
  if (props.Metrics === undefined) return `${String(props.Namespace)}/${String(props.MetricName)}`;
  return (props.Metrics as MetricDataQuery[]).find((query) => query.Expression !== undefined)?.Expression ?? 'metric math';
}

function arns(value: unknown, stack: ProvisionedStack): string[] {
  return value === undefined ? [] : (resolveValue(value, stack.context) as unknown[]).map(String);
}
