/**
 * Jittered visibility timeouts for failed SQS messages. The SQS client is a fake whose `send`
 * records `ChangeMessageVisibilityBatch` commands: what is under test is which timeouts we ask
 * for and how we group and report them, not SQS.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { fromSqsRecord, type SourceRecord } from '../../../../lambdas/runtime/decoding/records';
import { ConfigurationError } from '../../../../lambdas/runtime/core/errors';
import { DEFAULT_VISIBILITY_BACKOFF, MAX_BACKOFF_VISIBILITY_SECONDS, queueUrlFromArn, VisibilityBackoff, type VisibilityBackoffOptions } from '../../../../lambdas/runtime/failures/visibility';
import { sqsRecord } from '../../../helpers/events';
import { asClient, awsError, FakeClient, seededRandom } from '../../../helpers/fakes';

const SQS_MAX_VISIBILITY_SECONDS = 43_200;

function backoff(options: VisibilityBackoffOptions, sqs = new FakeClient()): VisibilityBackoff {
  return new VisibilityBackoff(asClient<SQSClient>(sqs), options);
}

function failedMessages(count: number, options: { receiveCount?: number; queueArn?: string } = {}): SourceRecord[] {
  return Array.from({ length: count }, (_, n) => fromSqsRecord(sqsRecord('{}', { messageId: `m-${n}`, ...options })));
}

describe('VisibilityBackoff.timeoutFor', () => {
  test.each([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 20])('receive count %i stays within [0, min(cap, base * 2^(n-1))] whole seconds', (receiveCount) => {
    const { baseSeconds, capSeconds } = DEFAULT_VISIBILITY_BACKOFF;
    const ceiling = Math.min(capSeconds, baseSeconds * 2 ** (receiveCount - 1));
    const visibility = backoff({ random: seededRandom(receiveCount) });
    const timeouts = Array.from({ length: 5_000 }, () => visibility.timeoutFor(receiveCount));

    expect(timeouts.every((timeout) => Number.isInteger(timeout) && timeout >= 0 && timeout <= ceiling)).toBe(true);
    expect(Math.max(...timeouts)).toBe(ceiling);
    expect(Math.min(...timeouts)).toBeLessThanOrEqual(Math.max(1, Math.ceil(ceiling * 0.01)));
    const mean = timeouts.reduce((sum, timeout) => sum + timeout, 0) / timeouts.length;
    expect(Math.abs(mean - ceiling / 2)).toBeLessThan(0.05 * ceiling + 0.5);
  });

  test('the extremes of the draw give 0 and the ceiling', () => {
    expect(backoff({ random: () => 0 }).timeoutFor(4)).toBe(0);
    expect(backoff({ random: () => 0.999_999 }).timeoutFor(4)).toBe(16);
    expect(backoff({ baseSeconds: 5, capSeconds: 60, random: () => 0.999_999 }).timeoutFor(10)).toBe(60);
  });

  test('a receive count of 0 is treated like a first delivery', () => {
    expect(backoff({ random: () => 0.999_999 }).timeoutFor(0)).toBe(DEFAULT_VISIBILITY_BACKOFF.baseSeconds);
  });

  test(`at the largest cap it asks for at most ${MAX_BACKOFF_VISIBILITY_SECONDS} s: what SQS still grants a record held since its receive by a full batching window and a full run`, () => {
    expect(MAX_BACKOFF_VISIBILITY_SECONDS).toBe(SQS_MAX_VISIBILITY_SECONDS - 300 - 900);
    const visibility = backoff({ baseSeconds: 60, capSeconds: MAX_BACKOFF_VISIBILITY_SECONDS, random: seededRandom(7) });
    const timeouts = Array.from({ length: 5_000 }, (_, n) => visibility.timeoutFor(1 + (n % 40)));
    expect(timeouts.every((timeout) => timeout >= 0 && timeout <= MAX_BACKOFF_VISIBILITY_SECONDS)).toBe(true);
    expect(backoff({ baseSeconds: 60, capSeconds: MAX_BACKOFF_VISIBILITY_SECONDS, random: () => 0.999_999 }).timeoutFor(40)).toBe(MAX_BACKOFF_VISIBILITY_SECONDS);
  });

  test('a record that must stay invisible past the cap (a lock expiring later) is held no longer than the cap either', async () => {
    const sqs = new FakeClient(() => ({ Successful: [], Failed: [] }));
    const now = Date.parse('2026-12-01T00:00:00Z');
    const [record] = failedMessages(1);
    const { timeouts } = await backoff({ now: () => now }, sqs).apply([record as SourceRecord], new Map([['m-0', new Date(now + 20 * 3_600_000)]]));
    expect(timeouts.get('m-0')).toBe(MAX_BACKOFF_VISIBILITY_SECONDS);
  });

  test.each<[string, VisibilityBackoffOptions, RegExp]>([
    ['a cap above what SQS grants after a receive', { capSeconds: 43_200 }, /capSeconds must be from baseSeconds \(2\) to 42000 \(given 43200\): SQS refuses a visibility that ends more than 43200 s after the receive/],
    ['a cap below the base', { baseSeconds: 10, capSeconds: 5 }, /capSeconds must be from baseSeconds \(10\) to 42000 \(given 5\)/],
    ['a base of 0', { baseSeconds: 0 }, /baseSeconds must be a number of seconds above 0 \(given 0\)/],
    ['a base that is not a number', { baseSeconds: Number.NaN }, /baseSeconds must be a number of seconds above 0 \(given NaN\)/],
    ['an infinite cap', { capSeconds: Number.POSITIVE_INFINITY }, /capSeconds must be from baseSeconds \(2\) to 42000 \(given Infinity\)/],
  ])('refuses %s, naming the setting and its range', (_case, options, message) => {
    expect(() => backoff(options)).toThrow(ConfigurationError);
    expect(() => backoff(options)).toThrow(message);
  });

  test('stays finite for absurd receive counts', () => {
    expect(backoff({ random: () => 0.999_999 }).timeoutFor(10_000)).toBe(DEFAULT_VISIBILITY_BACKOFF.capSeconds);
  });
});

describe('VisibilityBackoff.apply', () => {
  test('changes visibility in groups of 10 with each message\'s receipt handle and its own timeout', async () => {
    const sqs = new FakeClient(() => ({ Successful: [], Failed: [] }));
    const records = failedMessages(23, { receiveCount: 3 });
    const { timeouts, failed } = await backoff({ random: seededRandom(1) }, sqs).apply(records);

    expect(failed).toEqual([]);
    const commands = sqs.commandsNamed('ChangeMessageVisibilityBatchCommand');
    expect(commands.map((command) => (command.input.Entries as unknown[]).length)).toEqual([10, 10, 3]);
    const entries = commands.flatMap((command) => command.input.Entries as { Id: string; ReceiptHandle: string; VisibilityTimeout: number }[]);
    entries.forEach((entry, n) => {
      expect(entry.ReceiptHandle).toBe(`handle-m-${n}`);
      expect(entry.VisibilityTimeout).toBe(timeouts.get(`m-${n}`));
      expect(entry.VisibilityTimeout).toBeLessThanOrEqual(8);
    });
    expect(commands.every((command) => new Set((command.input.Entries as { Id: string }[]).map((entry) => entry.Id)).size === (command.input.Entries as unknown[]).length)).toBe(true);
    expect(commands[0].input.QueueUrl).toBe('https://sqs.us-east-1.amazonaws.com/000000000000/page-views');
  });

  test('the configured queue URL wins over the one derived from the ARN (local emulators)', async () => {
    const sqs = new FakeClient(() => ({}));
    await backoff({ queueUrl: 'http://sqs.us-east-1.localhost:4566/000000000000/page-views' }, sqs).apply(failedMessages(1));
    expect(sqs.commands[0].input.QueueUrl).toBe('http://sqs.us-east-1.localhost:4566/000000000000/page-views');
  });

  test('messages without a receipt handle are skipped', async () => {
    const sqs = new FakeClient(() => ({}));
    const withoutHandle = { ...failedMessages(1)[0], receiptHandle: undefined };
    const { timeouts } = await backoff({}, sqs).apply([withoutHandle, ...failedMessages(1)]);
    expect(sqs.commands).toHaveLength(1);
    expect((sqs.commands[0].input.Entries as unknown[]).length).toBe(1);
    expect([...timeouts.keys()]).toEqual(['m-0']);
  });

  test('no records, no call', async () => {
    const sqs = new FakeClient();
    await backoff({}, sqs).apply([]);
    expect(sqs.commands).toEqual([]);
  });

  test('entries SQS reports as failed are returned by message id, not thrown', async () => {
    const sqs = new FakeClient(() => ({ Successful: [{ Id: '0' }], Failed: [{ Id: '1', Code: 'ReceiptHandleIsInvalid', SenderFault: true }, { Id: '2', Code: 'InternalError', SenderFault: false }] }));
    const { failed } = await backoff({}, sqs).apply(failedMessages(3));
    expect(failed).toEqual(['m-1', 'm-2']);
  });

  test('a call that throws fails its group only; the other groups are still changed', async () => {
    const sqs = new FakeClient((_command, call) => {
      if (call === 1) throw awsError('ServiceUnavailable', 503);
      return {};
    });
    const { failed } = await backoff({}, sqs).apply(failedMessages(12));
    expect(failed).toEqual(Array.from({ length: 10 }, (_, n) => `m-${n}`));
    expect(sqs.commands).toHaveLength(2);
  });

  test('a record whose source is not an SQS queue ARN is reported failed without a call', async () => {
    const sqs = new FakeClient();
    const { failed } = await backoff({}, sqs).apply(failedMessages(2, { queueArn: 'arn:aws:kinesis:us-east-1:000000000000:stream/orders' }));
    expect(failed).toEqual(['m-0', 'm-1']);
    expect(sqs.commands).toEqual([]);
  });
});

describe('queueUrlFromArn', () => {
  test.each([
    ['arn:aws:sqs:us-east-1:123456789012:page-views', 'https://sqs.us-east-1.amazonaws.com/123456789012/page-views'],
    ['arn:aws:sqs:eu-west-3:123456789012:orders.fifo', 'https://sqs.eu-west-3.amazonaws.com/123456789012/orders.fifo'],
    ['arn:aws-cn:sqs:cn-north-1:123456789012:page-views', 'https://sqs.cn-north-1.amazonaws.com.cn/123456789012/page-views'],
    ['arn:aws-us-gov:sqs:us-gov-west-1:123456789012:page-views', 'https://sqs.us-gov-west-1.amazonaws.com/123456789012/page-views'],
  ])('%s -> %s', (arn, url) => {
    expect(queueUrlFromArn(arn)).toBe(url);
  });

  test.each([
    ['an SNS topic ARN', 'arn:aws:sns:us-east-1:123456789012:alerts'],
    ['a Kinesis stream ARN', 'arn:aws:kinesis:us-east-1:123456789012:stream/orders'],
    ['an ARN without a queue name', 'arn:aws:sqs:us-east-1:123456789012'],
    ['an ARN without a region', 'arn:aws:sqs::123456789012:q'],
    ['a queue URL', 'https://sqs.us-east-1.amazonaws.com/123456789012/page-views'],
    ['an empty string', ''],
  ])('rejects %s with a TypeError that quotes it', (_label, arn) => {
    expect(() => queueUrlFromArn(arn)).toThrow(TypeError);
    expect(() => queueUrlFromArn(arn)).toThrow(`"${arn}"`);
  });
});
