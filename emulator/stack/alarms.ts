/**
 * The template's alarms on SQS queue depth, ready for the local alarm evaluator. Other alarms
 * (such as Lambda's IteratorAge) have no local metric and are listed as not evaluated.
 */
import type { QueueDepthAlarm } from '../alarms';
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
    const metric = `${String(props.Namespace)}/${String(props.MetricName)}`;
    const queueName = queueNameOf(props, stack);
    const queue = [...stack.queues.values()].find((candidate) => candidate.name === queueName);
    if (metric !== 'AWS/SQS/ApproximateNumberOfMessagesVisible' || !queue) {
      specs.notEvaluated.push({ alarmName, metric });
      continue;
    }
    specs.queueDepth.push({
      alarmName,
      alarmDescription: stringProp(props, 'AlarmDescription'),
      namespace: 'AWS/SQS',
      metricName: 'ApproximateNumberOfMessagesVisible',
      queueName: queue.name,
      queueUrl: queue.url,
      statistic: 'Maximum',
      periodSeconds: numberProp(props, 'Period') ?? 60,
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

function queueNameOf(props: Record<string, unknown>, stack: ProvisionedStack): string | undefined {
  const dimensions = (props.Dimensions as { Name: string; Value: unknown }[] | undefined) ?? [];
  const dimension = dimensions.find((candidate) => candidate.Name === 'QueueName');
  return dimension ? resolveString(dimension.Value, stack.context) : undefined;
}

function arns(value: unknown, stack: ProvisionedStack): string[] {
  return value === undefined ? [] : (resolveValue(value, stack.context) as unknown[]).map(String);
}
