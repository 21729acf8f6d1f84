import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { CfnQueue } from 'aws-cdk-lib/aws-sqs';
import { DEFAULT_TABLE_ACTIONS, QueueConsumer } from '../../lib';
import { FIXTURE_HANDLER, grantedActions, logicalId, synthQueueConsumer, testStack } from './support';

describe('QueueConsumer', () => {
  describe('with defaults', () => {
    const template = synthQueueConsumer();
    const queueId = logicalId(template, 'AWS::SQS::Queue', 'CounterQueue');
    const dlqId = logicalId(template, 'AWS::SQS::Queue', 'CounterDlq');

    test('creates the source queue, its DLQ, one function, one mapping and one alarm', () => {
      template.resourceCountIs('AWS::SQS::Queue', 2);
      template.resourceCountIs('AWS::Lambda::Function', 1);
      template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
      template.resourceCountIs('AWS::CloudWatch::Alarm', 1);
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

    test('the function is told its name, DLQ, attempts, source queue and dedup TTL', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: {
          Variables: {
            CONSUMER_NAME: 'page-view-counter',
            DLQ_URL: { Ref: dlqId },
            MAX_ATTEMPTS: '5',
            SOURCE_QUEUE_URL: { Ref: queueId },
            DEDUP_TTL_SECONDS: String((4 + 14 + 1) * 24 * 3600),
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
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }],
      });
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
        Variables: Match.objectLike({ MAX_ATTEMPTS: '9', DEDUP_TTL_SECONDS: String((7 + 14 + 1) * 24 * 3600) }),
      },
    });
  });
});

describe('FIFO queues are refused at synth time until the runtime keeps their order per message group', () => {
  test.each([
    ['the source queue', (consumer: QueueConsumer) => consumer.queue],
    ['the DLQ', (consumer: QueueConsumer) => consumer.deadLetterQueue],
  ])('%s made FIFO through an escape hatch fails the synth, naming the queue', (_label, queueOf) => {
    const { stack, alarmTopic } = testStack();
    const consumer = new QueueConsumer(stack, 'Counter', { consumerName: 'page-view-counter', entry: FIXTURE_HANDLER, alarmTopic });
    (queueOf(consumer).node.defaultChild as CfnQueue).fifoQueue = true;
    expect(() => Template.fromStack(stack)).toThrow(/Test\/Counter\/(Queue|Dlq\/Queue|Dlq).* is a FIFO queue: QueueConsumer does not support FIFO queues yet/);
  });

  test('standard queues synthesize', () => {
    expect(() => synthQueueConsumer()).not.toThrow();
  });
});
