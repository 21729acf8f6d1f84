/**
 * The backoff's longest timeout against SQS's 12-hour cap, through the contract layer in front of
 * fauxqs (fauxqs alone keeps no cap: test/emulator/contract/sqs.int.test.ts). A message is
 * received through the layer, as Lambda's poller receives it; a moment later 43200 s, what the
 * backoff asked for at its largest before, is refused as SQS refuses it, and the backoff's own
 * largest timeout is granted.
 */
import { ChangeMessageVisibilityBatchCommand, ReceiveMessageCommand, SendMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { destroyClients } from '../../../../emulator/engines';
import { fromSqsRecord } from '../../../../lambdas/runtime/decoding/records';
import { MAX_BACKOFF_VISIBILITY_SECONDS, VisibilityBackoff } from '../../../../lambdas/runtime/failures/visibility';
import { sqsRecord } from '../../../helpers/events';
import { createQueue, testClients, uniqueName } from '../../../helpers/engines';

const clients = testClients();
const { sqs } = clients;
afterAll(() => destroyClients(clients));

async function receivedMessage(queueUrl: string): Promise<Message> {
  await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: '{}' }));
  const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 1 }));
  const [message] = Messages;
  if (message?.ReceiptHandle === undefined) throw new Error(`nothing received from ${queueUrl}`);
  await new Promise((resolve) => setTimeout(resolve, 5));
  return message;
}

test(`after a receive SQS refuses 43200 s and grants the backoff's largest, ${MAX_BACKOFF_VISIBILITY_SECONDS} s`, async () => {
  const queue = await createQueue(sqs, uniqueName('visibility-cap'));
  const message = await receivedMessage(queue.url);
  const refused = await sqs.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queue.url, Entries: [{ Id: 'old-largest', ReceiptHandle: message.ReceiptHandle, VisibilityTimeout: 43_200 }] }));
  expect(refused.Failed).toEqual([expect.objectContaining({ Id: 'old-largest', Code: 'InvalidParameterValue', Message: expect.stringContaining('Total VisibilityTimeout for the message is beyond the limit [43200 seconds]') })]);

  const backoff = new VisibilityBackoff(sqs, { queueUrl: queue.url, baseSeconds: 60, capSeconds: MAX_BACKOFF_VISIBILITY_SECONDS, random: () => 0.999_999 });
  const record = fromSqsRecord(sqsRecord('{}', { messageId: message.MessageId ?? '', receiptHandle: message.ReceiptHandle, receiveCount: 40, queueArn: queue.arn }));
  const { timeouts, failed } = await backoff.apply([record]);
  expect(timeouts.get(record.itemIdentifier)).toBe(MAX_BACKOFF_VISIBILITY_SECONDS);
  expect(failed).toEqual([]);
});
