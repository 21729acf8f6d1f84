/**
 * SQS fair queues (SQS Developer Guide, "Amazon SQS fair queues", July 2025): a standard queue's
 * message may carry a `MessageGroupId` naming its tenant; it gives no order and does not make the
 * queue FIFO. So: the producer can name a tenant on a standard queue (and a FIFO queue still gets
 * its group and deduplication id); the runtime keeps a standard queue's batch unordered whatever
 * group ids its records carry (FIFO-ness is the queue's, from its ARN); a standard DLQ keeps the
 * tenant, and so does a redrive. The SQS clients are fakes that record what is sent.
 */
import type { SendMessageBatchRequestEntry, SendMessageCommandInput, SQSClient } from '@aws-sdk/client-sqs';
import { z } from 'zod';
import { createConsumer } from '../../../../lambdas/runtime/consumer/consumer';
import { DlqSender } from '../../../../lambdas/runtime/failures/dlq';
import { SchemaViolationError, TransientError } from '../../../../lambdas/runtime/core/errors';
import { describeFailure } from '../../../../lambdas/runtime/failures/failure-context';
import { orderGroupOf } from '../../../../lambdas/runtime/consumer/order-groups';
import { createEnvelope, outgoingMessage, publishToSqs, type OutgoingMessage } from '../../../../lambdas/runtime/producing/producer';
import { fromSqsRecord, SourceKind } from '../../../../lambdas/runtime/decoding/records';
import { route } from '../../../../lambdas/runtime/decoding/routes';
import { directStrategy } from '../../../../lambdas/runtime/consumer/direct-strategy';
import { DlqReason } from '../../../../aws/dlq-format';
import { sendToQueue } from '../../../../operations/dlq/sqs-republish';
import { pageView, sqsEvent, sqsRecord, TEST_QUEUE_ARN } from '../../../helpers/events';
import { asClient, FakeClient, noSleep, recordingObservability } from '../../../helpers/fakes';
import { sqsViolations } from '../../../helpers/sqs-rules';

const STANDARD_QUEUE = 'https://sqs.us-east-1.amazonaws.com/000000000000/orders';
const FIFO_QUEUE = 'https://sqs.us-east-1.amazonaws.com/000000000000/orders.fifo';
const STANDARD_DLQ = 'https://sqs.us-east-1.amazonaws.com/000000000000/orders-dlq';
const FIFO_DLQ = 'https://sqs.us-east-1.amazonaws.com/000000000000/orders-dlq.fifo';

function order(n: number, tenant?: string): OutgoingMessage {
  const message = outgoingMessage(createEnvelope({ type: 'order.placed', businessKey: `order-${n}`, source: 'test', payload: { n }, occurredAt: '2026-12-01T10:00:00Z' }));
  return tenant === undefined ? message : { ...message, messageGroupId: tenant };
}

const batchEntries = (sqs: FakeClient) => sqs.commandsNamed('SendMessageBatchCommand').flatMap((command) => command.input.Entries as SendMessageBatchRequestEntry[]);
const acceptingAll = () => new FakeClient((command) => ({ Successful: (command.input.Entries as SendMessageBatchRequestEntry[]).map((entry) => ({ Id: entry.Id, MessageId: `m-${entry.Id}` })) }));

describe('publishToSqs names a tenant on a standard queue', () => {
  test('a message with a messageGroupId carries it, and no deduplication id (a standard queue refuses one)', async () => {
    const sqs = acceptingAll();
    await publishToSqs(asClient<SQSClient>(sqs), STANDARD_QUEUE, [order(1, 'tenant-a'), order(2)]);
    const [tenanted, plain] = batchEntries(sqs);
    expect(tenanted).toMatchObject({ MessageGroupId: 'tenant-a' });
    expect(tenanted).not.toHaveProperty('MessageDeduplicationId');
    expect(plain).not.toHaveProperty('MessageGroupId');
    expect(plain).not.toHaveProperty('MessageDeduplicationId');
  });

  test('a partition key alone names no tenant on a standard queue: it stays an order key for ordered targets only', async () => {
    const sqs = acceptingAll();
    await publishToSqs(asClient<SQSClient>(sqs), STANDARD_QUEUE, [{ ...order(1), partitionKey: 'tenant-a' }]);
    expect(batchEntries(sqs)[0]).not.toHaveProperty('MessageGroupId');
  });

  test('a tenant gives no order: 12 messages of one tenant go 10 and 2, not one request each', async () => {
    const sqs = acceptingAll();
    await publishToSqs(asClient<SQSClient>(sqs), STANDARD_QUEUE, Array.from({ length: 12 }, (_, n) => order(n, 'tenant-a')));
    expect(sqs.commandsNamed('SendMessageBatchCommand').map((command) => (command.input.Entries as unknown[]).length)).toEqual([10, 2]);
  });

  test('a tenant id SQS cannot take (too long, or with a space) goes as its SHA-256, so that distinct tenants stay distinct', async () => {
    const sqs = acceptingAll();
    await publishToSqs(asClient<SQSClient>(sqs), STANDARD_QUEUE, [order(1, 'x'.repeat(129)), order(2, 'acme corp')]);
    const [long, spaced] = batchEntries(sqs);
    expect(long?.MessageGroupId).toMatch(/^[0-9a-f]{64}$/);
    expect(spaced?.MessageGroupId).toMatch(/^[0-9a-f]{64}$/);
    expect(long?.MessageGroupId).not.toBe(spaced?.MessageGroupId);
  });
});

