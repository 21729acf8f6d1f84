import type { Random } from '../types';

/**
 * A seeded generator (mulberry32): small, fast and good enough to draw fault decisions; the same
 * seed gives the same sequence, so a seed reproduces a run's faults.
 */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** True with probability `rate` (0..1). */
export function chance(random: Random, rate: number): boolean {
  return rate > 0 && random() < rate;
}

/** An integer in [0, n). */
export function pick(random: Random, n: number): number {
  return Math.floor(random() * n);
}
