import { setTimeout as sleep } from 'node:timers/promises';

/** What a driver can watch to tell that a mapping has gone quiet. */
export interface Quiescent {
  isIdle(): boolean;
  readonly lastActivityAt: number;
}

/** Options for {@link untilQuiet}. */
export interface UntilQuietOptions {
  /** How long every mapping must have been idle, with nothing seen. */
  readonly quietMs: number;
  /** Give up (throw) after this long. @default 60_000 */
  readonly timeoutMs?: number;
  /** How often to look. @default 50 */
  readonly intervalMs?: number;
}

/**
 * Resolves once every mapping is idle and none has seen anything for `quietMs`: the sources are
 * drained, or stuck on records that only time will release (a visibility timeout).
 *
 * @example
 * mapping.start();
 * await untilQuiet([mapping], { quietMs: 2_000 });
 * await mapping.stop();
 */
export async function untilQuiet(mappings: readonly Quiescent[], options: UntilQuietOptions): Promise<void> {
  const { quietMs, timeoutMs = 60_000, intervalMs = 50 } = options;
  const deadline = Date.now() + timeoutMs;
  const quiet = (): boolean => mappings.every((mapping) => mapping.isIdle() && Date.now() - mapping.lastActivityAt >= quietMs);
  while (!quiet()) {
    if (Date.now() >= deadline) throw new Error(`Mappings did not go quiet for ${quietMs} ms within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}
