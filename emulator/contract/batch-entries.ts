/**
 * The per-entry half of SQS's batch rules. Where one entry of a batch breaks a message rule
 * (its body, attributes, size or delay; a visibility timeout out of range), SQS does not refuse
 * the request: it answers 200 and lists that entry in `Failed` with `SenderFault: true`, and
 * handles the others (recorded from AWS: an invalid character, LocalStack's validated
 * `test_batch_send_with_invalid_char_should_succeed`; a message too long for the queue,
 * `test_send_batch_message_size`; a delay, aws-sdk-ruby#265). The proxy forwards the entries that
 * pass and merges the failures into the engine's answer.
 */
import type { CheckResult } from './aws-error';
import type { SqsFacts } from './facts';
import type { SqsBatchEntry, SqsBatchInput, SqsBatchOperation } from './sqs-batch';
import { checkSqsMessage } from './sqs-message';
import { checkVisibilityTimeout } from './sqs-ranges';

/** A `Failed` entry of an SQS batch answer (`BatchResultErrorEntry`). */
export interface SqsFailedEntry {
  readonly Id: string;
  readonly SenderFault: true;
  readonly Code: string;
  readonly Message: string;
  /** The contract rule that failed the entry; not part of SQS's answer, strip it if exactness matters. */
  readonly Rule?: string;
}

/** A ChangeMessageVisibilityBatch entry held to state the rules cannot see (SQS's 12-hour cap: `VisibilityBudget`). */
export type VisibilityCheck = (entry: SqsBatchEntry) => CheckResult;

/** A batch split by the per-entry rules. */
export interface SplitBatch<Entry extends SqsBatchEntry> {
  /** The entries to forward, in their order; when empty, answer `{ Successful: [], Failed: failed }` without the engine. */
  readonly forward: readonly Entry[];
  /** The entries SQS would fail, to merge into the engine's answer with `mergeFailedEntries`. */
  readonly failed: readonly SqsFailedEntry[];
}

/**
 * Splits a batch that passed `checkRequest` into what to forward and what SQS would fail.
 * Run it only after the whole-request rules: it assumes 1..10 entries with valid, distinct ids.
 * `visibility` also holds each ChangeMessageVisibilityBatch entry that passed the rules to what
 * the caller knows of its message (the gateway: SQS's 12-hour cap).
 *
 * @example
 * const { forward, failed } = splitSqsBatch('SendMessageBatch', input, { maximumMessageSize: 1024 });
 * const answer = forward.length === 0 ? { Successful: [], Failed: [] } : await engine({ ...input, Entries: forward });
 * return mergeFailedEntries(answer, failed);
 */
export function splitSqsBatch<Entry extends SqsBatchEntry>(
  operation: SqsBatchOperation,
  input: SqsBatchInput & { readonly Entries?: readonly Entry[] },
  facts: SqsFacts = {},
  visibility: VisibilityCheck = () => ({ ok: true }),
): SplitBatch<Entry> {
  const forward: Entry[] = [];
  const failed: SqsFailedEntry[] = [];
  for (const entry of input.Entries ?? []) {
    const checked = checkEntry(operation, entry, facts);
    const result = checked.ok && operation === 'ChangeMessageVisibilityBatch' ? visibility(entry) : checked;
    if (result.ok) forward.push(entry);
    else failed.push({ Id: entry.Id ?? '', SenderFault: true, Code: result.error.code, Message: result.error.message, Rule: result.error.rule });
  }
  return { forward, failed };
}

/** The engine's batch answer with `failed` added to its `Failed` list (engine's entries first). */
export function mergeFailedEntries<Answer extends { readonly Failed?: readonly unknown[] }>(answer: Answer, failed: readonly SqsFailedEntry[]): Answer {
  if (failed.length === 0) return answer;
  return { ...answer, Failed: [...(answer.Failed ?? []), ...failed.map(withoutRule)] };
}

function checkEntry(operation: SqsBatchOperation, entry: SqsBatchEntry, facts: SqsFacts): CheckResult {
  if (operation === 'SendMessageBatch') return checkSqsMessage(entry, facts, 'SendMessageBatch');
  if (operation === 'ChangeMessageVisibilityBatch') return checkVisibilityTimeout(entry.VisibilityTimeout);
  return { ok: true };
}

function withoutRule({ Id, SenderFault, Code, Message }: SqsFailedEntry): SqsFailedEntry {
  return { Id, SenderFault, Code, Message };
}
