/**
 * Rebuilds the message a consumer originally received, for `SendMessage` to its source queue:
 * the original body byte for byte (so the envelope and its `eventId` are unchanged) and the
 * original message attributes. The failure wrapper and the `eo-*` context attributes stay behind;
 * the copy gains {@link FIRST_SENT_ATTRIBUTE}, when the event's first copy was sent.
 */
import { createHash } from 'node:crypto';
import { SendMessageCommand, type Message, type MessageAttributeValue, type SendMessageCommandInput, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSMessageAttributes } from 'aws-lambda';
import { DlqAttribute, type FailureEnvelope } from '../../aws/dlq-format';
import { isFifoQueue } from '../../aws/sqs/fifo';
import { FIRST_SENT_ATTRIBUTE } from '../../aws/first-sent';
import { SQS_LIMITS } from '../../aws/limits';
import { sqsMessageBytes } from '../../aws/sqs/message-size';

/** The attribute the producer library sets; restored from `eo-event-id` when only the context survived. */
const EVENT_ID_ATTRIBUTE = 'eventId';

/** What to send for one of our wrappers. */
export function messageFromWrapper(failure: FailureEnvelope): Pick<SendMessageCommandInput, 'MessageBody' | 'MessageAttributes'> {
  return { MessageBody: failure.original.body, MessageAttributes: fromLambdaAttributes(failure.original.messageAttributes) };
}

/** What to send for the attribute fallback: the body is the original; the `eo-*` context is dropped. */
export function messageFromAttributeFallback(message: Message): Pick<SendMessageCommandInput, 'MessageBody' | 'MessageAttributes'> {
  const eventId = message.MessageAttributes?.[DlqAttribute.EVENT_ID]?.StringValue;
  return { MessageBody: message.Body ?? '', MessageAttributes: eventId ? { [EVENT_ID_ATTRIBUTE]: { DataType: 'String', StringValue: eventId } } : undefined };
}

/** What to send for a message SQS moved: it is the original already. */
export function messageFromBare(message: Message): Pick<SendMessageCommandInput, 'MessageBody' | 'MessageAttributes'> {
  const attributes = message.MessageAttributes && Object.keys(message.MessageAttributes).length > 0 ? message.MessageAttributes : undefined;
  return { MessageBody: message.Body ?? '', MessageAttributes: attributes };
}

/** Lambda's attribute shape (`stringValue`, base64 `binaryValue`) back to the SQS API's. */
export function fromLambdaAttributes(attributes: SQSMessageAttributes | undefined): Record<string, MessageAttributeValue> | undefined {
  const entries = Object.entries(attributes ?? {}).map(([name, value]): [string, MessageAttributeValue] => [
    name,
    {
      DataType: value.dataType,
      ...(value.stringValue !== undefined && { StringValue: value.stringValue }),
      ...(value.binaryValue !== undefined && { BinaryValue: Buffer.from(value.binaryValue, 'base64') }),
    },
  ]);
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/** A copy with the time of the event's first copy on it, or as it was with why not. */
export interface CarriedCopy {
  readonly message: Pick<SendMessageCommandInput, 'MessageBody' | 'MessageAttributes'>;
  /** Why the time could not travel with the copy. */
  readonly note?: string;
}

/**
 * Sets {@link FIRST_SENT_ATTRIBUTE} on a copy for its source queue, so that a redrive of it after
 * it failed again counts its dedup window from the event's first copy (dedup-window.ts). Not when
 * SQS would refuse it: the copy has 10 attributes already, or the attribute would take it past
 * the queue's maximum message size.
 */
export function withFirstSent(message: CarriedCopy['message'], firstSentAt: number, maxMessageBytes: number): CarriedCopy {
  const without = (why: string): CarriedCopy => ({ message, note: `the copy does not carry when the event was first sent (${why}): a redrive of it after it fails again counts from this republish` });
  if (!Number.isFinite(firstSentAt)) return without('that time is not known');
  const attributes = { ...message.MessageAttributes, [FIRST_SENT_ATTRIBUTE]: { DataType: 'String', StringValue: new Date(firstSentAt).toISOString() } };
  if (Object.keys(attributes).length > SQS_LIMITS.maxAttributes) return without(`it has SQS's ${SQS_LIMITS.maxAttributes} message attributes already`);
  if (sqsMessageBytes(message.MessageBody ?? '', attributes) > maxMessageBytes) return without(`the attribute would take it past the queue's ${maxMessageBytes} bytes`);
  return { message: { ...message, MessageAttributes: attributes } };
}

/**
 * Sends to the source queue. A FIFO queue needs the original group and a deduplication id: the
 * DLQ message's id, so that a redrive repeated within SQS's 5-minute window is dropped by SQS. A
 * standard queue gets the original group id back when there was one: there it names the
 * message's tenant (SQS fair queues), and a redrive keeps the tenant as it keeps the body.
 */
export async function sendToQueue(sqs: SQSClient, queueUrl: string, message: Pick<SendMessageCommandInput, 'MessageBody' | 'MessageAttributes'>, dlqMessage: Message, groupId?: string): Promise<void> {
  const group = groupId || dlqMessage.Attributes?.MessageGroupId || undefined;
  const ids = isFifoQueue(queueUrl)
    ? { MessageGroupId: group ?? 'redrive', MessageDeduplicationId: createHash('sha256').update(dlqMessage.MessageId ?? '').digest('hex') }
    : { ...(group !== undefined && { MessageGroupId: group }) };
  await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, ...message, ...ids }));
}
