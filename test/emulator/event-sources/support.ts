/**
 * In-process functions for mapping tests: each records the events it was invoked with and
 * answers what the test says, so a test controls every outcome.
 */
import type { DeliveryDecision, DeliveryFaults, InvokeResult } from '../../../emulator/types';

/** A successful invocation returning `response`. */
export function returned(response?: unknown): InvokeResult {
  return { ok: true, response, durationMs: 1 };
}

/** An invocation whose handler threw. */
export function threw(message = 'boom'): InvokeResult {
  return { ok: false, error: { kind: 'error', name: 'Error', message }, durationMs: 1 };
}

/** A partial batch response naming these identifiers. */
export function failedItems(...identifiers: string[]): InvokeResult {
  return returned({ batchItemFailures: identifiers.map((itemIdentifier) => ({ itemIdentifier })) });
}

/** A function that records its events; `respond` decides each answer from the records (and the call number, from 1). */
export interface RecordingFunction<R> {
  readonly invoke: (event: unknown) => Promise<InvokeResult>;
  /** The records of each invocation, in order. */
  readonly batches: R[][];
}

export function recordingFunction<R>(respond: (records: R[], call: number) => InvokeResult = () => returned()): RecordingFunction<R> {
  const batches: R[][] = [];
  return {
    batches,
    invoke: async (event) => {
      const records = (event as { Records: R[] }).Records;
      batches.push(records);
      return respond(records, batches.length);
    },
  };
}

/** Faults that apply `decision` to the first batch only. */
export function firstBatchFaults(decision: DeliveryDecision): DeliveryFaults & { readonly decided: number } {
  let decided = 0;
  return {
    get decided() {
      return decided;
    },
    decide: () => (decided++ === 0 ? decision : {}),
  };
}

/** Starts `mapping`, runs `body`, and stops the mapping however `body` ends. */
export async function whileRunning<T>(mapping: { start(): void; stop(): Promise<void> }, body: () => Promise<T>): Promise<T> {
  mapping.start();
  try {
    return await body();
  } finally {
    await mapping.stop();
  }
}
