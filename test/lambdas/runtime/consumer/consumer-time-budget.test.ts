/**
 * The consumer within its invocation's time: work stops starting when the margin is all that is
 * left, the rest is reported (not attempted), and only on the queue's final receive does a record
 * out of time go to the DLQ, as not attempted. Before, a batch that ran into the function timeout failed whole: its DLQ sends were
 * repeated on redelivery, its visibility backoff skipped, and on a stream a retry used up.
 *
 * The clock is `Date.now`, moved by the handlers themselves (each event "takes" a second), so the
 * tests are exact and wait for nothing. SQS is a fake client that records commands.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { z } from 'zod';
import { createConsumer, type BatchEvent } from '../../../../lambdas/runtime/consumer/consumer';
import { DlqSender } from '../../../../lambdas/runtime/failures/dlq';
import { DlqReason, type FailureEnvelope } from '../../../../aws/dlq-format';
import { SourceKind } from '../../../../lambdas/runtime/decoding/records';
import { route } from '../../../../lambdas/runtime/decoding/routes';
import { directStrategy, type DirectResult } from '../../../../lambdas/runtime/consumer/direct-strategy';
import { VisibilityBackoff } from '../../../../lambdas/runtime/failures/visibility';
import { kinesisEvent, kinesisRecord, pageView, sqsEvent, sqsRecord } from '../../../helpers/events';
import { asClient, FakeClient, noSleep, recordingObservability } from '../../../helpers/fakes';

const DLQ_URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/page-views-dlq';
const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/page-views';
/** Each event's work takes this long on the fake clock. */
const EVENT_MS = 1_000;

let clock = 0;
beforeEach(() => {
  clock = 1_800_000_000_000;
  jest.spyOn(Date, 'now').mockImplementation(() => clock);
});
afterEach(() => jest.restoreAllMocks());

/** A Lambda context whose deadline is `remainingMs` from now on the fake clock. */
function contextWith(remainingMs: number): Context {
  const deadline = clock + remainingMs;
  return { getRemainingTimeInMillis: () => Math.max(0, deadline - clock) } as unknown as Context;
}

function harness(source: SourceKind) {
  const sqs = new FakeClient(() => ({}));
  const applied: string[] = [];
  const consumer = createConsumer<DirectResult>({
    name: 'slow-consumer',
    source,
    routes: {
      'page.viewed': route(z.object({ pageId: z.string() }), async (event) => {
        clock += EVENT_MS;
        applied.push(event.payload.pageId);
      }),
    },
    // One at a time: the fake clock counts each event's second in turn (concurrent budgets: strategies-concurrency.test.ts).
    strategy: directStrategy({ sleep: noSleep, concurrency: 1 }),
    dlq: new DlqSender(asClient<SQSClient>(sqs), DLQ_URL, { sleep: noSleep }),
    maxAttempts: 5,
    maxReceiveCount: 6,
    visibility: new VisibilityBackoff(asClient<SQSClient>(sqs), { queueUrl: QUEUE_URL, random: () => 0.5 }),
    timeBudget: { marginMs: 1_000 },
    observability: recordingObservability(),
  });
  const handle = async (event: BatchEvent, remainingMs: number) => (await consumer(event, contextWith(remainingMs))).batchItemFailures.map((failure) => failure.itemIdentifier);
  const dlqMessages = () => sqs.commandsNamed('SendMessageCommand').map((command) => JSON.parse(String(command.input.MessageBody)) as FailureEnvelope);
  return { handle, applied, sqs, dlqMessages };
}

const pages = (count: number) => Array.from({ length: count }, (_, index) => pageView(`p${index}`, 'v'));

describe('SQS', () => {
  test('work stops when only the margin is left: the rest are reported, their visibility pushed out, the poison sent once', async () => {
    const { handle, applied, sqs, dlqMessages } = harness(SourceKind.SQS);
    const records = [sqsRecord('not json', { messageId: 'm-poison' }), ...pages(6).map((envelope, index) => sqsRecord(envelope, { messageId: `m-${index}` }))];

    // 4.5 s left, 1 s margin: 3.5 s for work. Events start at 0, 1 and 2 s; at 3 s the 0.5 s left
    // no longer covers the slowest event so far (1 s), so the rest wait for their redelivery.
    const failures = await handle(sqsEvent(...records), 4_500);

    expect(applied).toEqual(['p0', 'p1', 'p2']);
    expect(failures).toEqual(['m-3', 'm-4', 'm-5']);
    expect(dlqMessages().map((message) => message.source.itemIdentifier)).toEqual(['m-poison']);
    const visibility = sqs.commandsNamed('ChangeMessageVisibilityBatchCommand');
    expect(visibility).toHaveLength(1);
    expect((visibility[0].input.Entries as { ReceiptHandle: string }[]).map((entry) => entry.ReceiptHandle)).toEqual(['handle-m-3', 'handle-m-4', 'handle-m-5']);
  });

  test('on its last attempt, a record out of time that never started is reported, not dead-lettered: it has not failed', async () => {
    const { handle, dlqMessages } = harness(SourceKind.SQS);
    const [first, second] = pages(2);
    const failures = await handle(sqsEvent(sqsRecord(first, { messageId: 'm-first', receiveCount: 5 }), sqsRecord(second, { messageId: 'm-late', receiveCount: 5 })), 2_000);

    expect(failures).toEqual(['m-late']);
    expect(dlqMessages()).toEqual([]);
  });

  test("on the queue's final receive it goes to the DLQ as not attempted, with its context, rather than to SQS's context-free move", async () => {
    const { handle, dlqMessages } = harness(SourceKind.SQS);
    const [first, second] = pages(2);
    const failures = await handle(sqsEvent(sqsRecord(first, { messageId: 'm-first', receiveCount: 6 }), sqsRecord(second, { messageId: 'm-late', receiveCount: 6 })), 2_000);

    expect(failures).toEqual([]);
    expect(dlqMessages().map((message) => [message.source.itemIdentifier, message.reason, message.error.name, message.eventId])).toEqual([
      ['m-late', DlqReason.NOT_ATTEMPTED, 'OutOfTimeError', second.eventId],
    ]);
  });

  test('with time to spare, every record is applied', async () => {
    const { handle, applied } = harness(SourceKind.SQS);
    expect(await handle(sqsEvent(...pages(3).map((envelope) => sqsRecord(envelope))), 30_000)).toEqual([]);
    expect(applied).toHaveLength(3);
  });
});

describe('Kinesis', () => {
  test('the shard resumes at the first record not attempted; nothing after it was applied', async () => {
    const { handle, applied } = harness(SourceKind.KINESIS);
    const records = pages(5).map((envelope, index) => kinesisRecord(envelope, { sequenceNumber: String(100 + index) }));

    const failures = await handle(kinesisEvent(...records), 3_000);

    expect(applied).toEqual(['p0', 'p1']);
    expect(failures).toEqual(['102', '103', '104']);
  });
});
