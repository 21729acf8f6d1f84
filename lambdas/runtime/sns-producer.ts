/**
 * Publishing to an SNS topic, for fan-out: every subscriber gets its own copy, and a consumer's
 * queue receives it wrapped in SNS's notification JSON, or as it is with raw delivery. A retried
 * `Publish` gets a new SNS `MessageId`: consumers dedup on the envelope's `eventId`, which the
 * retry keeps (docs/envelopes.md).
 */
import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import type { RetryOptions } from './backoff';
import type { OutgoingMessage, PublishResult } from './producer';
import { sendUntilAccepted } from './resend';

/** Publishes at most this many messages at once. */
const PUBLISH_CONCURRENCY = 8;

/**
 * Publishes to an SNS topic with one `Publish` per message (at most 8 at a time), each with an
 * `eventId` message attribute, which raw delivery passes on to SQS. A publish that fails
 * transiently is resent after full-jitter backoff, with the same body and so the same event id;
 * one that SNS refuses as the sender's fault is not.
 *
 * @throws the last attempt's error for a message still failing after `maxAttempts` (each publish is
 * one request, so it fails as a whole, as `publishToSqs` and `publishToKinesis` throw a request
 * failure), or SNS's refusal at once when it is the sender's fault
 */
export async function publishToSns(sns: SNSClient, topicArn: string, messages: readonly OutgoingMessage[], retry: RetryOptions = {}): Promise<PublishResult> {
  let retried = 0;
  for (let start = 0; start < messages.length; start += PUBLISH_CONCURRENCY) {
    const group = messages.slice(start, start + PUBLISH_CONCURRENCY);
    const resends = await Promise.all(group.map((message, position) => publishOne(sns, topicArn, message, String(start + position), retry)));
    retried += resends.reduce((sum, count) => sum + count, 0);
  }
  return { sent: messages.length, retried };
}

function publishOne(sns: SNSClient, topicArn: string, message: OutgoingMessage, id: string, retry: RetryOptions): Promise<number> {
  return sendUntilAccepted([{ Id: id }], retry, async () => {
    await sns.send(new PublishCommand({
      TopicArn: topicArn,
      Message: message.body,
      MessageAttributes: message.eventId ? { eventId: { DataType: 'String', StringValue: message.eventId } } : undefined,
    }));
    return [];
  });
}
