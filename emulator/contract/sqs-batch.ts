/**
 * SQS's rules for a whole batch request (SendMessageBatch, DeleteMessageBatch,
 * ChangeMessageVisibilityBatch): 1..10 entries, ids of at most 80 of [A-Za-z0-9_-], distinct
 * ids, and for SendMessageBatch at most 1 MiB of messages together. Any of these refuses the
 * whole request (400); what is wrong with one entry only fails that entry (`batch-entries.ts`).
 * Messages as recorded from AWS: LocalStack's validated snapshots (too many entries, invalid id,
 * too long), localstack#1658 and aws-sdk-php#630 (empty), broadway_sqs#49 (repeated id).
 */
import { fail, firstFailure, OK, type CheckResult } from './aws-error';
import { SQS_LIMITS } from '../../aws/limits';
import { sqsError } from './sqs-errors';
import { sqsMessageBytes, type SqsMessageInput } from './sqs-message';

/** The SQS operations that take `Entries`. */
export const SQS_BATCH_OPERATIONS = ['SendMessageBatch', 'DeleteMessageBatch', 'ChangeMessageVisibilityBatch'] as const;

export type SqsBatchOperation = (typeof SQS_BATCH_OPERATIONS)[number];

/** One entry of a batch request: every kind has an `Id`; SendMessageBatch's carry a message. */
export interface SqsBatchEntry extends SqsMessageInput {
  readonly Id?: string;
  readonly ReceiptHandle?: string;
  readonly VisibilityTimeout?: number;
}

/** The part of a batch request that the rules read. */
export interface SqsBatchInput {
  readonly Entries?: readonly SqsBatchEntry[];
}

export const SQS_BATCH_RULES = {
  empty: 'sqs.batch.empty',
  tooMany: 'sqs.batch.too-many-entries',
  entryId: 'sqs.batch.entry-id',
  distinctIds: 'sqs.batch.distinct-ids',
  tooLong: 'sqs.batch.too-long',
} as const;

const ENTRY_ID = new RegExp(`^[A-Za-z0-9_-]{1,${SQS_LIMITS.maxBatchEntryIdLength}}$`);

/** True for the SQS operations that take `Entries`. */
export function isSqsBatchOperation(operation: string): operation is SqsBatchOperation {
  return (SQS_BATCH_OPERATIONS as readonly string[]).includes(operation);
}

/** The whole-request rules of a batch, in the order SQS applies them. */
export function checkSqsBatch(operation: SqsBatchOperation, input: SqsBatchInput): CheckResult {
  const entries = input.Entries ?? [];
  return firstFailure([
    () => checkCount(operation, entries.length),
    () => checkIds(entries),
    () => (operation === 'SendMessageBatch' ? checkTotalSize(entries) : OK),
  ]);
}

function checkCount(operation: SqsBatchOperation, count: number): CheckResult {
  if (count === 0) {
    return fail(sqsError(SQS_BATCH_RULES.empty, 'EmptyBatchRequest', `There should be at least one ${operation}RequestEntry in the request.`));
  }
  if (count <= SQS_LIMITS.maxBatchEntries) return OK;
  const message = `Maximum number of entries per request are ${SQS_LIMITS.maxBatchEntries}. You have sent ${count}.`;
  return fail(sqsError(SQS_BATCH_RULES.tooMany, 'TooManyEntriesInBatchRequest', message));
}

function checkIds(entries: readonly SqsBatchEntry[]): CheckResult {
  const seen = new Set<string>();
  for (const { Id: id = '' } of entries) {
    if (!ENTRY_ID.test(id)) {
      const message = `A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most ${SQS_LIMITS.maxBatchEntryIdLength} letters long.`;
      return fail(sqsError(SQS_BATCH_RULES.entryId, 'InvalidBatchEntryId', message));
    }
    if (seen.has(id)) return fail(sqsError(SQS_BATCH_RULES.distinctIds, 'BatchEntryIdsNotDistinct', `Id ${id} repeated.`));
    seen.add(id);
  }
  return OK;
}

// The batch limit is SQS's own maximum, not the queue's: a batch to a queue of 1,024 bytes may
// carry 2 KiB, and only its entries over 1,024 fail (LocalStack's `test_send_batch_message_size`).
function checkTotalSize(entries: readonly SqsBatchEntry[]): CheckResult {
  const total = entries.reduce((sum, entry) => sum + sqsMessageBytes(entry), 0);
  if (total <= SQS_LIMITS.maxBatchBytes) return OK;
  const message = `Batch requests cannot be longer than ${SQS_LIMITS.maxBatchBytes} bytes. You have sent ${total} bytes.`;
  return fail(sqsError(SQS_BATCH_RULES.tooLong, 'BatchRequestTooLong', message));
}
