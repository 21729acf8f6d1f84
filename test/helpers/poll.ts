import { setTimeout as sleep } from 'node:timers/promises';

/** Options for `pollUntil`. */
export interface PollOptions {
  /** @default 10_000 */
  readonly timeoutMs?: number;
  /** @default 50 */
  readonly intervalMs?: number;
}

/**
 * Calls `check` until it returns something other than `undefined`, and returns that. Throws,
 * naming `what`, if that does not happen within the timeout.
 *
 * @example
 * const item = await pollUntil(() => getItem(id), `item ${id} to appear`);
 */
export async function pollUntil<T>(
  check: () => Promise<T | undefined>,
  what: string,
  { timeoutMs = 10_000, intervalMs = 50 }: PollOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await check();
    if (result !== undefined) return result;
    if (Date.now() >= deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}
