/** Caps how many operations start per second (`--rate`), so a redrive does not flood a recovering consumer. */
import { setTimeout as sleep } from 'node:timers/promises';

export interface Pacer {
  /** Resolves when the next operation may start. */
  next(): Promise<void>;
}

export interface PacerClock {
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<unknown>;
}

const realClock: PacerClock = { now: () => Date.now(), sleep: (ms) => sleep(ms) };

/**
 * The n-th call of `next()` resolves no earlier than `start + n / perSecond` seconds: a steady
 * rate, without bursts after a slow operation. No rate means no waiting.
 */
export function createPacer(perSecond: number | undefined, clock: PacerClock = realClock): Pacer {
  if (perSecond === undefined || !Number.isFinite(perSecond)) return { next: async () => undefined };
  const intervalMs = 1000 / perSecond;
  let start: number | undefined;
  let started = 0;
  return {
    async next() {
      start ??= clock.now();
      const due = start + started * intervalMs;
      started += 1;
      const wait = due - clock.now();
      if (wait > 0) await clock.sleep(wait);
    },
  };
}
