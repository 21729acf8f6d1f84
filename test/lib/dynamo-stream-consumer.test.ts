import { Duration, type Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { DynamoStreamConsumer, type DynamoStreamConsumerProps } from '../../lib';
import { FIXTURE_HANDLER, logicalId, testStack } from './support';

function ordersTable(stack: Stack, stream?: StreamViewType): Table {
  return new Table(stack, 'Orders', { partitionKey: { name: 'pk', type: AttributeType.STRING }, stream });
}

/** Builds a DynamoStreamConsumer on a streamed table with `overrides` and returns its template. */
function synth(overrides: Partial<DynamoStreamConsumerProps> = {}): Template {
  const { stack, alarmTopic } = testStack();
  new DynamoStreamConsumer(stack, 'Notifier', {
    consumerName: 'shipment-notifier',
    entry: FIXTURE_HANDLER,
    alarmTopic,
    table: ordersTable(stack, StreamViewType.NEW_AND_OLD_IMAGES),
    ...overrides,
  });
  return Template.fromStack(stack);
}

test('states how far back it can be replayed: the table stream\'s 24 hours', () => {
  const { stack, alarmTopic } = testStack();
  const consumer = new DynamoStreamConsumer(stack, 'Notifier', { consumerName: 'shipment-notifier', entry: FIXTURE_HANDLER, alarmTopic, table: ordersTable(stack, StreamViewType.NEW_AND_OLD_IMAGES) });
  expect(consumer.replayableFor.toHours()).toBe(24);
});

describe('DynamoStreamConsumer', () => {
  describe('with defaults', () => {
    const template = synth();
    const tableId = logicalId(template, 'AWS::DynamoDB::Table');
    const dlqId = logicalId(template, 'AWS::SQS::Queue');
    const functionId = logicalId(template, 'AWS::Lambda::Function');

    test('creates a DLQ, one function, one mapping and seven alarms', () => {
      template.resourceCountIs('AWS::SQS::Queue', 1);
      template.resourceCountIs('AWS::Lambda::Function', 1);
      template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
      // The DLQ's, the iterator age's, and the consumer's own five (errors, throttles, conflicting duplicates, failed invocations, dropped events).
      template.resourceCountIs('AWS::CloudWatch::Alarm', 7);
    });

    test('the mapping reads the table stream with bisect, bounded retries and the DLQ on failure', () => {
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        EventSourceArn: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
        StartingPosition: 'TRIM_HORIZON',
        BisectBatchOnFunctionError: true,
        MaximumRetryAttempts: 3,
        MaximumRecordAgeInSeconds: 3600,
        DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [dlqId, 'Arn'] } } },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    });

    test('dedup records outlive the 24-hour stream, the DLQ, a redrive and the redriven record\'s 24 hours: 17 days', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: {
          Variables: Match.objectLike({
            CONSUMER_NAME: 'shipment-notifier',
            DLQ_URL: { Ref: dlqId },
            DEDUP_TTL_SECONDS: String(17 * 24 * 3600),
          }),
        },
      });
    });

    test('the only statement on all resources is dynamodb:ListStreams, which allows no narrower one', () => {
      const [policy] = Object.values(template.findResources('AWS::IAM::Policy'));
      const wildcard = policy.Properties.PolicyDocument.Statement.filter(
        (statement: { Resource: unknown }) => statement.Resource === '*',
      );
      expect(wildcard).toEqual([expect.objectContaining({ Action: 'dynamodb:ListStreams' })]);
    });

    test('alarms on the iterator age of its function', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'IteratorAge',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId } }],
        AlarmActions: [Match.anyValue()],
        OKActions: [Match.anyValue()],
      });
    });
  });

  describe('fails if', () => {
    test('the table has no stream', () => {
      const { stack, alarmTopic } = testStack();
      const table = ordersTable(stack);
      expect(
        () =>
          new DynamoStreamConsumer(stack, 'Notifier', {
            consumerName: 'shipment-notifier',
            entry: FIXTURE_HANDLER,
            alarmTopic,
            table,
          }),
      ).toThrow('table must have a stream (given Test/Orders, which has none)');
    });

    test.each<[string, Partial<DynamoStreamConsumerProps>, string]>([
      ['retryAttempts is -1 (forever)', { retryAttempts: -1 }, 'retryAttempts must be 0..10000 (given -1)'],
      ['retryAttempts is 0', { retryAttempts: 0 }, 'retryAttempts must be 1..10000 to wait out an idempotency lock'],
      [
        'maxRecordAge is under 3 x a 10 minute timeout',
        { timeout: Duration.minutes(10), maxRecordAge: Duration.minutes(29) },
        'maxRecordAge must be at least 3 x timeout = 30 minutes',
      ],
      [
        'maxRecordAge is 59 s',
        { maxRecordAge: Duration.seconds(59) },
        'maxRecordAge must be 1 minute..7 days (given 59 seconds)',
      ],
      ['consumerName has capitals', { consumerName: 'Shipments' }, 'consumerName must match'],
      [
        'dedupTtl is one second under the window',
        { dedupTtl: Duration.days(17).minus(Duration.seconds(1)) },
        'dedupTtl must be at least source retention (1 day) + DLQ retention (14 days) + redriveAllowance (1 day) ' +
          '+ the redriven copy\'s source retention (1 day) = 17 days (given 16 days 23 hours 59 minutes 59 seconds)',
      ],
      [
        'dedupTtl is under a window with a longer redrive allowance',
        { dedupTtl: Duration.days(17), redriveAllowance: Duration.days(3) },
        '+ redriveAllowance (3 days) + the redriven copy\'s source retention (1 day) = 19 days (given 17 days)',
      ],
    ])('%s', (_, props, message) => {
      expect(() => synth(props)).toThrow(message);
    });
  });

  test.each<[string, Partial<DynamoStreamConsumerProps>]>([
    ['dedup TTL exactly the window', { dedupTtl: Duration.days(17) }],
    ['retryAttempts 1', { retryAttempts: 1 }],
    ['maxRecordAge exactly 3 x a 10 minute timeout', { timeout: Duration.minutes(10), maxRecordAge: Duration.minutes(30) }],
    ['maxRecordAge 7 days', { maxRecordAge: Duration.days(7) }],
  ])('accepts %s', (_, props) => {
    expect(() => synth(props)).not.toThrow();
  });
});
