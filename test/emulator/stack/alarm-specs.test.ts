/**
 * Which of the template's alarms local mode evaluates: one metric, or a metric math sum of
 * metrics, with a statistic it computes, on metrics it measures. Anything else (another
 * expression, a percentile, a metric nothing local publishes, a dimension naming something local
 * mode did not create) is listed as not evaluated, with the reason, rather than evaluated wrongly.
 */
import { alarmSpecs, queueDepthAlarms, type Measurability } from '../../../emulator/stack/alarms';
import { provisionedStack } from '../../helpers/provisioned-stack';
import type { Template } from '../../../aws/cloudformation/template';

const stack = provisionedStack(['Dlq', 'Other']);

const stat = (metricName: string, queueId = 'Dlq', extra: Record<string, unknown> = {}) => ({
  Metric: { Namespace: 'AWS/SQS', MetricName: metricName, Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }] },
  Period: 60,
  Stat: 'Maximum',
  ...extra,
});

function held(overrides: { expression?: string; inFlightQueue?: string; inFlightStat?: string } = {}): Record<string, unknown> {
  return {
    AlarmName: 'held',
    Threshold: 0,
    ComparisonOperator: 'GreaterThanThreshold',
    EvaluationPeriods: 1,
    Metrics: [
      { Id: 'expr_1', Expression: overrides.expression ?? 'visible + inFlight', Label: 'Messages held', ReturnData: true },
      { Id: 'visible', MetricStat: stat('ApproximateNumberOfMessagesVisible'), ReturnData: false },
      { Id: 'inFlight', MetricStat: stat('ApproximateNumberOfMessagesNotVisible', overrides.inFlightQueue, { Stat: overrides.inFlightStat ?? 'Maximum' }), ReturnData: false },
    ],
  };
}

/** Measures SQS metrics only, as a stand-in for local-metrics.ts's rule. */
const sqsOnly: Measurability = (key) => (key.namespace === 'AWS/SQS' ? { measured: true } : { measured: false, reason: `nothing local publishes ${key.namespace} ${key.metricName}` });

const templateOf = (...alarms: Record<string, unknown>[]): Template => ({ Resources: Object.fromEntries(alarms.map((props, index) => [`Alarm${index}`, { Type: 'AWS::CloudWatch::Alarm', Properties: props }])) }) as Template;

const depth = (metricName: string, id?: string) => ({ ...(id !== undefined && { id }), key: { namespace: 'AWS/SQS', metricName, dimensions: { QueueName: 'S-Dlq' } }, statistic: 'Maximum' });

test('the DLQ alarm (visible + inFlight) is evaluated as a sum of the two depths of its queue, and is a queue depth alarm', () => {
  const specs = alarmSpecs(templateOf(held()), stack, sqsOnly);
  expect(specs.notEvaluated).toEqual([]);
  expect(specs.evaluated).toEqual([expect.objectContaining({
    alarmName: 'held',
    metrics: [depth('ApproximateNumberOfMessagesVisible', 'visible'), depth('ApproximateNumberOfMessagesNotVisible', 'inFlight')],
    expression: { id: 'expr_1', expression: 'visible + inFlight', label: 'Messages held' },
    periodSeconds: 60,
  })]);
  expect(queueDepthAlarms(specs).map(({ alarm, queueName }) => [alarm.alarmName, queueName])).toEqual([['held', 'S-Dlq']]);
});

const single = { AlarmName: 'visible', Namespace: 'AWS/SQS', MetricName: 'ApproximateNumberOfMessagesVisible', Statistic: 'Maximum', Period: 60, Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': ['Dlq', 'QueueName'] } }], Threshold: 0, EvaluationPeriods: 1 };

test('a single metric is evaluated with its own statistic', () => {
  expect(alarmSpecs(templateOf(single), stack, sqsOnly).evaluated.map((spec) => spec.metrics)).toEqual([[depth('ApproximateNumberOfMessagesVisible')]]);
  expect(alarmSpecs(templateOf({ ...single, Statistic: 'Average' }), stack, sqsOnly).evaluated.map((spec) => spec.metrics[0]?.statistic)).toEqual(['Average']);
});

test('a sum over two queues is evaluated, and is not a queue depth alarm (it watches no one queue)', () => {
  const specs = alarmSpecs(templateOf(held({ inFlightQueue: 'Other' })), stack, sqsOnly);
  expect(specs.evaluated.map((spec) => spec.metrics.map((metric) => metric.key.dimensions.QueueName))).toEqual([['S-Dlq', 'S-Other']]);
  expect(queueDepthAlarms(specs)).toEqual([]);
});

test('an alarm not evaluated keeps the dimension values it could resolve, to tell whose it is', () => {
  const throttles = { ...single, AlarmName: 'throttles', Namespace: 'AWS/Lambda', MetricName: 'Throttles', Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': ['Dlq', 'QueueName'] } }, { Name: 'FunctionName', Value: { Ref: 'Gone' } }] };
  expect(alarmSpecs(templateOf(throttles), stack, sqsOnly).notEvaluated.map((alarm) => alarm.dimensionValues)).toEqual([['S-Dlq']]);
});

test.each([
  ['another expression', held({ expression: 'visible - inFlight' }), 'visible - inFlight', 'local mode evaluates one metric, or one sum of metrics (a + b)'],
  ['a percentile', held({ inFlightStat: 'p99' }), 'visible + inFlight', 'local mode computes Sum, Maximum, Minimum, Average, SampleCount, not p99'],
  ['a metric nothing local publishes', { ...single, AlarmName: 'held', Namespace: 'AWS/Lambda', MetricName: 'Throttles', Dimensions: [] }, 'AWS/Lambda Throttles', 'nothing local publishes AWS/Lambda Throttles'],
  ['a dimension naming a resource local mode did not create', { ...single, AlarmName: 'held', Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': ['Gone', 'QueueName'] } }] }, 'AWS/SQS ApproximateNumberOfMessagesVisible', 'a dimension names something local mode did not create'],
])('%s is not evaluated, and says what it watches and why', (_, props, metric, reason) => {
  expect(alarmSpecs(templateOf(props), stack, sqsOnly)).toEqual({ evaluated: [], notEvaluated: [{ alarmName: 'held', metric, reason, dimensionValues: expect.any(Array) }] });
});
