/**
 * How an event source mapping reads one invocation's result: success, a partial batch response
 * (`{ batchItemFailures: [{ itemIdentifier }] }`), or a failure of the whole batch.
 */
import type { InvokeResult, Invoker } from '../types';

/** What one invocation means for its batch. */
export type InvocationOutcome =
  | { readonly kind: 'succeeded' }
  /** The function named these records (never an empty set) as failed. */
  | { readonly kind: 'partial'; readonly failed: ReadonlySet<string> }
  /** The whole batch failed: the function errored, or its partial response was unusable. */
  | { readonly kind: 'failed'; readonly reason: 'function-error' | 'invalid-response'; readonly detail: string };

const SUCCEEDED: InvocationOutcome = { kind: 'succeeded' };

/**
 * Reads `result` as Lambda does. Without `reportBatchItemFailures` a returned value is ignored
 * and only an error fails the batch. With it: no response, `{}`, or a null or empty
 * `batchItemFailures` mean success; an identifier that is not in `identifiers`, or a response of
 * the wrong shape, fail the whole batch.
 */
export function invocationOutcome(result: InvokeResult, identifiers: readonly string[], reportBatchItemFailures: boolean): InvocationOutcome {
  if (!result.ok) return { kind: 'failed', reason: 'function-error', detail: `${result.error.kind}: ${result.error.name}: ${result.error.message}` };
  if (!reportBatchItemFailures) return SUCCEEDED;
  return partialResponseOutcome(result.response, new Set(identifiers));
}

function partialResponseOutcome(response: unknown, inBatch: ReadonlySet<string>): InvocationOutcome {
  if (response === null || response === undefined) return SUCCEEDED;
  if (typeof response !== 'object' || Array.isArray(response)) return invalid(`response is not an object: ${describe(response)}`);
  const failures = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === null || failures === undefined) return SUCCEEDED;
  if (!Array.isArray(failures)) return invalid(`batchItemFailures is not an array: ${describe(failures)}`);
  if (failures.length === 0) return SUCCEEDED;
  const failed = new Set<string>();
  for (const failure of failures) {
    const identifier = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof identifier !== 'string' || identifier === '') return invalid(`bad batch item failure: ${describe(failure)}`);
    if (!inBatch.has(identifier)) return invalid(`itemIdentifier ${identifier} is not in the batch`);
    failed.add(identifier);
  }
  return { kind: 'partial', failed };
}

function invalid(detail: string): InvocationOutcome {
  return { kind: 'failed', reason: 'invalid-response', detail };
}

function describe(value: unknown): string {
  return (JSON.stringify(value) ?? String(value)).slice(0, 200);
}

/** Invokes, turning a rejected promise (a broken invoker) into a crash of the batch. */
export async function invokeSafely(invoke: Invoker, event: unknown): Promise<InvokeResult> {
  const started = Date.now();
  try {
    return await invoke(event);
  } catch (error) {
    const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
    return { ok: false, error: { kind: 'crash', name, message }, durationMs: Date.now() - started };
  }
}
