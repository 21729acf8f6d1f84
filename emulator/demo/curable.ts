/**
 * What the demo's fix-and-redrive phase sends back from the DLQs: what the deployed fix or time
 * cures. Malformed bodies and unknown event types stay (no redrive can fix them), and so do
 * messages SQS moved without context (their events are accounted for by the verification).
 */
import { FailureKind } from '../../lambdas/runtime';
import { EntryKind, type DlqEntry, type EntryFilter } from '../../operations/dlq';

/** Errors the deployed fix cures: the counter accepts schema 2 once `ACCEPT_SCHEMA_V2` is set. */
export const CURED_BY_THE_FIX: readonly string[] = ['SchemaViolationError'];

/**
 * The runtime's transient errors by name: retries ran out (`RetriesExhaustedError`), the
 * invocation's time budget ran out (`OutOfTimeError`), an idempotency lock was held by another
 * invocation (`EffectInProgressError`). Only for DLQ messages that carry no error kind (the
 * attribute fallback); our wrappers say `error.kind` themselves.
 */
export const TRANSIENT_ERROR_NAMES: readonly string[] = ['RetriesExhaustedError', 'OutOfTimeError', 'EffectInProgressError'];

/** A failure the fix or time cures: cured by the fix, or transient by its kind (or, without a kind, its name). */
export function isCurableFailure(name: string, kind?: string): boolean {
  if (CURED_BY_THE_FIX.includes(name)) return true;
  return kind === undefined ? TRANSIENT_ERROR_NAMES.includes(name) : kind === FailureKind.TRANSIENT;
}

/** Whether the redrive should send this DLQ message back. Lambda's stream on-failure pointers and archived batches always: time cures them. */
export function isCurable(entry: DlqEntry): boolean {
  switch (entry.kind) {
    case EntryKind.POINTER:
      return true;
    case EntryKind.ARCHIVED:
      return entry.failure !== undefined;
    case EntryKind.WRAPPER:
      return isCurableFailure(entry.failure.error.name, entry.failure.error.kind);
    case EntryKind.ATTRIBUTES:
      return isCurableFailure(entry.errorType);
    case EntryKind.BARE:
    case EntryKind.TARGET_FAILURE:
    case EntryKind.MALFORMED:
      return false;
  }
}

/**
 * The `dlq redrive` filter that selects the curable messages of one DLQ, or undefined when there
 * are none. The filter selects by error type (a pointer's is its on-failure condition), not by
 * kind, so an error type that also names an incurable message is left out altogether: the
 * redrive never sends back what it should not.
 */
export function redriveFilter(entries: readonly DlqEntry[]): EntryFilter | undefined {
  const curable = new Set(entries.filter(isCurable).map((entry) => entry.errorType));
  for (const entry of entries) if (!isCurable(entry)) curable.delete(entry.errorType);
  return curable.size === 0 ? undefined : { errorType: [...curable].sort() };
}
