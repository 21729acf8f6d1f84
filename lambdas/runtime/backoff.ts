import { classifyError } from './classify';
import { FailureKind, RetriesExhaustedError } from './errors';

/** Defaults shared by the code and its documentation. */
export const DEFAULT_BACKOFF = {
  baseMs: 50,
  capMs: 2_000,
  maxAttempts: 3,
} as const;

/** A source of uniform random numbers in [0, 1): `Math.random` unless a test injects one. */
export type RandomSource = () => number;
/** Waits for a number of milliseconds: a timer unless a test injects one. */
export type Sleep = (ms: number) => Promise<void>;

export interface BackoffOptions {
  /** First ceiling of the delay, in ms. @default 50 */
  readonly baseMs?: number;
  /** Largest delay ceiling, in ms. @default 2000 */
  readonly capMs?: number;
  /** @default Math.random */
  readonly random?: RandomSource;
}

export interface RetryOptions extends BackoffOptions {
  /** Attempts in all, the first included. @default 3 */
  readonly maxAttempts?: number;
  /** @default setTimeout */
  readonly sleep?: Sleep;
  /** Called before each wait, e.g. to log. */
  readonly onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Exponential backoff with full jitter: a uniform draw from `[0, min(cap, base * 2 ** attempt))`.
 * Full jitter spreads retries of many clients evenly instead of in synchronized waves.
 *
 * @param attempt - 0 for the first retry.
 * @example fullJitterDelay(3, { baseMs: 100, capMs: 5000 }) // somewhere in [0, 800)
 */
export function fullJitterDelay(attempt: number, options: BackoffOptions = {}): number {
  const { baseMs = DEFAULT_BACKOFF.baseMs, capMs = DEFAULT_BACKOFF.capMs, random = Math.random } = options;
  if (!Number.isInteger(attempt) || attempt < 0) throw new RangeError(`attempt must be an integer >= 0 (given ${attempt})`);
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(attempt, 52));
  return Math.floor(random() * ceiling);
}

/**
 * Runs `operation` until it succeeds, retrying transient failures with full-jitter backoff.
 * Permanent failures are thrown at once: retrying them only burns the retry budget. When the
 * attempts run out, throws {@link RetriesExhaustedError} with the last error as its cause.
 */
export async function withRetries<T>(operation: (attempt: number) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const { maxAttempts = DEFAULT_BACKOFF.maxAttempts, sleep = realSleep, onRetry } = options;
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (classifyError(error) === FailureKind.PERMANENT) throw error;
      if (attempt + 1 >= maxAttempts) throw new RetriesExhaustedError(attempt + 1, error);
      const delayMs = fullJitterDelay(attempt, options);
      onRetry?.(error, attempt + 1, delayMs);
      await sleep(delayMs);
    }
  }
}
