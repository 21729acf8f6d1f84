import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { CfnQueue } from 'aws-cdk-lib/aws-sqs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { DEFAULT_TABLE_ACTIONS, QueueConsumer, type QueueConsumerProps } from '../../lib';
import { FIXTURE_HANDLER, grantedActions, logicalId, synthQueueConsumer, testStack } from './support';
import { heldMessagesMetrics } from '../helpers/alarms';

describe('QueueConsumer', () => {
  describe('with defaults', () => {
    const template = synthQueueConsumer();
    const queueId = logicalId(template, 'AWS::SQS::Queue', 'CounterQueue');
    const dlqId = logicalId(template, 'AWS::SQS::Queue', 'CounterDlq');

    test('creates the source queue, its DLQ, one function, one mapping and six alarms', () => {
      template.resourceCountIs('AWS::SQS::Queue', 2);
      template.resourceCountIs('AWS::Lambda::Function', 1);
      template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
      // The DLQ's, and the consumer's own five (errors, throttles, conflicting duplicates, failed invocations, oldest message).
      template.resourceCountIs('AWS::CloudWatch::Alarm', 6);
    });

    test('the source queue redrives to the DLQ after 6 receives, and hides messages for 6 timeouts', () => {
      template.hasResourceProperties('AWS::SQS::Queue', {
        QueueName: Match.stringLikeRegexp('^Test-Counter-'),
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 6 },
        VisibilityTimeout: 180,
        MessageRetentionPeriod: 4 * 24 * 3600,
        SqsManagedSseEnabled: true,
      });
    });

    test('the DLQ keeps messages 14 days and only lets the source queue redrive to it', () => {
      template.hasResourceProperties('AWS::SQS::Queue', {
        MessageRetentionPeriod: 14 * 24 * 3600,
        SqsManagedSseEnabled: true,
        RedriveAllowPolicy: {
          redrivePermission: 'byQueue',
          sourceQueueArns: [{ 'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp(':Test-Counter-')])] }],
        },
      });
    });

    test('both queues refuse plain-HTTP requests', () => {
      for (const queue of [queueId, dlqId]) {
        template.hasResourceProperties('AWS::SQS::QueuePolicy', {
          Queues: [{ Ref: queue }],
          PolicyDocument: {
            Statement: Match.arrayWith([
              Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
            ]),
          },
        });
      }
    });

    test('the mapping reports partial batch failures', () => {
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
        BatchSize: 10,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    });

    test('the function runs on the newest Node.js runtime, on ARM', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Timeout: 30,
        MemorySize: 256,
      });
    });

    test("the function is told its name, DLQ, attempts, the queue's receive limit, source queue and dedup TTL", () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: {
          Variables: {
            CONSUMER_NAME: 'page-view-counter',
            DLQ_URL: { Ref: dlqId },
            MAX_ATTEMPTS: '5',
            MAX_RECEIVE_COUNT: '6',
            SOURCE_QUEUE_URL: { Ref: queueId },
            DEDUP_TTL_SECONDS: String((4 + 14 + 1 + 4) * 24 * 3600),
            POWERTOOLS_SERVICE_NAME: 'page-view-counter',
            POWERTOOLS_METRICS_NAMESPACE: 'EffectivelyOnce',
            NODE_OPTIONS: '--enable-source-maps',
          },
        },
      });
    });

    test.each([
      ['consume the source queue', ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:ReceiveMessage'], queueId],
      ['send to the DLQ', ['sqs:SendMessage'], dlqId],
    ])('the function may %s', (_, actions, queue) => {
      template.hasResourceProperties('AWS::IAM::Policy', {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Action: Match.arrayWith(actions), Resource: { 'Fn::GetAtt': [queue, 'Arn'] } }),
          ]),
        },
      });
    });

    test('the function role has no managed policy: it may write its own log group only', () => {
      const logGroupId = logicalId(template, 'AWS::Logs::LogGroup');
      template.hasResourceProperties('AWS::IAM::Role', { ManagedPolicyArns: Match.absent() });
      template.hasResourceProperties('AWS::IAM::Policy', {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
              Resource: { 'Fn::GetAtt': [logGroupId, 'Arn'] },
            }),
          ]),
        },
      });
    });

    test('the DLQ is alarmed', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', { Metrics: heldMessagesMetrics({ 'Fn::GetAtt': [dlqId, 'QueueName'] }) });
    });
  });

  test('maps each table to its environment variable and grants the default item actions on it', () => {
    const { stack, alarmTopic } = testStack();
    const table = new Table(stack, 'Counters', { partitionKey: { name: 'pk', type: AttributeType.STRING } });
    new QueueConsumer(stack, 'Counter', {
      consumerName: 'page-view-counter',
      entry: FIXTURE_HANDLER,
      alarmTopic,
      tables: { COUNTERS_TABLE: table },
      environment: { ACCEPT_SCHEMA_V2: 'false' },
    });
    const template = Template.fromStack(stack);
    const tableId = logicalId(template, 'AWS::DynamoDB::Table');
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ COUNTERS_TABLE: { Ref: tableId }, ACCEPT_SCHEMA_V2: 'false' }) },
    });
    expect(grantedActions(template, 'dynamodb')).toEqual({ [tableId]: [...DEFAULT_TABLE_ACTIONS].sort() });
  });

  test('derives the visibility timeout, MAX_ATTEMPTS and dedup TTL from the props', () => {
    const template = synthQueueConsumer({
      timeout: Duration.seconds(20),
      maxBatchingWindow: Duration.seconds(5),
      batchSize: 100,
      maxReceiveCount: 10,
      retentionPeriod: Duration.days(7),
    });
    template.hasResourceProperties('AWS::SQS::Queue', { VisibilityTimeout: 6 * 20 + 5 });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 100,
      MaximumBatchingWindowInSeconds: 5,
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({ MAX_ATTEMPTS: '9', DEDUP_TTL_SECONDS: String((7 + 14 + 1 + 7) * 24 * 3600) }),
      },
    });
  });
});

