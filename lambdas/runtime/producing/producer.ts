import { PutRecordsCommand, type KinesisClient, type PutRecordsRequestEntry } from '@aws-sdk/client-kinesis';
import { SendMessageBatchCommand, type SendMessageBatchRequestEntry, type SQSClient } from '@aws-sdk/client-sqs';
import type { RetryOptions } from '../core/backoff';
import type { Envelope } from '../events/envelope';
import { eventIdFor } from '../events/event-id';
import { PublishRejectedError } from '../core/errors';
import { sendUntilAccepted } from './resend';
import { KINESIS_LIMITS, SQS_LIMITS } from '../../../aws/limits';
import { isFifoId, isFifoQueue } from '../../../aws/sqs/fifo';
import { createHash } from 'node:crypto';

/** What {@link createEnvelope} makes an envelope of; its `eventId` derives from `type` and `businessKey`. */
export interface EnvelopeInput<TPayload> {
  readonly type: string;
  /** What makes this event this event; the event id derives from it. */
  readonly businessKey: string;
  readonly source: string;
  readonly payload: TPayload;
  /** @default now */
  readonly occurredAt?: string;
}

/** Builds an envelope whose `eventId` derives from `type` and the business key, so that every retry reuses it. */
export function createEnvelope<TPayload>(input: EnvelopeInput<TPayload>): Envelope<TPayload> {
  return {
    eventId: eventIdFor(input.type, input.businessKey),
    type: input.type,
    occurredAt: input.occurredAt ?? new Date().toISOString(),
    source: input.source,
    payload: input.payload,
  };
}

/** A serialised event to publish; `body` may be anything (tests publish broken bodies on purpose). */
export interface OutgoingMessage {
  readonly body: string;
  /**
   * The order key. Kinesis: the partition key; an SQS FIFO queue or SNS FIFO topic: the message
   * group; a standard queue or topic: ignored. Messages of one key are accepted in publish order.
   */
  readonly partitionKey?: string;
  /**
   * The SQS `MessageGroupId`. On a standard queue it names the message's tenant for SQS fair
   * queues (SQS Developer Guide, "Amazon SQS fair queues"): SQS keeps one tenant's backlog from
   * delaying the others' messages; it gives no order and does not make the queue FIFO. On a FIFO
   * queue or SNS FIFO topic it is the message group, in place of `partitionKey`. Sent as it is
   * when it fits SQS's 128 alphanumeric and punctuation characters, else as its SHA-256 (hex).
   * Kinesis ignores it.
   * @default - a standard queue: no tenant (SQS treats the message as a tenant of its own);
   * a FIFO queue or topic: the group of `partitionKey`
   */
  readonly messageGroupId?: string;
  readonly eventId?: string;
  /** SQS FIFO: the deduplication id. @default the event id */
  readonly deduplicationId?: string;
}

/**
 * Serialises an envelope; the partition key defaults to the event id. To name a tenant on a
 * standard (fair) queue, add `messageGroupId`.
 * @example
 * ```ts
 * import { SQSClient } from '@aws-sdk/client-sqs';
 * import { createEnvelope, outgoingMessage, publishToSqs } from 'effectively-once/runtime';
 * const envelope = createEnvelope({ type: 'order.placed', businessKey: 'o-42', source: 'shop', payload: { total: 12 } });
 * const tenantId = 'acme';
 * const message = { ...outgoingMessage(envelope), messageGroupId: `tenant-${tenantId}` };
 * await publishToSqs(new SQSClient({}), 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders', [message]);
 * ```
 */
export function outgoingMessage(envelope: Envelope<unknown>, partitionKey?: string): OutgoingMessage {
  return { body: JSON.stringify(envelope), partitionKey: partitionKey ?? envelope.eventId, eventId: envelope.eventId };
}

/** What a `publishTo*` call did: the entries sent, and how many of them needed a resend. */
export interface PublishResult {
  /** Entries sent, retries not counted twice. */
  readonly sent: number;
  /** Entries that had to be resent after a partial failure. */
  readonly retried: number;
}

/**
 * Publishes to an SQS queue with `SendMessageBatch`, 10 at a time. When some entries fail, only
 * those are resent, after full-jitter backoff; their bodies (and so their event ids) never change.
 * Entries that SQS rejects as the sender's fault are not retried. To a FIFO queue (its URL ends in
 * `.fifo`) each message goes in the group of its `messageGroupId`, else its `partitionKey`, else
 * its event id, with its event id as the deduplication id, so that a resend within SQS's 5
 * minutes is dropped. To a standard queue a message with a `messageGroupId` carries it as its
 * tenant (SQS fair queues); the queue stays unordered and the messages still go 10 at a time.
 *
 * Order in a FIFO queue: a message goes out only once every earlier message of its group was
 * accepted, so a request holds at most one message per group and a resend never lands after a
 * later message of its group. Messages of distinct groups share requests (with the default
 * group, the event id, every message is its own group); `n` messages of one group take `n`
 * requests. A standard queue keeps no order: its messages go 10 at a time as they come.
 *
 * @throws PublishError once a message has failed `maxAttempts` times, naming every message not
 * accepted: later messages of its group were held back, and are not sent after it.
 * @throws PublishRejectedError when SQS rejects messages as the sender's fault; nothing more is
 * sent, so no later message of their groups either. Messages of other groups in the same request
 * may have been accepted.
 * @throws RangeError, before anything is sent, for a message that a FIFO queue cannot take.
 */
