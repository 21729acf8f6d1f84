/**
 * When the earliest copy of a DLQ entry's event entered its source: the earliest a dedup record of
 * the event can have been written, so the earliest it can expire (dedup-window.ts). Each kind of
 * entry tells it differently:
 * - a wrapper: the `eoFirstSentAt` a redrive carried on the copy, else the copy's `SentTimestamp`
 *   (SQS) or `ApproximateCreationDateTime` (a table's stream); for a Kinesis record the runtime
 *   keeps no arrival time, so its first failure, counted back by the stream's retention;
 * - the attribute fallback: its `eo-first-sent-at`, else its failure time, counted back;
 * - a message SQS moved: its `eoFirstSentAt`, else its `SentTimestamp`, which a standard queue's
 *   move keeps and a FIFO queue's resets (then counted back);
 * - a pointer or an archived batch: the arrival of the range's first record.
 * A count back by the source's retention is safe: a copy is only ever received while its source
 * still holds it.
 */
import type { Message } from '@aws-sdk/client-sqs';
import { DlqAttribute, type FailureEnvelope } from '../../aws/dlq-format';
import { epochMs, FIRST_SENT_ATTRIBUTE, firstSentOfOriginal, parseTime } from '../../aws/first-sent';
import type { StreamBatchInfo } from '../../aws/lambda/on-failure-record';

/** A time the dedup window counts from. */
export interface CopyTime {
  /** Epoch ms. */
  readonly at: number;
  /** What `at` is, in words for the operator. */
  readonly basis: string;
  /** `at` is a failure, not an arrival: the copy may have entered its source up to one retention before. */
  readonly countBack: boolean;
}

const sent = (at: number, basis: string): CopyTime => ({ at, basis, countBack: false });
const failed = (at: number, basis: string): CopyTime => ({ at, basis, countBack: true });

/** Of one of our wrappers. */
export function copyTimeOfWrapper(failure: FailureEnvelope): CopyTime {
  const first = firstSentOfOriginal(failure.original, failure.source.kind);
  if (first !== undefined) return sent(first, 'the event\'s first copy was sent');
  return failed(Date.parse(failure.firstFailureAt), 'it first failed');
}

/** Of the attribute fallback (`context`: its `eo-*` attributes). */
export function copyTimeOfAttributes(context: Readonly<Record<string, string>>, message: Message): CopyTime {
  const first = parseTime(context[DlqAttribute.FIRST_SENT_AT]);
  if (first !== undefined) return sent(first, 'the event\'s first copy was sent');
  return failed(parseTime(context[DlqAttribute.FAILED_AT]) ?? sentTimestampOf(message), 'it failed');
}

/** Of a message SQS moved; `fifo` when it moved from a FIFO queue (which resets the timestamp). */
export function copyTimeOfBare(message: Message, fifo: boolean): CopyTime {
  const carried = parseTime(message.MessageAttributes?.[FIRST_SENT_ATTRIBUTE]?.StringValue);
  if (carried !== undefined) return sent(carried, 'the event\'s first copy was sent');
  return fifo ? failed(sentTimestampOf(message), 'SQS moved it') : sent(sentTimestampOf(message), 'it was sent');
}

/** Of a pointer or an archived batch: its range's first arrival, or an earlier one among the records read. */
export function copyTimeOfRange(range: StreamBatchInfo, arrivals: readonly number[] = []): CopyTime {
  return sent(Math.min(Date.parse(range.approximateArrivalOfFirstRecord), ...arrivals), 'its first record arrived');
}

function sentTimestampOf(message: Message): number {
  return epochMs(message.Attributes?.SentTimestamp) ?? Date.now();
}