describe('FIFO queues', () => {
  function fifoConsumer(overrides: Partial<QueueConsumerProps> = {}) {
    const { stack, alarmTopic } = testStack();
    const consumer = new QueueConsumer(stack, 'Counter', { consumerName: 'page-view-counter', entry: FIXTURE_HANDLER, alarmTopic, fifo: true, ...overrides });
    return { stack, consumer, template: () => Template.fromStack(stack) };
  }

  test('fifo: true makes the source queue and its DLQ FIFO queues, named with .fifo within 80 characters', () => {
    const template = fifoConsumer().template();
    const queues = Object.values(template.findResources('AWS::SQS::Queue')).map((queue) => queue.Properties as { QueueName: string; FifoQueue?: boolean });
    expect(queues).toHaveLength(2);
    for (const queue of queues) {
      expect(queue.FifoQueue).toBe(true);
      expect(queue.QueueName).toMatch(/\.fifo$/);
      expect(queue.QueueName.length).toBeLessThanOrEqual(80);
    }
    expect(queues.map((queue) => queue.QueueName).filter((name) => name.endsWith('-dlq.fifo'))).toHaveLength(1);
  });

  test('the redrive policy names the FIFO DLQ, and the mapping reports batch item failures', () => {
    const template = fifoConsumer().template();
    const dlq = logicalId(template, 'AWS::SQS::Queue', 'CounterDlq');
    template.hasResourceProperties('AWS::SQS::Queue', { FifoQueue: true, RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlq, 'Arn'] }, maxReceiveCount: 6 } });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { FunctionResponseTypes: ['ReportBatchItemFailures'], BatchSize: 10 });
  });

  test.each<[string, Partial<QueueConsumerProps>, string]>([
    ['more than 10 messages per batch', { batchSize: 11, maxBatchingWindow: Duration.seconds(1) }, 'batchSize must be 1..10 for a FIFO queue (given 11)'],
    ['a batching window', { maxBatchingWindow: Duration.seconds(1) }, 'maxBatchingWindow is not supported for a FIFO queue (given 1 second)'],
  ])('refuses %s, which Lambda does not take for a FIFO queue', (_label, overrides, message) => {
    expect(() => fifoConsumer(overrides)).toThrow(message);
  });

  test('subscribes only to a FIFO topic; a standard topic cannot deliver to a FIFO queue', () => {
    const { stack, consumer } = fifoConsumer();
    expect(() => consumer.subscribeTo(new Topic(stack, 'Standard'))).toThrow('Test/Standard is a standard topic and Test/Counter\'s queue a FIFO queue');
    consumer.subscribeTo(new Topic(stack, 'Ordered', { fifo: true, topicName: 'ordered.fifo' }), { rawMessageDelivery: true });
    Template.fromStack(stack).resourceCountIs('AWS::SNS::Subscription', 1);
  });

  test.each([
    ['the source queue', (consumer: QueueConsumer) => consumer.queue],
    ['the DLQ', (consumer: QueueConsumer) => consumer.deadLetterQueue],
  ])('%s made FIFO alone through an escape hatch fails the synth, naming both', (_label, queueOf) => {
    const { stack, alarmTopic } = testStack();
    const consumer = new QueueConsumer(stack, 'Counter', { consumerName: 'page-view-counter', entry: FIXTURE_HANDLER, alarmTopic });
    (queueOf(consumer).node.defaultChild as CfnQueue).fifoQueue = true;
    expect(() => Template.fromStack(stack)).toThrow(/Test\/Counter\/Queue is a (FIFO|standard) queue and its DLQ Test\/Counter\/Dlq (a FIFO|a standard) one: SQS needs both of one kind/);
  });

  test('standard queues synthesize', () => {
    expect(() => synthQueueConsumer()).not.toThrow();
  });
});
