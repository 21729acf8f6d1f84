/**
 * The machinery every polling loop shares: an abortable sleep, a backoff for engine errors, and
 * where log lines go.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Where a mapping reports what it logs and continues past (transient engine errors). */
export type MappingLog = (message: string, error?: unknown) => void;

/** The default log: a warning on stderr. */
export const warnOnConsole: MappingLog = (message, error) => {
  console.warn(`[event-source] ${message}`, ...(error === undefined ? [] : [error]));
};

/** First delay after an engine error; it doubles with each consecutive error. */
export const ENGINE_BACKOFF_BASE_MS = 100;

/** The longest delay between attempts after engine errors. */
export const ENGINE_BACKOFF_CAP_MS = 2_000;

/** The delay after `consecutiveErrors` engine errors in a row (1 or more). */
export function engineBackoffMs(consecutiveErrors: number): number {
  return Math.min(ENGINE_BACKOFF_CAP_MS, ENGINE_BACKOFF_BASE_MS * 2 ** Math.max(0, consecutiveErrors - 1));
}

/** Sleeps `ms`, or until `signal` aborts. True if the whole time passed, false if aborted. */
export async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `work` until it succeeds, logging each failure and backing off between attempts. Gives
 * up only when `signal` aborts, by rethrowing the last error.
 */
export async function retryUntilDone<T>(what: string, work: () => Promise<T>, signal: AbortSignal, log: MappingLog): Promise<T> {
  for (let failures = 1; ; failures++) {
    try {
      return await work();
    } catch (error) {
      if (signal.aborted) throw error;
      log(`${what} failed (attempt ${failures}); retrying`, error);
      if (!(await pause(engineBackoffMs(failures), signal))) throw error;
    }
  }
}
