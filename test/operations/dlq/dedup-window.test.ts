/**
 * The redrive's dedup window arithmetic (dedup-window.ts), on a topology alone: stream sources
 * need no client (their retention is the topology's), and a queue's retention comes from a fake
 * SQS that answers GetQueueAttributes, since only what the check does with the answer is under test.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DedupWindows } from '../../../operations/dlq/dedup-window';
import type { CopyTime } from '../../../operations/dlq/copy-time';
import type { ConsumerWindow, DlqClients, StackTopology } from '../../../operations/dlq';
import { asClient, FakeClient } from '../../helpers/fakes';

const DAY_S = 86_400;
const DAY_MS = DAY_S * 1000;
const NOW = Date.parse('2026-12-20T12:00:00.000Z');
const STREAM_ARN = 'arn:aws:kinesis:us-east-1:000000000000:stream/orders';
const TABLE_STREAM_ARN = 'arn:aws:dynamodb:us-east-1:000000000000:table/orders/stream/2026-12-01T00:00:00.000';
const QUEUE_ARN = 'arn:aws:sqs:us-east-1:000000000000:page-views';
const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/page-views';

function windowsOf(consumerWindows: readonly ConsumerWindow[], sqs = new FakeClient()): DedupWindows {
  const topology: StackTopology = {
    stackName: 'Test',
    region: 'us-east-1',
    outputs: {},
    deadLetterQueues: [],
    queues: [{ name: 'page-views', url: QUEUE_URL, arn: QUEUE_ARN }],
    streams: [{ name: 'orders', arn: STREAM_ARN, retentionHours: 24 }],
    tables: [],
    consumerWindows,
    consumerFunctions: [],
  };
  return new DedupWindows({ clients: { sqs: asClient<SQSClient>(sqs) } as DlqClients, topology, now: () => new Date(NOW) });
}

const window = (consumer: string, sourceArn: string, days: number): ConsumerWindow => ({ consumer, sourceArn, dedupTtlSeconds: days * DAY_S });
const sentDaysAgo = (days: number): CopyTime => ({ at: NOW - days * DAY_MS, basis: 'the event\'s first copy was sent', countBack: false });

describe('a copy may be republished while now + the source\'s retention <= first sent + the dedup TTL', () => {
  test.each<[string, number, boolean]>([
    ['16 days after it was sent, against a 17-day window and a 24-hour stream: done at day 17 exactly', 16, true],
    ['one second later: the copy could outlive the record by a second', 16 + 1 / DAY_S, false],
  ])('%s', async (_, days, within) => {
    const check = await windowsOf([window('order-projection', STREAM_ARN, 17)]).check(STREAM_ARN, sentDaysAgo(days));
    expect(check.problem === undefined).toBe(within);
  });

  test('the shortest window among the source\'s consumers decides: each of them gets the copy', async () => {
    const windows = windowsOf([window('order-projection', STREAM_ARN, 30), window('order-audit', STREAM_ARN, 10), window('page-view-counter', QUEUE_ARN, 2)]);
    expect((await windows.check(STREAM_ARN, sentDaysAgo(9.5))).problem).toMatch(/^a redriven copy could be processed until 2026-12-21T12:00:00Z \(the source keeps it 1 d\), after order-audit's dedup record of an earlier copy may have expired at 2026-12-21T00:00:00Z/);
    expect((await windows.check(STREAM_ARN, sentDaysAgo(9))).problem).toBeUndefined();
  });

  test('a failure time is counted back by the retention: the copy may have entered the source that much earlier', async () => {
    const check = await windowsOf([window('shipment-notifier', TABLE_STREAM_ARN, 17)]).check(TABLE_STREAM_ARN, { at: NOW - 15.5 * DAY_MS, basis: 'it first failed', countBack: true });
    expect(check.firstSentAt).toBe(NOW - 16.5 * DAY_MS);
    expect(check.problem).toMatch(/\(17 d after 2026-12-05T00:00:00Z, when it first failed, less the source's 1 d retention\): it could be applied twice$/);
  });

  test('an unknown first time is held back: the copy might outlive any record', async () => {
    const check = await windowsOf([window('order-projection', STREAM_ARN, 17)]).check(STREAM_ARN, { at: Number.NaN, basis: 'its first record arrived', countBack: false });
    expect(check.problem).toMatch(/not known/);
  });

  test('a source no consumer declares a window for is let through and listed once', async () => {
    const windows = windowsOf([window('page-view-counter', QUEUE_ARN, 23)]);
    expect((await windows.check(STREAM_ARN, sentDaysAgo(400))).problem).toBeUndefined();
    await windows.check(STREAM_ARN, sentDaysAgo(1));
    expect(windows.unchecked()).toEqual([STREAM_ARN]);
  });
});

describe('a queue\'s limits come from the queue, asked once per run', () => {
  test('its MessageRetentionPeriod sets how long the copy lives, its MaximumMessageSize what it may carry', async () => {
    const sqs = new FakeClient(() => ({ Attributes: { MessageRetentionPeriod: String(4 * DAY_S), MaximumMessageSize: '262144' } }));
    const windows = windowsOf([window('page-view-counter', QUEUE_ARN, 23)], sqs);
    const check = await windows.check(QUEUE_ARN, sentDaysAgo(19));
    await windows.check(QUEUE_ARN, sentDaysAgo(20));
    expect(check).toEqual({ firstSentAt: NOW - 19 * DAY_MS, limits: { retentionMs: 4 * DAY_MS, maxMessageBytes: 262_144 } });
    expect((await windows.check(QUEUE_ARN, sentDaysAgo(19.5))).problem).toMatch(/the source keeps it 4 d/);
    expect(sqs.commandsNamed('GetQueueAttributesCommand').map((command) => command.input)).toEqual([{ QueueUrl: QUEUE_URL, AttributeNames: ['MessageRetentionPeriod', 'MaximumMessageSize'] }]);
  });

  test('a queue that names no retention is taken to keep a copy as long as SQS can (14 days): the check errs towards holding it', async () => {
    const windows = windowsOf([window('page-view-counter', QUEUE_ARN, 23)], new FakeClient(() => ({ Attributes: {} })));
    expect((await windows.check(QUEUE_ARN, sentDaysAgo(10))).problem).toMatch(/the source keeps it 14 d/);
  });
});
