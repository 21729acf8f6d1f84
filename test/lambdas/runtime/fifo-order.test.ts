/**
 * SQS FIFO batches through the consumer with the direct strategy (its ordered run is what is
 * under test; the SQS client of the DLQ is a fake that records sends): order is kept per message
 * group. At a group's first transient failure the rest of that group is reported and not attempted,
 * while other groups go on; a permanent failure goes to the DLQ (with the FIFO ids a FIFO DLQ
 * needs) and its group goes on; a standard queue's batch stays unordered.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { z } from 'zod';
import { createConsumer } from '../../../lambdas/runtime/consumer';
import { DlqSender } from '../../../lambdas/runtime/dlq';
import { PermanentError, TransientError } from '../../../lambdas/runtime/errors';
import { SourceKind } from '../../../lambdas/runtime/records';
import { route } from '../../../lambdas/runtime/routes';
import { directStrategy } from '../../../lambdas/runtime/strategies';
import type { FailureEnvelope } from '../../../aws/dlq-format';
import { pageView, sqsEvent, sqsRecord, TEST_QUEUE_ARN } from '../../helpers/events';
import { asClient, FakeClient, noSleep, recordingObservability } from '../../helpers/fakes';

const FIFO_ARN = `${TEST_QUEUE_ARN}.fifo`;
const FIFO_DLQ_URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/page-views-dlq.fifo';

/** A consumer whose handler applies page ids in order, failing `transient-*` transiently and `poison-*` permanently. */
function fifoConsumer(dlqUrl = FIFO_DLQ_URL) {
  const applied: string[] = [];
  const dlqClient = new FakeClient(() => ({ MessageId: 'dlq-message' }));
  const handle = createConsumer({
    name: 'fifo-counter',
    source: SourceKind.SQS,
    routes: {
      'page.viewed': route(z.object({ pageId: z.string() }), async (event) => {
        const { pageId } = event.payload;
        if (pageId.startsWith('transient-')) throw new TransientError(`${pageId} failed for now`);
        if (pageId.startsWith('poison-')) throw new PermanentError(`${pageId} can never apply`);
        applied.push(pageId);
      }),
    },
    strategy: directStrategy({ maxAttempts: 1, sleep: noSleep }),
    dlq: new DlqSender(asClient<SQSClient>(dlqClient), dlqUrl, { sleep: noSleep }),
    observability: recordingObservability(),
  });
  const dlqSends = () => dlqClient.commandsNamed('SendMessageCommand').map((command) => command.input);
  return { handle, applied, dlqSends };
}

function message(pageId: string, group: string, queueArn = FIFO_ARN) {
  return sqsRecord(pageView(pageId), { messageId: pageId, messageGroupId: group, queueArn });
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
