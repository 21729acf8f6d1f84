import { PutRecordsCommand, type KinesisClient, type PutRecordsRequestEntry } from '@aws-sdk/client-kinesis';
import { SendMessageBatchCommand, type SendMessageBatchRequestEntry, type SQSClient } from '@aws-sdk/client-sqs';
import { fullJitterDelay, realSleep, DEFAULT_BACKOFF, type RetryOptions } from './backoff';
import type { Envelope } from './envelope';
import { eventIdFor } from './event-id';
import { classifyError } from './classify';
import { FailureKind, PublishError, PublishRejectedError } from './errors';
import { KINESIS_LIMITS, SQS_LIMITS } from '../../aws/limits';
import { isFifoId, isFifoQueue } from '../../aws/sqs/fifo';
import { createHash } from 'node:crypto';


/** Default attempts for a publish: retries resend only the entries that failed. */
export const DEFAULT_PUBLISH_ATTEMPTS = 5;

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
  /** Kinesis: the partition key; SQS FIFO: the message group; a standard queue: ignored. */
  readonly partitionKey?: string;
  readonly eventId?: string;
  /** SQS FIFO: the deduplication id. @default the event id */
  readonly deduplicationId?: string;
}

/** Serialises an envelope; the partition key defaults to the event id. */
export function outgoingMessage(envelope: Envelope<unknown>, partitionKey?: string): OutgoingMessage {
  return { body: JSON.stringify(envelope), partitionKey: partitionKey ?? envelope.eventId, eventId: envelope.eventId };
}

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
 * `.fifo`) each message goes in the group of its `partitionKey` (the event id when none), with
 * its event id as the deduplication id, so that a resend within SQS's 5 minutes is dropped.
 *
 * @throws PublishError naming the entries still failing after `maxAttempts`.
 */
export async function publishToSqs(sqs: SQSClient, queueUrl: string, messages: readonly OutgoingMessage[], retry: RetryOptions = {}): Promise<PublishResult> {
  const fifo = isFifoQueue(queueUrl);
  let retried = 0;
  for (let start = 0; start < messages.length; start += SQS_LIMITS.maxBatchEntries) {
    const entries = messages.slice(start, start + SQS_LIMITS.maxBatchEntries).map((message, position): SendMessageBatchRequestEntry => ({
      Id: String(start + position),
      MessageBody: message.body,
      MessageAttributes: message.eventId ? { eventId: { DataType: 'String', StringValue: message.eventId } } : undefined,
      ...(fifo && fifoIdsOf(message)),
    }));
    retried += await sendUntilAccepted(entries, retry, async (pending) => {
      const result = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: [...pending] }));
      const senderFaults = (result.Failed ?? []).filter((failure) => failure.SenderFault);
      if (senderFaults.length > 0) {
        throw new PublishRejectedError(`SQS rejected ${senderFaults.length} entries: ${senderFaults.map((f) => `${f.Id}: ${f.Code}`).join(', ')}`, senderFaults.map((f) => f.Id ?? ''));
      }
      const failedIds = new Set((result.Failed ?? []).map((failure) => failure.Id));
      return pending.filter((entry) => failedIds.has(entry.Id));
    });
  }
  return { sent: messages.length, retried };
}

/**
 * A FIFO message's group and deduplication id: the partition key (else the event id) and the
 * deduplication id (else the event id), each as it is when it fits FIFO's 128 characters, else
 * its SHA-256 (hex).
 * @throws RangeError for a message with neither, which a FIFO queue cannot take
 */
function fifoIdsOf(message: OutgoingMessage): { MessageGroupId: string; MessageDeduplicationId: string } {
  const group = message.partitionKey ?? message.eventId;
  const deduplication = message.deduplicationId ?? message.eventId;
  if (group === undefined || deduplication === undefined) throw new RangeError('a FIFO queue needs a message group and a deduplication id: give the message an eventId (and a partitionKey for its group)');
  return { MessageGroupId: fittedFifoId(group), MessageDeduplicationId: fittedFifoId(deduplication) };
}

function fittedFifoId(value: string): string {
  return isFifoId(value) ? value : createHash('sha256').update(value).digest('hex');
}

/**
 * Publishes to a Kinesis stream with `PutRecords`, 500 at a time, resending only the records whose
 * result carries an `ErrorCode` (throttled shards, internal failures).
 *
 * @throws PublishError naming the records still failing after `maxAttempts`.
 */
export async function publishToKinesis(kinesis: KinesisClient, streamName: string, messages: readonly OutgoingMessage[], retry: RetryOptions = {}): Promise<PublishResult> {
  let retried = 0;
  for (let start = 0; start < messages.length; start += KINESIS_LIMITS.maxRecords) {
    const entries = messages.slice(start, start + KINESIS_LIMITS.maxRecords).map((message, position): PutRecordsRequestEntry & { Id: string } => ({
      Id: String(start + position),
      Data: Buffer.from(message.body, 'utf8'),
      PartitionKey: message.partitionKey ?? message.eventId ?? String(start + position),
    }));
    retried += await sendUntilAccepted(entries, retry, async (pending) => {
      const result = await kinesis.send(new PutRecordsCommand({ StreamName: streamName, Records: pending.map(({ Data, PartitionKey }) => ({ Data, PartitionKey })) }));
      return pending.filter((_, position) => result.Records?.[position]?.ErrorCode);
    });
  }
  return { sent: messages.length, retried };
}

/** Sends, then resends whatever `send` returns as not accepted, with backoff; returns how many resends it made. */
export async function sendUntilAccepted<TEntry extends { Id?: string }>(
  entries: readonly TEntry[],
  retry: RetryOptions,
  send: (pending: readonly TEntry[]) => Promise<readonly TEntry[]>,
): Promise<number> {
  const { maxAttempts = DEFAULT_PUBLISH_ATTEMPTS, sleep = realSleep } = retry;
  let pending = entries;
  let resent = 0;
  for (let attempt = 0; attempt < maxAttempts; attempt += 1) {
    if (attempt > 0) {
      await sleep(fullJitterDelay(attempt - 1, { baseMs: retry.baseMs ?? DEFAULT_BACKOFF.baseMs, capMs: retry.capMs, random: retry.random }));
      resent += pending.length;
    }
    pending = await sendOrKeep(pending, send, attempt + 1 >= maxAttempts);
    if (pending.length === 0) return resent;
  }
  throw new PublishError(`${pending.length} entries still failing after ${maxAttempts} attempts`, pending.map((entry) => entry.Id ?? ''));
}

/** A whole request that fails transiently keeps all its entries pending; a permanent failure, or the last attempt's, is thrown. */
async function sendOrKeep<TEntry>(pending: readonly TEntry[], send: (pending: readonly TEntry[]) => Promise<readonly TEntry[]>, last: boolean): Promise<readonly TEntry[]> {
  try {
    return await send(pending);
  } catch (error) {
    if (last || classifyError(error) === FailureKind.PERMANENT) throw error;
    return pending;
  }
}
