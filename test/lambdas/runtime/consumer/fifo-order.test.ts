/**
 * SQS FIFO batches through the consumer with the direct strategy (its ordered run is what is
 * under test; the SQS client of the DLQ is a fake that records sends): order is kept per message
 * group. At a group's first transient failure the rest of that group is reported and not attempted,
 * while other groups go on; a permanent failure goes to the DLQ (with the FIFO ids a FIFO DLQ
 * needs) and its group goes on; a standard queue's batch stays unordered.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { z } from 'zod';
import { createConsumer } from '../../../../lambdas/runtime/consumer/consumer';
import { DlqSender } from '../../../../lambdas/runtime/failures/dlq';
import { PermanentError, StateRefusalError, TransientError } from '../../../../lambdas/runtime/core/errors';
import { SourceKind } from '../../../../lambdas/runtime/decoding/records';
import { route } from '../../../../lambdas/runtime/decoding/routes';
import { directStrategy } from '../../../../lambdas/runtime/consumer/direct-strategy';
import { DlqReason, type FailureEnvelope } from '../../../../aws/dlq-format';
import { kinesisEvent, kinesisRecord, pageView, sqsEvent, sqsRecord, TEST_QUEUE_ARN } from '../../../helpers/events';
import { asClient, awsError, FakeClient, noSleep, recordingObservability } from '../../../helpers/fakes';

const FIFO_ARN = `${TEST_QUEUE_ARN}.fifo`;
const FIFO_DLQ_URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/page-views-dlq.fifo';

/** A consumer whose handler applies page ids in order, failing `transient-*` transiently, `poison-*` permanently and `refused-*` as the stored state would (a constraint). */
function fifoConsumer(dlqUrl: string | null = FIFO_DLQ_URL, dlqClient = new FakeClient(() => ({ MessageId: 'dlq-message' }))) {
  const applied: string[] = [];
  const ran: string[] = [];
  const handle = createConsumer({
    name: 'fifo-counter',
    source: SourceKind.SQS,
    routes: {
      'page.viewed': route(z.object({ pageId: z.string() }), async (event) => {
        const { pageId } = event.payload;
        ran.push(pageId);
        if (pageId.startsWith('transient-')) throw new TransientError(`${pageId} failed for now`);
        if (pageId.startsWith('poison-')) throw new PermanentError(`${pageId} can never apply`);
        if (pageId.startsWith('refused-')) throw new StateRefusalError(`${pageId} is refused by the stored state, for now`);
        applied.push(pageId);
      }),
    },
    strategy: directStrategy({ maxAttempts: 1, sleep: noSleep }),
    dlq: dlqUrl === null ? undefined : new DlqSender(asClient<SQSClient>(dlqClient), dlqUrl, { sleep: noSleep, maxAttempts: 1 }),
    maxAttempts: 5,
    maxReceiveCount: 6,
    observability: recordingObservability(),
  });
  const dlqSends = () => dlqClient.commandsNamed('SendMessageCommand').map((command) => command.input);
  const dlqMessages = () => dlqSends().map((send) => JSON.parse(String(send.MessageBody)) as FailureEnvelope);
  return { handle, applied, ran, dlqSends, dlqMessages };
}

function message(pageId: string, group: string, queueArn = FIFO_ARN, receiveCount = 1) {
  return sqsRecord(pageView(pageId), { messageId: pageId, messageGroupId: group, queueArn, receiveCount });
}

function undecodable(messageId: string, group: string) {
  return sqsRecord('{"eventId": "cut-off', { messageId, messageGroupId: group, queueArn: FIFO_ARN });
}

async function reported(handle: ReturnType<typeof fifoConsumer>['handle'], ...records: ReturnType<typeof message>[]): Promise<string[]> {
  return (await handle(sqsEvent(...records))).batchItemFailures.map((failure) => failure.itemIdentifier);
}

