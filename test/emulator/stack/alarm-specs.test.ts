/**
 * Which of the template's alarms local mode evaluates: SQS depth on one metric, or a metric math
 * sum of depth metrics of one queue, each a Maximum. Anything else (another statistic, another
 * expression, two queues) is listed as not evaluated rather than evaluated wrongly.
 */
import { alarmSpecs } from '../../../emulator/stack/alarms';
import type { LocalQueue, ProvisionedStack } from '../../../emulator/stack/provision';
import type { Template } from '../../../aws/cloudformation/template';

const queue = (logicalId: string): LocalQueue => ({ logicalId, name: `S-${logicalId}`, url: `http://q/S-${logicalId}`, arn: `arn:aws:sqs:us-east-1:000000000000:S-${logicalId}`, visibilityTimeoutSeconds: 30, localVisibilityTimeoutSeconds: 1 });
const queues = new Map([['Dlq', queue('Dlq')], ['Other', queue('Other')]]);
const stack: ProvisionedStack = {
  stackName: 'S',
  queues,
  tables: new Map(),
  streams: new Map(),
  topics: new Map(),
  buckets: new Map(),
  context: { resources: new Map([...queues.values()].map((q) => [q.logicalId, { ref: q.url, attributes: { QueueName: q.name, Arn: q.arn } }])), pseudo: {} },
};

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

const templateOf = (...alarms: Record<string, unknown>[]): Template => ({ Resources: Object.fromEntries(alarms.map((props, index) => [`Alarm${index}`, { Type: 'AWS::CloudWatch::Alarm', Properties: props }])) }) as Template;

test('the DLQ alarm (visible + inFlight) is evaluated as a sum of the two depths of its queue', () => {
  const specs = alarmSpecs(templateOf(held()), stack);
  expect(specs.notEvaluated).toEqual([]);
  expect(specs.queueDepth).toEqual([expect.objectContaining({
    alarmName: 'held',
    queueName: 'S-Dlq',
    queueUrl: 'http://q/S-Dlq',
    metrics: [{ id: 'visible', metricName: 'ApproximateNumberOfMessagesVisible' }, { id: 'inFlight', metricName: 'ApproximateNumberOfMessagesNotVisible' }],
    expression: { id: 'expr_1', expression: 'visible + inFlight', label: 'Messages held' },
    periodSeconds: 60,
  })]);
});

test('a single depth metric with Maximum is evaluated as before', () => {
  const single = { AlarmName: 'visible', Namespace: 'AWS/SQS', MetricName: 'ApproximateNumberOfMessagesVisible', Statistic: 'Maximum', Period: 60, Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': ['Dlq', 'QueueName'] } }], Threshold: 0, EvaluationPeriods: 1 };
  expect(alarmSpecs(templateOf(single), stack).queueDepth.map((spec) => spec.metrics)).toEqual([[{ metricName: 'ApproximateNumberOfMessagesVisible' }]]);
  expect(alarmSpecs(templateOf({ ...single, AlarmName: 'avg', Statistic: 'Average' }), stack).notEvaluated).toEqual([{ alarmName: 'avg', metric: 'AWS/SQS/ApproximateNumberOfMessagesVisible' }]);
});

test.each([
  ['another expression', held({ expression: 'visible - inFlight' }), 'visible - inFlight'],
  ['metrics of two queues', held({ inFlightQueue: 'Other' }), 'visible + inFlight'],
  ['another statistic', held({ inFlightStat: 'Average' }), 'visible + inFlight'],
])('%s is not evaluated, and says which expression', (_, props, metric) => {
  expect(alarmSpecs(templateOf(props), stack)).toEqual({ queueDepth: [], notEvaluated: [{ alarmName: 'held', metric }] });
});
