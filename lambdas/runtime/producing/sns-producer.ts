/**
 * Publishing to an SNS topic, for fan-out: every subscriber gets its own copy, and a consumer's
 * queue receives it wrapped in SNS's notification JSON, or as it is with raw delivery. A retried
 * `Publish` gets a new SNS `MessageId`: consumers dedup on the envelope's `eventId`, which the
 * retry keeps (docs/envelopes.md).
 */
import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import type { RetryOptions } from '../core/backoff';
import { PendingEntries } from './pending-entries';
import { fifoIdsOf, type OutgoingMessage, type PublishResult } from './producer';
import { sendUntilAccepted } from './resend';
import { isFifoTopic } from '../../../aws/sqs/fifo';

/** Publishes at most this many messages at once. */
const PUBLISH_CONCURRENCY = 8;

/**
 * Publishes to an SNS topic with one `Publish` per message (at most 8 at a time), each with an
 * `eventId` message attribute, which raw delivery passes on to SQS. A publish that fails
 * transiently is resent after full-jitter backoff, with the same body and so the same event id;
 * one that SNS refuses as the sender's fault is not.
 *
 * To a FIFO topic (its ARN ends in `.fifo`) each message goes in the group of its `partitionKey`
 * (the event id when none), with its event id as the deduplication id, as `publishToSqs` sends to
 * a FIFO queue; and the 8 in flight never hold two messages of one group: a message is published
 * only once every earlier one of its group was (a resend would otherwise land after its
 * successor). Messages of distinct groups are published side by side; `n` of one group, one by one.
 *
 * @throws the last attempt's error for a message still failing after `maxAttempts` (each publish is
 * one request, so it fails as a whole, as `publishToSqs` and `publishToKinesis` throw a request
 * failure), or SNS's refusal at once when it is the sender's fault; either way no later message of
 * its group is published.
 * @throws RangeError, before anything is published, for a message that a FIFO topic cannot take.
 */
export async function publishToSns(sns: SNSClient, topicArn: string, messages: readonly OutgoingMessage[], retry: RetryOptions = {}): Promise<PublishResult> {
  const fifo = isFifoTopic(topicArn);
  const groups = messages.map((message) => (fifo ? fifoIdsOf(message) : undefined));
  const pending = new PendingEntries(groups.map((ids) => ids?.MessageGroupId));
  let retried = 0;
  while (!pending.isEmpty) {
    const round = pending.next(PUBLISH_CONCURRENCY);
    const resends = await Promise.all(round.map((position) => publishOne(sns, { TopicArn: topicArn, ...groups[position] }, messages[position] as OutgoingMessage, String(position), retry)));
    pending.settle(round, []);
    retried += resends.reduce((sum, count) => sum + count, 0);
  }
  return { sent: messages.length, retried };
}

function publishOne(sns: SNSClient, target: { TopicArn: string; MessageGroupId?: string; MessageDeduplicationId?: string }, message: OutgoingMessage, id: string, retry: RetryOptions): Promise<number> {
  return sendUntilAccepted([{ Id: id }], retry, async () => {
    await sns.send(new PublishCommand({
      ...target,
      Message: message.body,
      MessageAttributes: message.eventId ? { eventId: { DataType: 'String', StringValue: message.eventId } } : undefined,
    }));
    return [];
  });
}
