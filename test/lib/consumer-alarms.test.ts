/**
 * Every consumer's alarms besides its DLQ's, walked from the example stack's template: each
 * consumer has its function's Errors and Throttles, the runtime's ConflictingDuplicates, its
 * mapping's failed invocations (and, for streams, dropped events; for queues, the oldest
 * message's age), each with ALARM and OK actions on the alarm topic; every mapping publishes its
 * event counts. Then the props: tuned, turned off, refused.
 */
import { Duration } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import { KinesisConsumer, QueueConsumer, QUEUE_CONSUMER_DEFAULTS, type ConsumerAlarmsProps } from '../../lib';
import { EventPipelineStack } from '../../example';
import { isAwsCustomResourceProvider } from '../../aws/cloudformation/template';
import { FIXTURE_HANDLER, testApp, testStack } from './support';

type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;

const template = Template.fromStack(new EventPipelineStack(testApp(), 'EffectivelyOnce', { consumers: [] })).toJSON() as { Resources: Resources };
const ofType = (resources: Resources, type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);
const alarmTopic = ofType(template.Resources, 'AWS::SNS::Topic').find(([id]) => id.startsWith('Alarms'))?.[0];

/** What an alarm watches: `AWS/Lambda Errors FunctionName=<ref>` and so on. */
function watched(props: Record<string, unknown>): string {
  const dimensions = (props.Dimensions as { Name: string; Value: unknown }[] | undefined) ?? [];
  return `${String(props.Namespace)} ${String(props.MetricName)} ${dimensions.map((dimension) => `${dimension.Name}=${JSON.stringify(dimension.Value)}`).join(',')}`;
}