describe('an SQS FIFO batch', () => {
  test("a transient failure in the middle of a group reports it and the group's later messages, not attempted; the other group goes on", async () => {
    const { handle, applied } = fifoConsumer();
    const failures = await reported(handle, message('a1', 'a'), message('b1', 'b'), message('transient-a2', 'a'), message('b2', 'b'), message('a3', 'a'), message('b3', 'b'));
    expect(failures).toEqual(['transient-a2', 'a3']);
    expect(applied.filter((id) => id.startsWith('a'))).toEqual(['a1']);
    expect(applied.filter((id) => id.startsWith('b'))).toEqual(['b1', 'b2', 'b3']);
  });

  test('the redelivered rest of the group applies in its order once the failure clears', async () => {
    const { handle, applied } = fifoConsumer();
    await reported(handle, message('a1', 'a'), message('transient-a2', 'a'), message('a3', 'a'));
    // FIFO redelivers the reported messages, in their order; the cause is fixed meanwhile (a2 now applies).
    expect(await reported(handle, message('a2', 'a'), message('a3', 'a'), message('a4', 'a'))).toEqual([]);
    expect(applied).toEqual(['a1', 'a2', 'a3', 'a4']);
  });

  test('a permanent failure goes to the FIFO DLQ in its own group, and its group goes on', async () => {
    const { handle, applied, dlqSends } = fifoConsumer();
    expect(await reported(handle, message('a1', 'a'), message('poison-a2', 'a'), message('a3', 'a'))).toEqual([]);
    expect(applied).toEqual(['a1', 'a3']);
    const [send] = dlqSends();
    expect(send).toMatchObject({ QueueUrl: FIFO_DLQ_URL, MessageGroupId: 'a' });
    expect(String(send?.MessageDeduplicationId)).toMatch(/^[0-9a-f]{64}$/);
    expect((JSON.parse(String(send?.MessageBody)) as FailureEnvelope).source.itemIdentifier).toBe('poison-a2');
  });

  test('the same failure sent twice gets the same deduplication id, so that SQS keeps one copy within its 5 minutes', async () => {
    const { handle, dlqSends } = fifoConsumer();
    await reported(handle, message('poison-a1', 'a'));
    await reported(handle, message('poison-a1', 'a'));
    const [first, second] = dlqSends();
    expect(first?.MessageDeduplicationId).toBe(second?.MessageDeduplicationId);
  });

  test('a standard queue keeps no order: a transient failure reports only its own message', async () => {
    const { handle, applied, dlqSends } = fifoConsumer('https://sqs.us-east-1.amazonaws.com/000000000000/page-views-dlq');
    const standard = (pageId: string) => sqsRecord(pageView(pageId), { messageId: pageId });
    expect(await reported(handle, standard('a1'), standard('transient-a2'), standard('a3'), standard('poison-a4'))).toEqual(['transient-a2']);
    expect(applied).toEqual(['a1', 'a3']);
    expect(dlqSends()[0]).not.toHaveProperty('MessageGroupId');
  });
});

describe("a FIFO group's head on its last attempt (issue 25, item 1)", () => {
  test('the head goes to the DLQ with its context; the rest, whose handlers never ran, is reported, never dead-lettered', async () => {
    const { handle, applied, ran, dlqMessages } = fifoConsumer();
    // Reported as not attempted behind a failing head, the rest's receive counts rose in step with it.
    const failures = await reported(handle, message('transient-a1', 'a', FIFO_ARN, 5), message('a2', 'a', FIFO_ARN, 5), message('a3', 'a', FIFO_ARN, 5));

    expect(dlqMessages().map((wrapper) => [wrapper.source.itemIdentifier, wrapper.reason, wrapper.error.name])).toEqual([['transient-a1', DlqReason.LAST_ATTEMPT, 'RetriesExhaustedError']]);
    expect(failures).toEqual(['a2', 'a3']);
    expect(ran).toEqual(['transient-a1']);
    expect(applied).toEqual([]);
  });

  test('the rest runs on its next receive, in order, behind the dead-lettered head', async () => {
    const { handle, applied, dlqMessages } = fifoConsumer();
    await reported(handle, message('transient-a1', 'a', FIFO_ARN, 5), message('a2', 'a', FIFO_ARN, 5), message('a3', 'a', FIFO_ARN, 5));
    expect(await reported(handle, message('a2', 'a', FIFO_ARN, 6), message('a3', 'a', FIFO_ARN, 6), message('a4', 'a'))).toEqual([]);
    expect(applied).toEqual(['a2', 'a3', 'a4']);
    expect(dlqMessages()).toHaveLength(1);
  });

  test("on the queue's final receive, a message whose handler never ran goes to the DLQ as not attempted, with its context, not to SQS's context-free move", async () => {
    const { handle, dlqMessages } = fifoConsumer(FIFO_DLQ_URL, new FakeClient((command) => {
      if (String(command.input.MessageBody).includes('"itemIdentifier":"transient-a1"')) throw awsError('ServiceUnavailable', 503);
      return { MessageId: 'dlq-message' };
    }));
    const failures = await reported(handle, message('transient-a1', 'a', FIFO_ARN, 6), message('a2', 'a', FIFO_ARN, 6));

    expect(failures).toEqual(['transient-a1']);
    expect(dlqMessages().filter((wrapper) => wrapper.source.itemIdentifier === 'a2').map((wrapper) => [wrapper.reason, wrapper.error.name])).toEqual([[DlqReason.NOT_ATTEMPTED, 'NotAttemptedError']]);
  });

  test('after a permanent failure the group goes on in the same invocation: it fails again if it ever comes back', async () => {
    const { handle, applied } = fifoConsumer();
    expect(await reported(handle, message('poison-a1', 'a', FIFO_ARN, 5), message('a2', 'a', FIFO_ARN, 5))).toEqual([]);
    expect(applied).toEqual(['a2']);
  });
});

