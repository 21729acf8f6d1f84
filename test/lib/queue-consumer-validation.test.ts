/**
 * QueueConsumer's validation: every prop out of its range fails the synth with an error that names
 * the value and the range, and every boundary value synthesizes.
 */
import { Duration, Lazy } from 'aws-cdk-lib';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { QueueConsumer, type QueueConsumerProps } from '../../lib';
import { FIXTURE_HANDLER, synthQueueConsumer, testStack } from './support';

describe('QueueConsumer', () => {
  describe('fails if', () => {
    const seconds = Duration.seconds;
    test.each<[string, Partial<QueueConsumerProps>, string]>([
      ['batchSize is 0', { batchSize: 0 }, 'batchSize must be 1..10000 (given 0)'],
      [
        'batchSize is 10001',
        { batchSize: 10_001, maxBatchingWindow: seconds(1) },
        'batchSize must be 1..10000 (given 10001)',
      ],
      [
        'batchSize is 11 without a window',
        { batchSize: 11 },
        'batchSize must be 1..10 without a maxBatchingWindow (given 11)',
      ],
      ['batchSize is not an integer', { batchSize: 1.5 }, 'batchSize must be 1..10000 (given 1.5)'],
      [
        'maxBatchingWindow is 301 s',
        { maxBatchingWindow: seconds(301) },
        'maxBatchingWindow must be 0 seconds..5 minutes (given 5 minutes 1 second)',
      ],
      ['maxReceiveCount is 4', { maxReceiveCount: 4 }, 'maxReceiveCount must be 5..1000 (given 4)'],
      ['maxReceiveCount is 1001', { maxReceiveCount: 1001 }, 'maxReceiveCount must be 5..1000 (given 1001)'],
      [
        'maxAttempts reaches the default maxReceiveCount',
        { maxAttempts: 6 },
        'maxAttempts must be 1..5 to stay below maxReceiveCount 6 (given 6)',
      ],
      [
        'maxAttempts reaches a given maxReceiveCount',
        { maxReceiveCount: 8, maxAttempts: 8 },
        'maxAttempts must be 1..7 to stay below maxReceiveCount 8 (given 8)',
      ],
      ['maxAttempts is 0', { maxAttempts: 0 }, 'maxAttempts must be 1..5 to stay below maxReceiveCount 6 (given 0)'],
      [
        'retentionPeriod is 59 s',
        { retentionPeriod: seconds(59) },
        'retentionPeriod must be 1 minute..14 days (given 59 seconds)',
      ],
      [
        'retentionPeriod is 15 days',
        { retentionPeriod: Duration.days(15) },
        'retentionPeriod must be 1 minute..14 days (given 15 days)',
      ],
      ['timeout is 0 s', { timeout: seconds(0) }, 'timeout must be 1 second..15 minutes (given 0 seconds)'],
      [
        'timeout is 16 minutes',
        { timeout: Duration.minutes(16) },
        'timeout must be 1 second..15 minutes (given 16 minutes)',
      ],
      ['memorySize is 127', { memorySize: 127 }, 'memorySize must be 128..10240 (given 127)'],
      ['memorySize is 10241', { memorySize: 10_241 }, 'memorySize must be 128..10240 (given 10241)'],
    ])('%s', (_, props, message) => {
      expect(() => synthQueueConsumer(props)).toThrow(message);
    });

    test.each<[string, Partial<QueueConsumerProps>, string]>([
      [
        'one second under 6 x the default timeout',
        { visibilityTimeout: seconds(179) },
        '= 3 minutes (given 2 minutes 59 seconds; timeout 30 seconds, maxBatchingWindow 0 seconds)',
      ],
      [
        'one second under 6 x timeout + window',
        { visibilityTimeout: seconds(64), timeout: seconds(10), maxBatchingWindow: seconds(5) },
        '= 1 minute 5 seconds (given 1 minute 4 seconds; timeout 10 seconds, maxBatchingWindow 5 seconds)',
      ],
    ])('the visibility timeout is %s', (_, props, detail) => {
      expect(() => synthQueueConsumer(props)).toThrow('visibilityTimeout must be at least 6 x timeout + maxBatchingWindow');
      expect(() => synthQueueConsumer(props)).toThrow(detail);
    });

    const justUnder = (days: number) => Duration.days(days).minus(seconds(1));
    test.each<[string, Partial<QueueConsumerProps>, string]>([
      [
        'the default window by one second',
        { dedupTtl: justUnder(23) },
        'source retention (4 days) + DLQ retention (14 days) + redriveAllowance (1 day) ' +
          '+ the redriven copy\'s source retention (4 days) = 23 days (given 22 days 23 hours 59 minutes 59 seconds)',
      ],
      [
        'a window with a shorter retention by one second',
        { dedupTtl: justUnder(17), retentionPeriod: Duration.days(1) },
        'source retention (1 day) + DLQ retention (14 days) + redriveAllowance (1 day) + the redriven copy\'s source retention (1 day) = 17 days',
      ],
      [
        'a window with a longer redrive allowance by one second',
        { dedupTtl: justUnder(24), redriveAllowance: Duration.days(2) },
        '+ redriveAllowance (2 days) + the redriven copy\'s source retention (4 days) = 24 days',
      ],
      [
        'the window without the redriven copy\'s own retention (the old default)',
        { dedupTtl: Duration.days(19) },
        '= 23 days (given 19 days)',
      ],
    ])('the dedup TTL falls short of %s', (_, props, detail) => {
      expect(() => synthQueueConsumer(props)).toThrow('dedupTtl must be at least source retention');
      expect(() => synthQueueConsumer(props)).toThrow(detail);
    });

    test.each(['a', 'Page-views', '1counter', 'page_views', `p${'a'.repeat(63)}`, '-counter'])(
      'consumerName is %p',
      (consumerName) => {
        const message = `consumerName must match /^[a-z][a-z0-9-]{1,62}$/ (given "${consumerName}")`;
        expect(() => synthQueueConsumer({ consumerName })).toThrow(message);
      },
    );

    test.each(['CONSUMER_NAME', 'DLQ_URL', 'MAX_ATTEMPTS', 'MAX_RECEIVE_COUNT', 'SOURCE_QUEUE_URL', 'DEDUP_TTL_SECONDS', 'NODE_OPTIONS'])(
      'environment sets %s, which the construct owns',
      (name) => {
        const message = `environment must not set ${name}: the construct sets it`;
        expect(() => synthQueueConsumer({ environment: { [name]: 'x' } })).toThrow(message);
      },
    );

    test('a table maps to a variable the construct owns, or one the environment also sets', () => {
      const { stack, alarmTopic } = testStack();
      const table = new Table(stack, 'T', { partitionKey: { name: 'pk', type: AttributeType.STRING } });
      const base = { consumerName: 'counter', entry: FIXTURE_HANDLER, alarmTopic };
      expect(() => new QueueConsumer(stack, 'A', { ...base, tables: { DLQ_URL: table } })).toThrow(
        'tables must not use DLQ_URL: the construct sets it',
      );
      const both = { ...base, tables: { TABLE: table }, environment: { TABLE: 'x' } };
      expect(() => new QueueConsumer(stack, 'B', both)).toThrow(
        'environment must not set TABLE: tables sets it',
      );
      expect(() => new QueueConsumer(stack, 'C', { ...base, tables: { 'not-a-name': table } })).toThrow(
        'tables key must match',
      );
    });
  });

  describe('accepts the boundaries', () => {
    test.each<[string, Partial<QueueConsumerProps>]>([
      ['batchSize 1', { batchSize: 1 }],
      ['batchSize 10 without a window', { batchSize: 10 }],
      ['batchSize 10000 with a window', { batchSize: 10_000, maxBatchingWindow: Duration.seconds(1) }],
      ['a 5-minute window', { maxBatchingWindow: Duration.minutes(5), visibilityTimeout: Duration.minutes(8) }],
      ['maxReceiveCount 5', { maxReceiveCount: 5 }],
      ['maxReceiveCount 1000', { maxReceiveCount: 1000 }],
      ['maxAttempts 1', { maxAttempts: 1 }],
      ['maxAttempts one below maxReceiveCount', { maxAttempts: 5 }],
      ['retention 1 minute', { retentionPeriod: Duration.minutes(1) }],
      ['retention 14 days', { retentionPeriod: Duration.days(14), dedupTtl: Duration.days(14 + 14 + 1 + 14) }],
      ['visibility timeout exactly 6 x timeout', { visibilityTimeout: Duration.seconds(180) }],
      ['dedup TTL exactly the window', { dedupTtl: Duration.days(23) }],
      ['a 2-character consumer name', { consumerName: 'ab' }],
      ['a 63-character consumer name', { consumerName: `p${'a'.repeat(62)}` }],
    ])('%s', (_, props) => {
      expect(() => synthQueueConsumer(props)).not.toThrow();
    });

    test('skips values that are unresolved tokens', () => {
      // Values the checks would refuse, hidden in tokens that CloudFormation accepts.
      const token = (value: number) => Lazy.number({ produce: () => value });
      expect(() => synthQueueConsumer({ batchSize: token(11), maxReceiveCount: token(2), maxAttempts: 5 })).not.toThrow();
    });

    test('asks for maxAttempts when maxReceiveCount is a token', () => {
      const maxReceiveCount = Lazy.number({ produce: () => 6 });
      expect(() => synthQueueConsumer({ maxReceiveCount })).toThrow('maxAttempts must be given when maxReceiveCount is a token');
    });
  });
});
