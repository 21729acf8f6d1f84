/**
 * QueueConsumer fed by fan-out: `subscribeTo(topic)` and `addEventBridgeRule(rule)` add the
 * subscription or target with a queue policy statement scoped to that topic or rule, and tell the
 * runtime which shape to decode (`EVENT_ENVELOPE`); one consumer refuses two shapes.
 */
import { Template, Match } from 'aws-cdk-lib/assertions';
import { Rule } from 'aws-cdk-lib/aws-events';
import { SubscriptionFilter, Topic } from 'aws-cdk-lib/aws-sns';
import { EnvelopeFormat, KinesisConsumer, QueueConsumer, type QueueConsumerProps } from '../../lib';
import { CONSUMER_ENV } from '../../aws/consumer-env';
import { FIXTURE_HANDLER, logicalId, testStack } from './support';

function consumerIn(overrides: Partial<QueueConsumerProps> = {}) {
  const { stack, alarmTopic } = testStack();
  const consumer = new QueueConsumer(stack, 'Counter', { consumerName: 'page-view-counter', entry: FIXTURE_HANDLER, alarmTopic, ...overrides });
  return { stack, consumer };
}

function functionEnvironment(template: Template): Record<string, unknown> {
  const functions = Object.values(template.findResources('AWS::Lambda::Function', { Properties: { Environment: { Variables: { CONSUMER_NAME: Match.anyValue() } } } }));
  expect(functions).toHaveLength(1);
  return functions[0].Properties.Environment.Variables as Record<string, unknown>;
}

/** The queue policy statements that let a service principal send to the source queue. */
function serviceSendStatements(template: Template, service: string): Record<string, unknown>[] {
  const policies = Object.values(template.findResources('AWS::SQS::QueuePolicy'));
  return policies
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Record<string, unknown>[])
    .filter((statement) => JSON.stringify(statement.Principal) === JSON.stringify({ Service: service }));
}

describe('QueueConsumer.subscribeTo', () => {
  test('subscribes the source queue with raw delivery off and tells the runtime to unwrap SNS notifications', () => {
    const { stack, consumer } = consumerIn();
    const topic = new Topic(stack, 'PageViews');
    consumer.subscribeTo(topic);
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'sqs',
      TopicArn: { Ref: logicalId(template, 'AWS::SNS::Topic', 'PageViews') },
      Endpoint: { 'Fn::GetAtt': [logicalId(template, 'AWS::SQS::Queue', 'CounterQueue'), 'Arn'] },
      RawMessageDelivery: false,
    });
    expect(functionEnvironment(template)[CONSUMER_ENV.envelope]).toBe(EnvelopeFormat.SNS);
    expect(consumer.envelope).toEqual({ format: EnvelopeFormat.SNS });
  });

  test('lets only that topic send to the queue', () => {
    const { stack, consumer } = consumerIn();
    consumer.subscribeTo(new Topic(stack, 'PageViews'));
    const template = Template.fromStack(stack);
    const statements = serviceSendStatements(template, 'sns.amazonaws.com');
    expect(statements).toEqual([
      expect.objectContaining({
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Condition: { ArnEquals: { 'aws:SourceArn': { Ref: logicalId(template, 'AWS::SNS::Topic', 'PageViews') } } },
      }),
    ]);
  });

  test('with raw delivery, the body is the message itself: the runtime keeps its default envelope', () => {
    const { stack, consumer } = consumerIn();
    consumer.subscribeTo(new Topic(stack, 'PageViews'), { rawMessageDelivery: true });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::SNS::Subscription', { RawMessageDelivery: true });
    expect(functionEnvironment(template)).not.toHaveProperty(CONSUMER_ENV.envelope);
    expect(consumer.envelope.format).toBe(EnvelopeFormat.NATIVE);
  });

  test('passes a filter policy through', () => {
    const { stack, consumer } = consumerIn();
    consumer.subscribeTo(new Topic(stack, 'Events'), { filterPolicy: { type: SubscriptionFilter.stringFilter({ allowlist: ['page.viewed'] }) } });
    Template.fromStack(stack).hasResourceProperties('AWS::SNS::Subscription', { FilterPolicy: { type: ['page.viewed'] } });
  });

  test('two topics with the same delivery share the shape', () => {
    const { stack, consumer } = consumerIn();
    consumer.subscribeTo(new Topic(stack, 'One'));
    consumer.subscribeTo(new Topic(stack, 'Two'));
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::SNS::Subscription', 2);
    expect(serviceSendStatements(template, 'sns.amazonaws.com')).toHaveLength(2);
  });

  test('refuses a raw subscription beside a wrapped one: one function decodes one shape', () => {
    const { stack, consumer } = consumerIn();
    consumer.subscribeTo(new Topic(stack, 'Wrapped'));
    expect(() => consumer.subscribeTo(new Topic(stack, 'Raw'), { rawMessageDelivery: true })).toThrow(
      'the subscription to Test/Raw (raw delivery) delivers the native envelope, but the subscription to Test/Wrapped set sns: one consumer decodes one shape',
    );
  });

  test('refuses a subscription that contradicts the envelope prop', () => {
    const { stack, consumer } = consumerIn({ envelope: { format: EnvelopeFormat.NATIVE } });
    expect(() => consumer.subscribeTo(new Topic(stack, 'PageViews'))).toThrow('delivers the sns envelope, but the envelope prop set native');
  });
});

