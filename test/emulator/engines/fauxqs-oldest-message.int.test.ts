/**
 * The send time of a queue's oldest message, which fauxqs answers as a local-only attribute
 * (emulator/engines/fauxqs-oldest-message.mjs) for local mode's ApproximateAgeOfOldestMessage:
 * the oldest message not deleted, whether ready, in flight or delayed, in a standard or a FIFO
 * queue; none for an empty queue. SQS has no such attribute, and the contract layer refuses it.
 */
import { DeleteMessageCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, type QueueAttributeName } from '@aws-sdk/client-sqs';
import { destroyClients } from '../../../emulator/engines';
import { OLDEST_SENT_ATTRIBUTE, oldestMessageAgeGauge } from '../../../emulator/metrics';
import { createQueue, engineClients, testClients, uniqueName, type CreatedQueue } from '../../helpers/engines';

const engine = engineClients();
const contract = testClients();
afterAll(() => {
  destroyClients(engine);
  destroyClients(contract);
});

async function oldestSent(queue: CreatedQueue): Promise<number | undefined> {
  const { Attributes } = await engine.sqs.send(new GetQueueAttributesCommand({ QueueUrl: queue.url, AttributeNames: [OLDEST_SENT_ATTRIBUTE as QueueAttributeName] }));
  const sent = (Attributes as Readonly<Record<string, string>> | undefined)?.[OLDEST_SENT_ATTRIBUTE];
  return sent === undefined ? undefined : Number(sent);
}

async function sentTimestampOf(queue: CreatedQueue): Promise<{ sent: number; receiptHandle: string }> {
  const { Messages = [] } = await engine.sqs.send(new ReceiveMessageCommand({ QueueUrl: queue.url, MaxNumberOfMessages: 1, MessageSystemAttributeNames: ['SentTimestamp'] }));
  const [message] = Messages;
  if (!message?.ReceiptHandle) throw new Error('no message to receive');
  return { sent: Number(message.Attributes?.SentTimestamp), receiptHandle: message.ReceiptHandle };
}

test('a standard queue: none when empty, the oldest message whether ready or in flight, the next one once it is deleted', async () => {
  const queue = await createQueue(engine.sqs, uniqueName('oldest'), { VisibilityTimeout: '30' });
  expect(await oldestSent(queue)).toBeUndefined();
  await engine.sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'first' }));
  await new Promise((resolve) => setTimeout(resolve, 20));
  await engine.sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'second' }));
  const first = await sentTimestampOf(queue);
  expect(await oldestSent(queue)).toBe(first.sent);
  await engine.sqs.send(new DeleteMessageCommand({ QueueUrl: queue.url, ReceiptHandle: first.receiptHandle }));
  const second = await sentTimestampOf(queue);
  expect(second.sent).toBeGreaterThan(first.sent);
  expect(await oldestSent(queue)).toBe(second.sent);
});

test('a delayed message and a FIFO queue count too', async () => {
  const delayed = await createQueue(engine.sqs, uniqueName('oldest-delayed'));
  await engine.sqs.send(new SendMessageCommand({ QueueUrl: delayed.url, MessageBody: 'later', DelaySeconds: 60 }));
  expect(await oldestSent(delayed)).toEqual(expect.any(Number));
  const fifo = await createQueue(engine.sqs, `${uniqueName('oldest')}.fifo`, { FifoQueue: 'true' });
  const before = Date.now();
  await engine.sqs.send(new SendMessageCommand({ QueueUrl: fifo.url, MessageBody: 'ordered', MessageGroupId: 'g', MessageDeduplicationId: 'd' }));
  expect(await oldestSent(fifo)).toBeGreaterThanOrEqual(before);
});

test('the gauge reads it as an age in template seconds, and 0 for an empty queue', async () => {
  const queue = await createQueue(engine.sqs, uniqueName('oldest-gauge'));
  const gauge = oldestMessageAgeGauge(engine.sqs, { name: queue.url.split('/').pop() ?? '', url: queue.url }, 1 / 60);
  expect(await gauge.read()).toEqual([0]);
  await engine.sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'waiting' }));
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  const [age = 0] = await gauge.read();
  // 1.1 local seconds at 1/60 are 66 template seconds; a busy machine only adds to it.
  expect(age).toBeGreaterThanOrEqual(60);
  expect(age).toBeLessThan(600);
});

test('SQS has no such attribute: the contract layer refuses it', async () => {
  const queue = await createQueue(engine.sqs, uniqueName('oldest-refused'));
  await expect(contract.sqs.send(new GetQueueAttributesCommand({ QueueUrl: queue.url, AttributeNames: [OLDEST_SENT_ATTRIBUTE as QueueAttributeName] }))).rejects.toThrow(/AttributeNames|attribute/i);
});
