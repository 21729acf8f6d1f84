/**
 * Reads every message of a queue without consuming it: receive with a visibility timeout until the
 * queue is empty, then make them all visible again. Triage and verification read DLQs this way so
 * that a later redrive still finds every message.
 */
import { ChangeMessageVisibilityBatchCommand, DeleteMessageBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import { SQS_LIMITS } from '../limits';

/** Long enough to sweep a large DLQ; shortened again at the end. */
const PEEK_VISIBILITY_SECONDS = 60;

/** Every message currently visible in the queue, with all attributes; the queue is left as it was. */
export async function peekAll(sqs: SQSClient, queueUrl: string, limit = 100_000): Promise<Message[]> {
  const seen = new Map<string, Message>();
  for (;;) {
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: SQS_LIMITS.maxReceiveMessages,
      VisibilityTimeout: PEEK_VISIBILITY_SECONDS,
      WaitTimeSeconds: 0,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    }));
    if (Messages.length === 0 || seen.size >= limit) break;
    for (const message of Messages) seen.set(message.MessageId ?? '', message);
  }
  await release(sqs, queueUrl, [...seen.values()]);
  return [...seen.values()];
}

/** Makes received messages visible again at once. */
export async function release(sqs: SQSClient, queueUrl: string, messages: readonly Message[]): Promise<void> {
  for (let start = 0; start < messages.length; start += SQS_LIMITS.maxBatchEntries) {
    const entries = messages.slice(start, start + SQS_LIMITS.maxBatchEntries).map((message, i) => ({ Id: String(i), ReceiptHandle: message.ReceiptHandle, VisibilityTimeout: 0 }));
    await sqs.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
  }
}

/** Deletes received messages. */
export async function deleteMessages(sqs: SQSClient, queueUrl: string, messages: readonly Message[]): Promise<void> {
  for (let start = 0; start < messages.length; start += SQS_LIMITS.maxBatchEntries) {
    const entries = messages.slice(start, start + SQS_LIMITS.maxBatchEntries).map((message, i) => ({ Id: String(i), ReceiptHandle: message.ReceiptHandle }));
    await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
  }
}

/** Visible plus in-flight messages. */
export async function depthOf(sqs: SQSClient, queueUrl: string): Promise<{ visible: number; inFlight: number }> {
  const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({
    QueueUrl: queueUrl,
    AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
  }));
  return { visible: Number(Attributes.ApproximateNumberOfMessages ?? 0), inFlight: Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0) };
}