describe('QueueConsumer.addEventBridgeRule', () => {
  test('targets the queue from the rule, lets only that rule send, and decodes the event JSON', () => {
    const { stack, consumer } = consumerIn();
    const rule = new Rule(stack, 'Orders', { eventPattern: { source: ['com.example.orders'] } });
    consumer.addEventBridgeRule(rule);
    const template = Template.fromStack(stack);
    const queueArn = { 'Fn::GetAtt': [logicalId(template, 'AWS::SQS::Queue', 'CounterQueue'), 'Arn'] };
    template.hasResourceProperties('AWS::Events::Rule', { Targets: [Match.objectLike({ Arn: queueArn })] });
    const statements = serviceSendStatements(template, 'events.amazonaws.com');
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatchObject({ Effect: 'Allow', Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [logicalId(template, 'AWS::Events::Rule', 'Orders'), 'Arn'] } } } });
    expect(functionEnvironment(template)[CONSUMER_ENV.envelope]).toBe(EnvelopeFormat.EVENTBRIDGE);
  });

  test('keys on a path inside detail when the envelope prop names one', () => {
    const { stack, consumer } = consumerIn({ envelope: { format: EnvelopeFormat.EVENTBRIDGE, eventIdPath: 'detail.order.id' } });
    consumer.addEventBridgeRule(new Rule(stack, 'Orders', { eventPattern: { source: ['aws.s3'] } }));
    const environment = functionEnvironment(Template.fromStack(stack));
    expect(environment[CONSUMER_ENV.envelope]).toBe(EnvelopeFormat.EVENTBRIDGE);
    expect(environment[CONSUMER_ENV.eventIdPath]).toBe('detail.order.id');
  });

  test('refuses a rule beside an SNS subscription', () => {
    const { stack, consumer } = consumerIn();
    consumer.subscribeTo(new Topic(stack, 'PageViews'));
    expect(() => consumer.addEventBridgeRule(new Rule(stack, 'Orders', { eventPattern: { source: ['x'] } }))).toThrow(
      'the EventBridge rule Test/Orders delivers the eventbridge envelope, but the subscription to Test/PageViews set sns',
    );
  });
});

describe('the envelope prop', () => {
  test('sets CloudEvents, which no subscription implies', () => {
    const { stack } = consumerIn({ envelope: { format: EnvelopeFormat.CLOUDEVENTS } });
    expect(functionEnvironment(Template.fromStack(stack))[CONSUMER_ENV.envelope]).toBe(EnvelopeFormat.CLOUDEVENTS);
  });

  test.each<[string, QueueConsumerProps['envelope'], string]>([
    ['an unknown format', { format: 'xml' as EnvelopeFormat }, 'envelope.format must be one of native, sns, eventbridge, cloudevents (given "xml")'],
    ['a path with another format', { format: EnvelopeFormat.SNS, eventIdPath: 'detail.id' }, 'envelope.eventIdPath is for the eventbridge format only (format is sns)'],
    ["EventBridge's own id", { format: EnvelopeFormat.EVENTBRIDGE, eventIdPath: 'id' }, 'envelope.eventIdPath "id" names EventBridge\'s own event id, which changes when a producer retries PutEvents'],
    ['detail itself', { format: EnvelopeFormat.EVENTBRIDGE, eventIdPath: 'detail' }, 'envelope.eventIdPath must be a dotted path under detail, such as "detail.orderId" or "detail.order.id" (given "detail")'],
    ['an empty segment', { format: EnvelopeFormat.EVENTBRIDGE, eventIdPath: 'detail..id' }, 'must be a dotted path under detail'],
    ['a key that starts with a space', { format: EnvelopeFormat.EVENTBRIDGE, eventIdPath: 'detail. orderId' }, 'must be a dotted path under detail'],
  ])('refuses %s', (_, envelope, message) => {
    expect(() => consumerIn({ envelope })).toThrow(message);
  });

  test('a Kinesis consumer takes CloudEvents but refuses SNS, which cannot deliver to a stream', () => {
    const { stack, alarmTopic } = testStack();
    const kinesis = new KinesisConsumer(stack, 'Clicks', { consumerName: 'click-counter', entry: FIXTURE_HANDLER, alarmTopic, envelope: { format: EnvelopeFormat.CLOUDEVENTS } });
    expect(kinesis.envelope.format).toBe(EnvelopeFormat.CLOUDEVENTS);
    expect(functionEnvironment(Template.fromStack(stack))[CONSUMER_ENV.envelope]).toBe(EnvelopeFormat.CLOUDEVENTS);
    expect(() => new KinesisConsumer(stack, 'Other', { consumerName: 'other-counter', entry: FIXTURE_HANDLER, alarmTopic, envelope: { format: EnvelopeFormat.SNS } })).toThrow(
      'envelope.format must be one of native, eventbridge, cloudevents (given "sns")',
    );
  });
});
