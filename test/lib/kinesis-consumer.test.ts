import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Stream } from 'aws-cdk-lib/aws-kinesis';
import { KinesisConsumer, type KinesisConsumerProps } from '../../lib';
import { FIXTURE_HANDLER, logicalId, testStack } from './support';
import { heldMessagesAlarm } from '../helpers/alarms';

/** Builds a KinesisConsumer with `overrides` and returns its template. */
function synth(overrides: Partial<KinesisConsumerProps> = {}): Template {
  const { stack, alarmTopic } = testStack();
  new KinesisConsumer(stack, 'Projection', {
    consumerName: 'order-projection',
    entry: FIXTURE_HANDLER,
    alarmTopic,
    ...overrides,
  });
  return Template.fromStack(stack);
}

describe('KinesisConsumer', () => {
  describe('with defaults', () => {
    const template = synth();
    const streamId = logicalId(template, 'AWS::Kinesis::Stream');
    const dlqId = logicalId(template, 'AWS::SQS::Queue');
    const functionId = logicalId(template, 'AWS::Lambda::Function');

    test('creates a stream, a DLQ, one function, one mapping and seven alarms', () => {
      template.resourceCountIs('AWS::Kinesis::Stream', 1);
      template.resourceCountIs('AWS::SQS::Queue', 1);
      template.resourceCountIs('AWS::Lambda::Function', 1);
      template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
      // The DLQ's, the iterator age's, and the consumer's own five (errors, throttles, conflicting duplicates, failed invocations, dropped events).
      template.resourceCountIs('AWS::CloudWatch::Alarm', 7);
    });

    test('the stream is encrypted with aws/kinesis and keeps records 24 hours', () => {
      template.hasResourceProperties('AWS::Kinesis::Stream', {
        RetentionPeriodHours: 24,
        StreamEncryption: { EncryptionType: 'KMS', KeyId: 'alias/aws/kinesis' },
      });
    });

    test('the mapping bisects, retries a bounded number of times, and gives up to the DLQ', () => {
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        EventSourceArn: { 'Fn::GetAtt': [streamId, 'Arn'] },
        StartingPosition: 'TRIM_HORIZON',
        BatchSize: 100,
        BisectBatchOnFunctionError: true,
        MaximumRetryAttempts: 3,
        MaximumRecordAgeInSeconds: 3600,
        DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [dlqId, 'Arn'] } } },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    });

    test('the DLQ keeps messages 14 days, encrypted, and declares itself a DLQ (allow-all, which Control Tower\'s CT.SQS.PR.1 requires of a queue without one)', () => {
      template.hasResourceProperties('AWS::SQS::Queue', {
        MessageRetentionPeriod: 14 * 24 * 3600,
        SqsManagedSseEnabled: true,
        RedriveAllowPolicy: { redrivePermission: 'allowAll' },
      });
    });

    test('the function sends its own failures to the same DLQ, and keeps dedup records 17 days', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: {
          Variables: Match.objectLike({
            CONSUMER_NAME: 'order-projection',
            DLQ_URL: { Ref: dlqId },
            DEDUP_TTL_SECONDS: String((1 + 14 + 1 + 1) * 24 * 3600),
            POWERTOOLS_METRICS_NAMESPACE: 'EffectivelyOnce',
          }),
        },
      });
    });

    test('the function has no SQS-only settings', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: {
          Variables: Match.objectLike({ MAX_ATTEMPTS: Match.absent(), SOURCE_QUEUE_URL: Match.absent() }),
        },
      });
    });

    test('alarms on the DLQ depth and on the iterator age', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', heldMessagesAlarm({ 'Fn::GetAtt': [dlqId, 'QueueName'] }));
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: 'IteratorAge',
        Statistic: 'Maximum',
        Threshold: 60_000,
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId } }],
      });
    });
  });

  test('consumes a given stream, and derives the dedup TTL from its stated retention', () => {
    const { stack, alarmTopic } = testStack();
    const stream = new Stream(stack, 'Orders', { retentionPeriod: Duration.days(3) });
    new KinesisConsumer(stack, 'Projection', {
      consumerName: 'order-projection',
      entry: FIXTURE_HANDLER,
      alarmTopic,
      stream,
      retentionPeriod: Duration.days(3),
    });
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::Kinesis::Stream', 1);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [logicalId(template, 'AWS::Kinesis::Stream', 'Orders'), 'Arn'] },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ DEDUP_TTL_SECONDS: String((3 + 14 + 1 + 3) * 24 * 3600) }) },
    });
  });

  test('states how far back it can be replayed: the stream\'s retention, which its dedup TTL outlasts', () => {
    const { stack, alarmTopic } = testStack();
    const byDefault = new KinesisConsumer(stack, 'Default', { consumerName: 'orders-a', entry: FIXTURE_HANDLER, alarmTopic });
    const week = new KinesisConsumer(stack, 'Week', { consumerName: 'orders-b', entry: FIXTURE_HANDLER, alarmTopic, retentionPeriod: Duration.days(7) });
    expect(byDefault.replayableFor.toHours()).toBe(24);
    expect(week.replayableFor.toDays()).toBe(7);
    const template = Template.fromStack(stack);
    const ttls = Object.values(template.findResources('AWS::Lambda::Function')).map((fn) => Number((fn as { Properties: { Environment: { Variables: Record<string, string> } } }).Properties.Environment.Variables.DEDUP_TTL_SECONDS));
    expect(Math.min(...ttls)).toBeGreaterThan(week.replayableFor.toSeconds());
    expect(() => new KinesisConsumer(stack, 'Short', { consumerName: 'orders-c', entry: FIXTURE_HANDLER, alarmTopic, retentionPeriod: Duration.days(7), dedupTtl: Duration.days(3) })).toThrow(/dedupTtl/);
  });

  test('a rebuilt generation beside the live one: the same stream, its generation in its environment and service name, its mapping off', () => {
    const { stack, alarmTopic } = testStack();
    const live = new KinesisConsumer(stack, 'Live', { consumerName: 'order-projection', entry: FIXTURE_HANDLER, alarmTopic });
    const rebuild = new KinesisConsumer(stack, 'Rebuild', {
      consumerName: 'order-projection',
      generation: 2,
      mappingEnabled: false,
      stream: live.stream,
      retentionPeriod: live.replayableFor,
      entry: FIXTURE_HANDLER,
      alarmTopic,
    });
    expect([live.generation, rebuild.generation]).toEqual([1, 2]);
    expect([live.serviceName, rebuild.serviceName]).toEqual(['order-projection', 'order-projection@g2']);
    const template = Template.fromStack(stack);
    const variables = Object.values(template.findResources('AWS::Lambda::Function')).map((fn) => (fn as { Properties: { Environment: { Variables: Record<string, string> } } }).Properties.Environment.Variables);
    // Generation 1 sets no CONSUMER_GENERATION: a consumer that never had another keeps its template.
    expect(variables.map((env) => [env.CONSUMER_NAME, env.CONSUMER_GENERATION, env.POWERTOOLS_SERVICE_NAME])).toEqual([
      ['order-projection', undefined, 'order-projection'],
      ['order-projection', '2', 'order-projection@g2'],
    ]);
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')).map((mapping) => (mapping as { Properties: Record<string, unknown> }).Properties);
    expect(mappings.map((mapping) => mapping.Enabled)).toEqual([undefined, false]);
    template.resourceCountIs('AWS::Kinesis::Stream', 1);
  });

  test.each([0, 1.5, 1000])('refuses generation %p', (generation) => {
    expect(() => synth({ generation })).toThrow(/generation must be .*1.*999/);
  });

  test('passes the tuning props to the mapping and the alarm', () => {
    const template = synth({
      batchSize: 500,
      maxBatchingWindow: Duration.seconds(2),
      retryAttempts: 1,
      maxRecordAge: Duration.minutes(5),
      parallelizationFactor: 4,
      iteratorAgeThreshold: Duration.minutes(5),
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 500,
      MaximumBatchingWindowInSeconds: 2,
      MaximumRetryAttempts: 1,
      MaximumRecordAgeInSeconds: 300,
      ParallelizationFactor: 4,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'IteratorAge', Threshold: 300_000 });
  });

  describe('fails if', () => {
    test('a stream is given without its retention', () => {
      const { stack, alarmTopic } = testStack();
      const stream = new Stream(stack, 'Orders');
      const props = { consumerName: 'order-projection', entry: FIXTURE_HANDLER, alarmTopic, stream };
      expect(() => new KinesisConsumer(stack, 'Projection', props)).toThrow(
        'retentionPeriod must be given with stream (given stream Test/Orders alone)',
      );
    });

    test.each<[string, Partial<KinesisConsumerProps>, string]>([
      ['retryAttempts is -1 (forever)', { retryAttempts: -1 }, 'retryAttempts must be 0..10000 (given -1)'],
      ['retryAttempts is 10001', { retryAttempts: 10_001 }, 'retryAttempts must be 0..10000 (given 10001)'],
      [
        'retryAttempts is 0 (an idempotency lock left by a failed invocation could not be waited out)',
        { retryAttempts: 0 },
        'retryAttempts must be 1..10000 to wait out an idempotency lock that a failed invocation leaves for up to one timeout (given 0)',
      ],
      [
        'maxRecordAge is under 3 x timeout',
        { timeout: Duration.seconds(30), maxRecordAge: Duration.seconds(89) },
        'maxRecordAge must be at least 3 x timeout = 1 minute 30 seconds to wait out an idempotency lock that a failed invocation leaves for up to one timeout (given 1 minute 29 seconds; timeout 30 seconds)',
      ],
      [
        'maxRecordAge is 59 s',
        { maxRecordAge: Duration.seconds(59) },
        'maxRecordAge must be 1 minute..7 days (given 59 seconds)',
      ],
      [
        'maxRecordAge is 7 days and 1 s',
        { maxRecordAge: Duration.days(7).plus(Duration.seconds(1)) },
        'maxRecordAge must be 1 minute..7 days (given 7 days 1 second)',
      ],
      ['batchSize is 0', { batchSize: 0 }, 'batchSize must be 1..10000 (given 0)'],
      ['batchSize is 10001', { batchSize: 10_001 }, 'batchSize must be 1..10000 (given 10001)'],
      ['parallelizationFactor is 0', { parallelizationFactor: 0 }, 'parallelizationFactor must be 1..10 (given 0)'],
      ['parallelizationFactor is 11', { parallelizationFactor: 11 }, 'parallelizationFactor must be 1..10 (given 11)'],
      [
        'retentionPeriod is 23 hours',
        { retentionPeriod: Duration.hours(23) },
        'retentionPeriod must be 1 day..365 days (given 23 hours)',
      ],
      [
        'retentionPeriod is 366 days',
        { retentionPeriod: Duration.days(366) },
        'retentionPeriod must be 1 day..365 days (given 366 days)',
      ],
      [
        'iteratorAgeThreshold is 0',
        { iteratorAgeThreshold: Duration.seconds(0) },
        'iteratorAgeThreshold must be 1 second..7 days (given 0 seconds)',
      ],
      [
        'dedupTtl is one second under the window',
        { dedupTtl: Duration.days(17).minus(Duration.seconds(1)) },
        'dedupTtl must be at least source retention (1 day) + DLQ retention (14 days) + redriveAllowance (1 day) ' +
          '+ the redriven copy\'s source retention (1 day) = 17 days (given 16 days 23 hours 59 minutes 59 seconds)',
      ],
      [
        'dedupTtl ignores a longer stream retention',
        { retentionPeriod: Duration.days(7), dedupTtl: Duration.days(17) },
        'source retention (7 days) + DLQ retention (14 days) + redriveAllowance (1 day) + the redriven copy\'s source retention (7 days) = 29 days (given 17 days)',
      ],
    ])('%s', (_, props, message) => {
      expect(() => synth(props)).toThrow(message);
    });
  });

  describe('accepts the boundaries', () => {
    test.each<[string, Partial<KinesisConsumerProps>]>([
      ['retryAttempts 1', { retryAttempts: 1 }],
      ['retryAttempts 10000', { retryAttempts: 10_000 }],
      ['maxRecordAge 1 minute with a 20 s timeout', { maxRecordAge: Duration.minutes(1), timeout: Duration.seconds(20) }],
      ['maxRecordAge exactly 3 x the default timeout', { maxRecordAge: Duration.seconds(90) }],
      ['maxRecordAge 7 days', { maxRecordAge: Duration.days(7) }],
      ['batchSize 1', { batchSize: 1 }],
      ['batchSize 10000', { batchSize: 10_000 }],
      ['retention 365 days', { retentionPeriod: Duration.days(365), dedupTtl: Duration.days(365 + 14 + 1 + 365) }],
      ['dedup TTL exactly the window', { dedupTtl: Duration.days(17) }],
    ])('%s', (_, props) => {
      expect(() => synth(props)).not.toThrow();
    });
  });
});
