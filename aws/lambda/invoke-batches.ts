/**
 * Records handed to a function by a synchronous Invoke, as an event source mapping hands them:
 * in batches of at most the mapping's size whose `{ "Records": [...] }` fits Lambda's synchronous
 * payload limit, and the answer read as the mapping reads a partial batch response (Developer
 * Guide: "Configuring partial batch response"): a function error, or an item identifier that is
 * not in the batch, fails the whole batch; otherwise the lowest record reported is where the
 * mapping would resume. `eo dlq redrive` (a table stream's records) and `eo replay` both use it.
 */
import { LAMBDA_LIMITS } from '../limits';

/** Room left in the payload for `{"Records":[` and `]}`. */
const ENVELOPE_BYTES = 32;

/**
 * The longest run at the head of `records` that one invocation can carry: at most `size` records
 * whose JSON, as `shapeOf` gives each, fits the payload limit; always at least one record.
 */
export function leadingBatch<T>(records: readonly T[], size: number, shapeOf: (record: T) => unknown = (record) => record): T[] {
  const batch: T[] = [];
  let bytes = 0;
  for (const record of records) {
    const recordBytes = Buffer.byteLength(JSON.stringify(shapeOf(record))) + 1;
    if (batch.length > 0 && (batch.length >= size || bytes + recordBytes > LAMBDA_LIMITS.maxSyncPayloadBytes - ENVELOPE_BYTES)) break;
    batch.push(record);
    bytes += recordBytes;
  }
  return batch;
}

/** `records` cut into {@link leadingBatch}es, in order. */
export function batchesOf<T>(records: readonly T[], size: number, shapeOf?: (record: T) => unknown): T[][] {
  const batches: T[][] = [];
  for (let rest = records; rest.length > 0; ) {
    const batch = leadingBatch(rest, size, shapeOf);
    batches.push(batch);
    rest = rest.slice(batch.length);
  }
  return batches;
}

/** Why a batch's answer fails some of it. */
export type BatchFailureKind = 'function-error' | 'unknown-identifier' | 'reported';

/** A synchronous invocation's answer, read as the mapping reads it. */
export interface BatchAnswer {
  /** The payload as a JSON object, when it is one. */
  readonly payload?: Record<string, unknown>;
  /**
   * The first record of the batch the answer fails, by position (0 for the whole batch), and why;
   * for a function error, `detail` says which and its message.
   */
  readonly failure?: { readonly position: number; readonly kind: BatchFailureKind; readonly detail?: string };
}

/** Reads `output` for a batch whose records the mapping names by `identifiers`, in order. */
export function readBatchAnswer(output: { readonly FunctionError?: string; readonly Payload?: Uint8Array }, identifiers: readonly string[]): BatchAnswer {
  const payload = payloadObject(output.Payload);
  if (output.FunctionError !== undefined) return { payload, failure: { position: 0, kind: 'function-error', detail: `the function failed (${output.FunctionError}): ${String(payload?.errorMessage ?? 'no message')}` } };
  const failures = payload?.batchItemFailures;
  if (failures === undefined || failures === null) return { payload };
  const reported = Array.isArray(failures) ? failures.map((failure) => (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier) : [undefined];
  const positions = reported.map((identifier) => identifiers.findIndex((candidate) => candidate === identifier));
  if (positions.includes(-1)) return { payload, failure: { position: 0, kind: 'unknown-identifier' } };
  if (positions.length === 0) return { payload };
  return { payload, failure: { position: Math.min(...positions), kind: 'reported' } };
}

function payloadObject(payload: Uint8Array | undefined): Record<string, unknown> | undefined {
  if (payload === undefined || payload.length === 0) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(payload).toString('utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