describe('a FIFO group after a failure the stored state decided (issue 39: a CHECK, a UNIQUE key, an effect\'s condition)', () => {
  test('it goes to the DLQ with its context, and the rest of its group is reported, not attempted: a redelivery of both could apply it after them', async () => {
    const { handle, applied, ran, dlqMessages } = fifoConsumer();
    const failures = await reported(handle, message('refused-a1', 'a'), message('a2', 'a'), message('b1', 'b'));
    expect(dlqMessages().map((wrapper) => [wrapper.source.itemIdentifier, wrapper.reason, wrapper.error.name])).toEqual([['refused-a1', DlqReason.PERMANENT, 'StateRefusalError']]);
    expect(failures).toEqual(['a2']);
    expect(ran).toEqual(['refused-a1', 'b1']);
    expect(applied).toEqual(['b1']);
  });

  test('the rest runs on its next receive, behind it; a permanent failure of the event\'s own still lets its group go on at once', async () => {
    const { handle, applied } = fifoConsumer();
    await reported(handle, message('refused-a1', 'a'), message('a2', 'a'));
    expect(await reported(handle, message('a2', 'a', FIFO_ARN, 2), message('poison-a3', 'a'), message('a4', 'a'))).toEqual([]);
    expect(applied).toEqual(['a2', 'a4']);
  });
});

describe('a Kinesis shard after a failure the stored state decided (issue 39)', () => {
  test('it goes to the DLQ; the shard\'s later records are reported from the first after it, not attempted', async () => {
    const ran: string[] = [];
    const dlqClient = new FakeClient(() => ({ MessageId: 'dlq-message' }));
    const handle = createConsumer({
      name: 'kinesis-ledger',
      source: SourceKind.KINESIS,
      routes: {
        'page.viewed': route(z.object({ pageId: z.string() }), async (event) => {
          ran.push(event.payload.pageId);
          if (event.payload.pageId.startsWith('refused-')) throw new StateRefusalError(`${event.payload.pageId} is refused by the stored state, for now`);
        }),
      },
      strategy: directStrategy({ maxAttempts: 1, sleep: noSleep }),
      dlq: new DlqSender(asClient<SQSClient>(dlqClient), 'https://sqs.us-east-1.amazonaws.com/000000000000/ledger-dlq', { sleep: noSleep, maxAttempts: 1 }),
      observability: recordingObservability(),
    });
    const records = [kinesisRecord(pageView('r1'), { sequenceNumber: '101' }), kinesisRecord(pageView('refused-r2'), { sequenceNumber: '102' }), kinesisRecord(pageView('r3'), { sequenceNumber: '103' })];
    const response = await handle(kinesisEvent(...records));
    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual(['103']);
    expect(ran).toEqual(['r1', 'refused-r2']);
    const sent = dlqClient.commandsNamed('SendMessageCommand').map((command) => (JSON.parse(String(command.input.MessageBody)) as FailureEnvelope).error.name);
    expect(sent).toEqual(['StateRefusalError']);
  });
});

describe('a record that does not decode stops its group like any failure (issue 25, item 2)', () => {
  test('FIFO without a DLQ: it is reported with the rest of its group, and nothing after it is handled; other groups go on', async () => {
    const { handle, ran } = fifoConsumer(null);
    const failures = await reported(handle, message('a1', 'a'), undecodable('a-bad', 'a'), message('b1', 'b'), message('a3', 'a'));
    expect(failures).toEqual(['a-bad', 'a3']);
    expect(ran).toEqual(['a1', 'b1']);
  });

  test('FIFO with a DLQ that refuses the send: the same', async () => {
    const { handle, ran } = fifoConsumer(FIFO_DLQ_URL, new FakeClient(() => {
      throw awsError('ServiceUnavailable', 503);
    }));
    expect(await reported(handle, undecodable('a-bad', 'a'), message('a2', 'a'))).toEqual(['a-bad', 'a2']);
    expect(ran).toEqual([]);
  });

  test('FIFO with a DLQ: it is dead-lettered with its context, and its group goes on after it', async () => {
    const { handle, applied, dlqMessages } = fifoConsumer();
    expect(await reported(handle, message('a1', 'a'), undecodable('a-bad', 'a'), message('a3', 'a'))).toEqual([]);
    expect(applied).toEqual(['a1', 'a3']);
    expect(dlqMessages().map((wrapper) => [wrapper.source.itemIdentifier, wrapper.error.name])).toEqual([['a-bad', 'InvalidEnvelopeError']]);
  });

  test('Kinesis without a DLQ: the shard stops at it; nothing after it is handled', async () => {
    const ran: string[] = [];
    const handle = createConsumer({
      name: 'kinesis-counter',
      source: SourceKind.KINESIS,
      routes: { 'page.viewed': route(z.object({ pageId: z.string() }), async (event) => void ran.push(event.payload.pageId)) },
      strategy: directStrategy({ sleep: noSleep }),
      observability: recordingObservability(),
    });
    const records = [kinesisRecord(pageView('r1'), { sequenceNumber: '101' }), kinesisRecord('not json', { sequenceNumber: '102' }), kinesisRecord(pageView('r3'), { sequenceNumber: '103' })];
    const response = await handle(kinesisEvent(...records));
    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual(['102', '103']);
    expect(ran).toEqual(['r1']);
  });
});