export async function publishToSqs(sqs: SQSClient, queueUrl: string, messages: readonly OutgoingMessage[], retry: RetryOptions = {}): Promise<PublishResult> {
  const fifo = isFifoQueue(queueUrl);
  const entries = messages.map((message, position) => sqsEntryOf(message, String(position), fifo));
  const retried = await sendUntilAccepted(entries, retry, (pending) => sendSqsBatch(sqs, queueUrl, pending), {
    maxPerRequest: SQS_LIMITS.maxBatchEntries,
    orderKeyOf: fifo ? (entry) => entry.MessageGroupId : undefined,
  });
  return { sent: messages.length, retried };
}

function sqsEntryOf(message: OutgoingMessage, id: string, fifo: boolean): SendMessageBatchRequestEntry & { Id: string } {
  return {
    Id: id,
    MessageBody: message.body,
    MessageAttributes: message.eventId ? { eventId: { DataType: 'String', StringValue: message.eventId } } : undefined,
    ...(fifo ? fifoIdsOf(message) : tenantOf(message)),
  };
}

/** A standard queue's fair-queue tenant: the message's group id, when it names one. */
function tenantOf(message: OutgoingMessage): { MessageGroupId?: string } {
  return message.messageGroupId === undefined ? {} : { MessageGroupId: fittedFifoId(message.messageGroupId) };
}

/** One `SendMessageBatch`; returns the entries that failed, or throws the sender's faults. */
async function sendSqsBatch<TEntry extends SendMessageBatchRequestEntry>(sqs: SQSClient, queueUrl: string, pending: readonly TEntry[]): Promise<readonly TEntry[]> {
  const result = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: [...pending] }));
  const senderFaults = (result.Failed ?? []).filter((failure) => failure.SenderFault);
  if (senderFaults.length > 0) {
    throw new PublishRejectedError(`SQS rejected ${senderFaults.length} entries: ${senderFaults.map((f) => `${f.Id}: ${f.Code}`).join(', ')}`, senderFaults.map((f) => f.Id ?? ''));
  }
  const failedIds = new Set((result.Failed ?? []).map((failure) => failure.Id));
  return pending.filter((entry) => failedIds.has(entry.Id));
}

/**
 * A FIFO message's group and deduplication id, for an SQS FIFO queue or an SNS FIFO topic (both
 * take the same ids): the message group id (else the partition key, else the event id) and the
 * deduplication id (else the event id), each as it is when it fits FIFO's 128 characters, else
 * its SHA-256 (hex).
 * @throws RangeError for a message with neither, which a FIFO queue or topic cannot take
 */
export function fifoIdsOf(message: OutgoingMessage): { MessageGroupId: string; MessageDeduplicationId: string } {
  const group = message.messageGroupId ?? message.partitionKey ?? message.eventId;
  const deduplication = message.deduplicationId ?? message.eventId;
  if (group === undefined || deduplication === undefined) throw new RangeError('a FIFO queue or topic needs a message group and a deduplication id: give the message an eventId (and a partitionKey for its group)');
  return { MessageGroupId: fittedFifoId(group), MessageDeduplicationId: fittedFifoId(deduplication) };
}

function fittedFifoId(value: string): string {
  return isFifoId(value) ? value : createHash('sha256').update(value).digest('hex');
}

/**
 * Publishes to a Kinesis stream with `PutRecords`, 500 at a time, resending only the records whose
 * result carries an `ErrorCode` (throttled shards, internal failures).
 *
 * Order per partition key: a record goes out only once every earlier record of its partition key
 * was accepted, so a request holds at most one record per key and a resend never lands after a
 * later record of its key (`PutRecords` itself keeps no order between the records of a request
 * when some fail). Records of distinct keys share requests (with the default key, the event id,
 * every record has its own); `n` records of one key take `n` requests.
 *
 * @throws PublishError once a record has failed `maxAttempts` times, naming every record not
 * accepted: later records of its key were held back, and are not sent after it.
 */
export async function publishToKinesis(kinesis: KinesisClient, streamName: string, messages: readonly OutgoingMessage[], retry: RetryOptions = {}): Promise<PublishResult> {
  const entries = messages.map((message, position): KinesisEntry => ({
    Id: String(position),
    Data: Buffer.from(message.body, 'utf8'),
    PartitionKey: message.partitionKey ?? message.eventId ?? String(position),
  }));
  return { sent: messages.length, retried: await putRecordsInOrder(kinesis, streamName, entries, retry) };
}

/** A record to put, with an `Id` that a {@link PublishError} names it by. */
export type KinesisEntry = PutRecordsRequestEntry & { readonly Id: string; readonly PartitionKey: string };

/**
 * Puts the records with `PutRecords`, 500 at a time, resending those not accepted, in order per
 * partition key (as {@link publishToKinesis} says); `onPut` hears of each record Kinesis accepted,
 * with its sequence number. Returns how many resends it made.
 */
export function putRecordsInOrder(kinesis: KinesisClient, streamName: string, entries: readonly KinesisEntry[], retry: RetryOptions, onPut?: (entry: KinesisEntry, sequenceNumber: string | undefined) => void): Promise<number> {
  return sendUntilAccepted(entries, retry, async (pending) => {
    const result = await kinesis.send(new PutRecordsCommand({ StreamName: streamName, Records: pending.map(({ Data, PartitionKey }) => ({ Data, PartitionKey })) }));
    const outcomes = pending.map((entry, position) => ({ entry, outcome: result.Records?.[position] }));
    outcomes.filter(({ outcome }) => !outcome?.ErrorCode).forEach(({ entry, outcome }) => onPut?.(entry, outcome?.SequenceNumber));
    return outcomes.filter(({ outcome }) => outcome?.ErrorCode).map(({ entry }) => entry);
  }, { maxPerRequest: KINESIS_LIMITS.maxRecords, orderKeyOf: (entry) => entry.PartitionKey });
}
