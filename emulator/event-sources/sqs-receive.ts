/**
 * How an SQS poller gathers a batch: long-poll for the first messages, then keep receiving until
 * the batch is full or the batching window closes. And how it deletes what succeeded.
 */
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import { pause, type MappingLog } from './polling';
import { SQS_LIMITS } from '../../aws/limits';

/** SQS hands out at most this many messages per ReceiveMessage, and deletes this many per call. */
export const SQS_MAX_PER_CALL = SQS_LIMITS.maxBatchEntries;

/** Lambda's pollers long-poll with the longest wait SQS allows. */
export const SQS_LONG_POLL_SECONDS = 20;

/** Below a second of window left, a poller short-polls this often. */
const SHORT_POLL_INTERVAL_MS = 50;

/** Where and how much to receive. */
export interface ReceiveTarget {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  /** Stops receiving; a long poll in progress is abandoned. */
  readonly signal: AbortSignal;
  readonly log: MappingLog;
  /** The received messages' visibility timeout. @default - the queue's */
  readonly visibilityTimeoutSeconds?: number;
}

/** One ReceiveMessage with all system and message attributes. */
export async function receiveMessages(target: ReceiveTarget, max: number, waitSeconds: number): Promise<Message[]> {
  const { Messages = [] } = await target.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: target.queueUrl,
      MaxNumberOfMessages: Math.min(SQS_MAX_PER_CALL, max),
      WaitTimeSeconds: waitSeconds,
      VisibilityTimeout: target.visibilityTimeoutSeconds,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    }),
    { abortSignal: target.signal },
  );
  return Messages;
}

/**
 * Adds to `first` until there are `batchSize` messages or `windowMs` has passed. If the target is
 * stopped meanwhile, returns what it has: those messages are in hand and will be delivered.
 */
export async function fillBatch(target: ReceiveTarget, first: readonly Message[], batchSize: number, windowMs: number): Promise<Message[]> {
  const batch = [...first];
  const deadline = Date.now() + windowMs;
  while (batch.length < batchSize && !target.signal.aborted) {
    const remainingMs = deadline - Date.now();
    if (remainingMs <= 0) break;
    const waitSeconds = Math.min(SQS_LONG_POLL_SECONDS, Math.floor(remainingMs / 1000));
    const more = await receiveMessages(target, batchSize - batch.length, waitSeconds).catch((error: unknown) => {
      if (!target.signal.aborted) target.log(`ReceiveMessage on ${target.queueUrl} failed while filling a batch`, error);
      return undefined;
    });
    if (more !== undefined && more.length > 0) batch.push(...more);
    // An empty long poll has already waited; an empty short poll or an error has not.
    if (more === undefined || (more.length === 0 && waitSeconds === 0)) await pause(Math.min(SHORT_POLL_INTERVAL_MS, remainingMs), target.signal);
  }
  return batch;
}

/**
 * Deletes the messages with these receipt handles, ten per call. Returns how many SQS reported
 * deleted. fauxqs, like SQS, reports a stale receipt handle as deleted without deleting.
 */
export async function deleteMessages(sqs: SQSClient, queueUrl: string, receiptHandles: readonly string[]): Promise<number> {
  let deleted = 0;
  for (let start = 0; start < receiptHandles.length; start += SQS_MAX_PER_CALL) {
    const chunk = receiptHandles.slice(start, start + SQS_MAX_PER_CALL);
    const { Successful = [] } = await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: chunk.map((ReceiptHandle, index) => ({ Id: String(index), ReceiptHandle })),
      }),
    );
    deleted += Successful.length;
  }
  return deleted;
}
