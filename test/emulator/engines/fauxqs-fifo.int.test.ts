/**
 * FIFO receives on the engine as SQS makes them (emulator/engines/fauxqs-fifo-batches.mjs): one
 * ReceiveMessage hands out each unlocked group's messages in order until the batch is full; no
 * more of a group while any of it is in flight; messages back from flight keep their order, and
 * past maxReceiveCount they reach the FIFO DLQ in that order. fauxqs alone hands out one message
 * per group, so a batch never held two of a group.
 */
import { ChangeMessageVisibilityBatchCommand, DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { destroyClients } from '../../../emulator/engines';
import { createQueue, engineClients, uniqueName, type CreatedQueue } from '../../helpers/engines';

const clients = engineClients();
const { sqs } = clients;
afterAll(() => destroyClients(clients));

async function fifoQueue(attributes: Record<string, string> = {}): Promise<CreatedQueue> {
  return createQueue(sqs, `${uniqueName('groups')}.fifo`, { FifoQueue: 'true', VisibilityTimeout: '30', ...attributes });
}

async function sendAll(queue: CreatedQueue, messages: readonly [group: string, body: string][]): Promise<void> {
  for (const [group, body] of messages) await sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: body, MessageGroupId: group, MessageDeduplicationId: body }));
}

async function receive(queue: CreatedQueue, max = 10): Promise<Message[]> {
  const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue.url, MaxNumberOfMessages: max, MessageSystemAttributeNames: ['All'] }));
  return Messages;
}

const bodies = (messages: readonly Message[]): string[] => messages.map((message) => message.Body ?? '');

test('one receive hands out a whole group in order, then the next group; a group in flight hands out nothing more', async () => {
  const queue = await fifoQueue();
  await sendAll(queue, [['a', 'a1'], ['b', 'b1'], ['a', 'a2'], ['a', 'a3'], ['b', 'b2']]);
  const first = await receive(queue, 4);
  expect(bodies(first)).toEqual(['a1', 'a2', 'a3', 'b1']);
  expect(first.map((message) => message.Attributes?.MessageGroupId)).toEqual(['a', 'a', 'a', 'b']);
  expect(await receive(queue)).toEqual([]);
  // The group stays locked until every message of it in flight is back or deleted.
  for (const message of first.slice(0, 2)) await sqs.send(new DeleteMessageCommand({ QueueUrl: queue.url, ReceiptHandle: message.ReceiptHandle }));
  expect(await receive(queue)).toEqual([]);
});

test('messages made visible again come back in the order they were sent, not the order they returned', async () => {
  const queue = await fifoQueue();
  await sendAll(queue, [['a', 'x1'], ['a', 'x2'], ['a', 'x3']]);
  const first = await receive(queue);
  const entries = first.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle, VisibilityTimeout: 0 }));
  await sqs.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queue.url, Entries: entries }));
  const again = await receive(queue);
  expect(bodies(again)).toEqual(['x1', 'x2', 'x3']);
  expect(again.map((message) => message.Attributes?.ApproximateReceiveCount)).toEqual(['2', '2', '2']);
});

test('past maxReceiveCount a group reaches its FIFO DLQ in order', async () => {
  const dlq = await createQueue(sqs, `${uniqueName('groups-dlq')}.fifo`, { FifoQueue: 'true' });
  const queue = await fifoQueue({ VisibilityTimeout: '1', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: 1 }) });
  await sendAll(queue, [['a', 'y1'], ['a', 'y2'], ['a', 'y3']]);
  expect(bodies(await receive(queue))).toEqual(['y1', 'y2', 'y3']);
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  expect(await receive(queue)).toEqual([]);
  expect(bodies(await receive(dlq))).toEqual(['y1', 'y2', 'y3']);
});
