/**
 * The SQS mapping's counters with several pollers: each poller's deletes are counted, however
 * their deletes interleave (a `+= await` once lost the other pollers' counts).
 */
import { GetQueueAttributesCommand, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { destroyClients, LOCAL_REGION } from '../../../emulator/engines';
import { SqsMapping } from '../../../emulator/event-sources/sqs-mapping';
import { createQueue, testClients, uniqueName } from '../../helpers/engines';
import { pollUntil } from '../../helpers/poll';
import { recordingFunction, whileRunning } from './support';

const clients = testClients();
afterAll(() => destroyClients(clients));
const { sqs } = clients;

test('with two pollers, every deleted message is counted once', async () => {
  const messages = 300;
  const queue = await createQueue(sqs, uniqueName('counted'), { VisibilityTimeout: '30' });
  for (let sent = 0; sent < messages; sent += 10) {
    const Entries = Array.from({ length: 10 }, (_, index) => ({ Id: String(index), MessageBody: `m-${sent + index}` }));
    await sqs.send(new SendMessageBatchCommand({ QueueUrl: queue.url, Entries }));
  }
  const fn = recordingFunction<SQSRecord>();
  const mapping = new SqsMapping({ queueUrl: queue.url, queueArn: queue.arn, region: LOCAL_REGION, batchSize: 50, maximumBatchingWindowSeconds: 1, reportBatchItemFailures: true, visibilityTimeoutSeconds: 30, concurrency: 2, invoke: fn.invoke, sqs });
  await whileRunning(mapping, async () => {
    await pollUntil(async () => (fn.batches.flat().length >= messages ? true : undefined), `${messages} deliveries`);
    await pollUntil(async () => ((await messagesLeft(queue.url)) === 0 ? true : undefined), 'an empty queue');
  });
  expect(mapping.stats).toMatchObject({ deliveries: messages, deleted: messages });
});

async function messagesLeft(queueUrl: string): Promise<number> {
  const names = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] as const;
  const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: [...names] }));
  return names.reduce((sum, name) => sum + Number(Attributes[name] ?? 0), 0);
}
