/**
 * How long the messages of a batch that a poller holds stay invisible, when local mode has scaled
 * the queue's visibility timeout down.
 *
 * On AWS a batch cannot reappear while Lambda gathers or runs it: the consumer constructs refuse a
 * visibility timeout below 6x the function timeout plus the batching window. Local mode scales the
 * queue's timeout down (181 s to 3 s at the demo's 1/60) so that a message nobody deletes comes
 * back quickly, while the batching window, the cold start and the run stay real. So the poller
 * receives with a visibility timeout of its own, the hold, which covers them (the stack sets it by
 * the constructs' rule applied to the local function timeout), and when it lets a batch go without
 * deleting it (a failed invocation, the crash fault, the slow fault) it sets those messages'
 * visibility to the scaled timeout, so that they come back as soon as they did before.
 *
 * A hold set by the receive needs no later call. A heartbeat that extended the scaled timeout while
 * the batch was held (the keeper this replaced) ran on the event loop of the process it kept
 * invisible, and on a busy 2-core machine that loop and its requests stalled for seconds: the
 * timeout lapsed under a running invocation, another poller received the batch, and the first
 * delete carried stale receipt handles, which SQS and fauxqs answer as deleted without deleting.
 * One 15 s stall spends five receives of 3 s; SQS's redrive policy then moved events that had been
 * applied to the DLQ with no context (docs/reliability.md, "Chaos schedules", finding 4).
 *
 * Not covered:
 * - A message that the function reports without changing its visibility comes back when the hold
 *   ends, not after the scaled timeout (the runtime always sets a backoff on what it reports).
 * - The crash fault's batch of an invocation that set the visibility of messages it did not report
 *   gets the scaled timeout instead; and so does a failed invocation's whole batch.
 * - A long poll that `stop()` abandons may still be handed messages: they stay invisible for the hold.
 * - A stall longer than the hold still lets the batch reappear.
 */
import { ChangeMessageVisibilityBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { SQS_VISIBILITY_TIMEOUT_FACTOR } from '../../aws/limits';
import type { MappingLog } from './polling';
import { SQS_MAX_PER_CALL } from './sqs-receive';

/** Where the poller lets a batch go, and to what visibility. */
export interface LetGoTarget {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  /** The queue's (scaled) visibility timeout: let go, a message comes back after it. */
  readonly visibilityTimeoutSeconds: number;
  readonly log: MappingLog;
}

/**
 * Sets the visibility of the messages with these receipt handles to the scaled timeout, ten per
 * call. A failure is logged, not thrown: those messages then come back when their hold ends.
 */
export async function letGo(target: LetGoTarget, receiptHandles: readonly string[]): Promise<void> {
  const { sqs, queueUrl, visibilityTimeoutSeconds, log } = target;
  for (let start = 0; start < receiptHandles.length; start += SQS_MAX_PER_CALL) {
    const Entries = receiptHandles.slice(start, start + SQS_MAX_PER_CALL).map((ReceiptHandle, index) => ({ Id: String(index), ReceiptHandle, VisibilityTimeout: visibilityTimeoutSeconds }));
    try {
      const { Failed = [] } = await sqs.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries }));
      if (Failed.length > 0) log(`letting ${Failed.length} held messages of ${queueUrl} go failed: ${Failed.map((entry) => entry.Code).join(', ')}`);
    } catch (error) {
      log(`letting held messages of ${queueUrl} go failed`, error);
    }
  }
}

/** The hold the stack gives an SQS mapping: the constructs' rule, 6x the function timeout plus the window, on local timings. */
export function holdSecondsFor(functionTimeoutSeconds: number, batchingWindowSeconds: number): number {
  return Math.ceil(SQS_VISIBILITY_TIMEOUT_FACTOR * functionTimeoutSeconds + batchingWindowSeconds);
}