describe('publishToSqs to a FIFO queue', () => {
  test('the messageGroupId is the message group, before the partition key; the deduplication id stays the event id', async () => {
    const sqs = acceptingAll();
    const message = { ...order(1, 'tenant-a'), partitionKey: 'key-1' };
    await publishToSqs(asClient<SQSClient>(sqs), FIFO_QUEUE, [message]);
    expect(batchEntries(sqs)[0]).toMatchObject({ MessageGroupId: 'tenant-a', MessageDeduplicationId: message.eventId });
  });

  test('without one, the group is still the partition key, else the event id', async () => {
    const sqs = acceptingAll();
    const [keyed, bare] = [{ ...order(1), partitionKey: 'key-1' }, { ...order(2), partitionKey: undefined }];
    await publishToSqs(asClient<SQSClient>(sqs), FIFO_QUEUE, [keyed, bare]);
    expect(batchEntries(sqs).map((entry) => entry.MessageGroupId)).toEqual(['key-1', bare.eventId]);
  });
});

describe('the runtime decides FIFO by the queue, never by a group id', () => {
  test('a standard-queue record with a MessageGroupId keeps no order; a FIFO record keeps its group', () => {
    expect(orderGroupOf(fromSqsRecord(sqsRecord({}, { messageGroupId: 'tenant-a' })))).toBeUndefined();
    expect(orderGroupOf(fromSqsRecord(sqsRecord({}, { messageGroupId: 'tenant-a', queueArn: `${TEST_QUEUE_ARN}.fifo` })))).toBe('group:tenant-a');
  });

  test("a tenant's transient failure on a standard queue reports only that message: the tenant's later messages still apply", async () => {
    const applied: string[] = [];
    const handle = createConsumer({
      name: 'tenant-counter',
      source: SourceKind.SQS,
      routes: {
        'page.viewed': route(z.object({ pageId: z.string() }), async ({ payload }) => {
          if (payload.pageId.startsWith('transient-')) throw new TransientError(`${payload.pageId} failed for now`);
          applied.push(payload.pageId);
        }),
      },
      strategy: directStrategy({ maxAttempts: 1, sleep: noSleep }),
      maxAttempts: 5,
      maxReceiveCount: 6,
      observability: recordingObservability(),
    });
    const message = (pageId: string) => sqsRecord(pageView(pageId), { messageId: pageId, messageGroupId: 'tenant-a' });
    const response = await handle(sqsEvent(message('a1'), message('transient-a2'), message('a3')));
    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual(['transient-a2']);
    expect(applied).toEqual(['a1', 'a3']);
  });
});

function failureOf(options: { tenant?: string; queueArn?: string }) {
  const record = fromSqsRecord(sqsRecord({ eventId: 'cut-off' }, { messageId: 'm-1', messageGroupId: options.tenant, queueArn: options.queueArn }));
  return describeFailure({ consumer: 'tenant-counter', reason: DlqReason.PERMANENT, error: new SchemaViolationError('order.placed', ['n: Required']), record, now: new Date('2026-12-01T12:00:00Z') });
}

async function dlqSend(dlqUrl: string, failure: ReturnType<typeof failureOf>): Promise<SendMessageCommandInput> {
  const sqs = new FakeClient(() => ({ MessageId: 'dlq-1' }));
  await new DlqSender(asClient<SQSClient>(sqs), dlqUrl, { sleep: noSleep }).send(failure);
  return sqs.commands[0]?.input as unknown as SendMessageCommandInput;
}

describe('DLQ sends keep the tenant', () => {
  test("a standard queue's failure keeps its MessageGroupId on the standard DLQ, with no deduplication id", async () => {
    const input = await dlqSend(STANDARD_DLQ, failureOf({ tenant: 'tenant-a' }));
    expect(input.MessageGroupId).toBe('tenant-a');
    expect(input).not.toHaveProperty('MessageDeduplicationId');
    expect(sqsViolations(input)).toEqual([]);
  });

  test('a failure without a tenant is sent without a group id', async () => {
    const input = await dlqSend(STANDARD_DLQ, failureOf({}));
    expect(input).not.toHaveProperty('MessageGroupId');
    expect(input).not.toHaveProperty('MessageDeduplicationId');
  });

  test('a FIFO queue\'s failure still goes to its FIFO DLQ in its group, with a deduplication id', async () => {
    const input = await dlqSend(FIFO_DLQ, failureOf({ tenant: 'group-a', queueArn: `${TEST_QUEUE_ARN}.fifo` }));
    expect(input.MessageGroupId).toBe('group-a');
    expect(String(input.MessageDeduplicationId)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('a redrive to a standard queue keeps the tenant', () => {
  async function redriven(queueUrl: string, groupId: string | undefined, dlqAttributes: Record<string, string> = {}): Promise<SendMessageCommandInput> {
    const sqs = new FakeClient(() => ({ MessageId: 'again-1' }));
    await sendToQueue(asClient<SQSClient>(sqs), queueUrl, { MessageBody: '{}' }, { MessageId: 'dlq-1', Attributes: dlqAttributes }, groupId);
    return sqs.commands[0]?.input as unknown as SendMessageCommandInput;
  }

  test("from a wrapper: the original's group id", async () => {
    const input = await redriven(STANDARD_QUEUE, 'tenant-a');
    expect(input.MessageGroupId).toBe('tenant-a');
    expect(input).not.toHaveProperty('MessageDeduplicationId');
  });

  test('from a message SQS moved: the DLQ message\'s own group id', async () => {
    expect((await redriven(STANDARD_QUEUE, undefined, { MessageGroupId: 'tenant-b' })).MessageGroupId).toBe('tenant-b');
  });

  test('without a tenant, none is invented on a standard queue; a FIFO queue still gets a group', async () => {
    expect(await redriven(STANDARD_QUEUE, undefined)).not.toHaveProperty('MessageGroupId');
    expect(await redriven(FIFO_QUEUE, undefined)).toMatchObject({ MessageGroupId: 'redrive' });
  });
});