describe('the example stack: every consumer', () => {
  const alarms = ofType(template.Resources, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
  const mappings = ofType(template.Resources, 'AWS::Lambda::EventSourceMapping');
  // The SQL database's migration provider runs at deploy, not on events: no consumer.
  const functions = ofType(template.Resources, 'AWS::Lambda::Function').filter(([id]) => !isAwsCustomResourceProvider(id));

  test('there are six consumers (the order projection\'s rebuilt generation among them), one mapping each', () => {
    expect(functions).toHaveLength(6);
    expect(mappings).toHaveLength(6);
  });

  test.each(mappings.map(([id, mapping]) => [id, mapping]))('%s publishes its event counts (MetricsConfig EventCount)', (_, mapping) => {
    expect(mapping.Properties.MetricsConfig).toEqual({ Metrics: ['EventCount'] });
  });

  test.each(mappings.map(([id, mapping]) => [id, mapping]))("%s's consumer has every default alarm, each notifying the alarm topic on ALARM and OK", (mappingId, mapping) => {
    const fn = (mapping.Properties.FunctionName as { Ref: string }).Ref;
    const service = (template.Resources[fn]?.Properties.Environment as { Variables: Record<string, string> }).Variables.POWERTOOLS_SERVICE_NAME;
    const isQueue = JSON.stringify(mapping.Properties.EventSourceArn).includes('Queue');
    const expected = [
      `AWS/Lambda Errors FunctionName=${JSON.stringify({ Ref: fn })}`,
      `AWS/Lambda Throttles FunctionName=${JSON.stringify({ Ref: fn })}`,
      `EffectivelyOnce ConflictingDuplicates service=${JSON.stringify(service)}`,
      `AWS/Lambda FailedInvokeEventCount EventSourceMappingUUID=${JSON.stringify({ Ref: mappingId })}`,
      isQueue ? `AWS/SQS ApproximateAgeOfOldestMessage QueueName=${JSON.stringify((mapping.Properties.EventSourceArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'] && { 'Fn::GetAtt': [(mapping.Properties.EventSourceArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0], 'QueueName'] })}` : `AWS/Lambda DroppedEventCount EventSourceMappingUUID=${JSON.stringify({ Ref: mappingId })}`,
    ];
    for (const metric of expected) {
      const alarm = alarms.find((props) => watched(props) === metric);
      expect({ metric, found: alarm !== undefined }).toEqual({ metric, found: true });
      expect(alarm).toMatchObject({ AlarmActions: [{ Ref: alarmTopic }], OKActions: [{ Ref: alarmTopic }], ComparisonOperator: 'GreaterThanThreshold', TreatMissingData: 'notBreaching' });
      expect(alarm?.AlarmDescription).toEqual(expect.any(String));
    }
  });
});

describe('the defaults', () => {
  const { stack, alarmTopic: topic } = testStack();
  const consumer = new QueueConsumer(stack, 'Counter', { consumerName: 'page-view-counter', entry: FIXTURE_HANDLER, alarmTopic: topic });
  const resources = Template.fromStack(stack).toJSON().Resources as Resources;
  const props = (name: keyof ConsumerAlarmsProps) => {
    const alarm = consumer.consumerAlarms.alarms[name];
    return alarm && resources[stack.getLogicalId(alarm.node.defaultChild as CfnAlarm)]?.Properties;
  };

  test('errors, throttles and conflicting duplicates fire on the first minute above 0', () => {
    for (const name of ['errors', 'throttles', 'conflictingDuplicates'] as const) expect(props(name)).toMatchObject({ Threshold: 0, EvaluationPeriods: 1, DatapointsToAlarm: 1, Statistic: 'Sum', Period: 60 });
  });

  test('failed invocations fire after 5 minutes in a row: a transient failure is retried and clears', () => {
    expect(props('failedInvokeEvents')).toMatchObject({ Threshold: 0, EvaluationPeriods: 5, DatapointsToAlarm: 5 });
  });

  test('the oldest message fires past visibility timeout x max receive count, for 3 minutes', () => {
    const queue = ofType(resources, 'AWS::SQS::Queue').find(([id]) => id.startsWith('CounterQueue'))?.[1].Properties as { VisibilityTimeout: number; RedrivePolicy: { maxReceiveCount: number } };
    expect(queue.RedrivePolicy.maxReceiveCount).toBe(QUEUE_CONSUMER_DEFAULTS.maxReceiveCount);
    expect(props('oldestMessageAge')).toMatchObject({ Threshold: queue.VisibilityTimeout * queue.RedrivePolicy.maxReceiveCount, EvaluationPeriods: 3, Statistic: 'Maximum' });
  });
});

describe('the alarms prop', () => {
  test('tunes one alarm and turns another off', () => {
    const { stack, alarmTopic: topic } = testStack();
    const consumer = new QueueConsumer(stack, 'Counter', { consumerName: 'page-view-counter', entry: FIXTURE_HANDLER, alarmTopic: topic, alarms: { throttles: false, errors: { threshold: 2, periods: 3 }, oldestMessageAge: { threshold: Duration.minutes(10) } } });
    expect(Object.keys(consumer.consumerAlarms.alarms).sort()).toEqual(['conflictingDuplicates', 'errors', 'failedInvokeEvents', 'oldestMessageAge']);
    const resources = Template.fromStack(stack).toJSON().Resources as Resources;
    const alarms = ofType(resources, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
    expect(alarms.find((alarm) => alarm.MetricName === 'Throttles')).toBeUndefined();
    expect(alarms.find((alarm) => alarm.MetricName === 'Errors')).toMatchObject({ Threshold: 2, EvaluationPeriods: 3, DatapointsToAlarm: 3 });
    expect(alarms.find((alarm) => alarm.MetricName === 'ApproximateAgeOfOldestMessage')).toMatchObject({ Threshold: 600 });
  });

  test('a stream consumer alarms on dropped events, not on a queue age', () => {
    const { stack, alarmTopic: topic } = testStack();
    const consumer = new KinesisConsumer(stack, 'Clicks', { consumerName: 'click-counter', entry: FIXTURE_HANDLER, alarmTopic: topic });
    expect(Object.keys(consumer.consumerAlarms.alarms).sort()).toEqual(['conflictingDuplicates', 'droppedEvents', 'errors', 'failedInvokeEvents', 'throttles']);
  });

  test.each<[string, () => void, string]>([
    ['dropped events on a queue consumer', () => new QueueConsumer(testStack().stack, 'C', { consumerName: 'c-q', entry: FIXTURE_HANDLER, alarmTopic: testStack().alarmTopic, alarms: { droppedEvents: {} } }), 'alarms.droppedEvents is for stream consumers'],
    ['a queue age on a stream consumer', () => new KinesisConsumer(testStack().stack, 'C', { consumerName: 'c-k', entry: FIXTURE_HANDLER, alarmTopic: testStack().alarmTopic, alarms: { oldestMessageAge: {} } }), 'alarms.oldestMessageAge is for queue consumers'],
    ['0 periods', () => new QueueConsumer(testStack().stack, 'C', { consumerName: 'c-q', entry: FIXTURE_HANDLER, alarmTopic: testStack().alarmTopic, alarms: { errors: { periods: 0 } } }), 'alarms.errors.periods'],
    ['a negative threshold', () => new QueueConsumer(testStack().stack, 'C', { consumerName: 'c-q', entry: FIXTURE_HANDLER, alarmTopic: testStack().alarmTopic, alarms: { throttles: { threshold: -1 } } }), 'alarms.throttles.threshold must be a count >= 0 (given -1)'],
  ])('refuses %s', (_, build, message) => {
    expect(build).toThrow(message);
  });
});
