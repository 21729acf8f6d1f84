import { classifyError } from './classify';
import { EffectInProgressError, FailureKind, OutOfTimeError, RetriesExhaustedError } from './errors';
import { UNLIMITED_TIME, type TimeBudget } from './time-budget';

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

/** In-process retries of a transient failure: how many attempts, and the full-jitter backoff between them. */
export interface RetryOptions extends BackoffOptions {
  /** Attempts in all, the first included. @default 3 */
  readonly maxAttempts?: number;
  /** @default setTimeout */
  readonly sleep?: Sleep;
  /** Called before each wait, e.g. to log. */
  readonly onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
  /** No retry is started, and no wait begun, that the invocation's time cannot cover. @default UNLIMITED_TIME */
  readonly budget?: TimeBudget;
  /**
   * Keep polling an idempotency lock that outlasts the budget until the budget is spent, rather
   * than give up at once. Ordered sources want this: nothing after the record can proceed anyway,
   * and a quick failure would use up a stream retry in milliseconds, where a spent invocation
   * leaves the next one a lock that has expired. @default false
   */
  readonly holdOnLocks?: boolean;
  /** @default Date.now */
  readonly now?: () => number;
}

/**
 * The longest idempotency lock the retries wait out without counting attempts: a lock expires
 * with the invocation that holds it, and no invocation lasts longer than Lambda's 15 minutes.
 */
export const MAX_LOCK_WAIT_MS = 15 * 60 * 1000;

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
 *
 * Time: a retry that the `budget` cannot cover is not started; the last error is thrown as the
 * cause of an {@link OutOfTimeError}. An {@link EffectInProgressError} (another invocation holds
 * the effect's lock) does not use up an attempt while its lock is held: the retries poll until the
 * lock is released or expires. When the lock outlasts the budget, that error is thrown as it is
 * (at once, or once the budget is spent with `holdOnLocks`), so that the source redelivers the
 * record after `retryAt`. A failure whose {@link SlowRetryHint} has `waitOutMs` (a database
 * resuming) is waited out the same way, up to that long in all, within the budget.
 */
export async function withRetries<T>(operation: (attempt: number) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const { maxAttempts = DEFAULT_BACKOFF.maxAttempts, sleep = realSleep, onRetry, budget = UNLIMITED_TIME } = options;
  let attempt = 0;
  let waitedOutMs = 0;
  for (let round = 0; ; round += 1) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (classifyError(error) === FailureKind.PERMANENT) throw error;
      const wait = nextWait(error, attempt, round, options, waitedOutMs);
      if (wait.usesAttempt) attempt += 1;
      if (wait.waitsOut) waitedOutMs += wait.delayMs;
      if (attempt >= maxAttempts) throw new RetriesExhaustedError(attempt, error);
      if (!options.holdOnLocks && wait.lockedForMs >= budget.remainingMs()) throw error;
      if (wait.delayMs >= budget.remainingMs()) throw wait.usesAttempt ? new OutOfTimeError(budget.remainingMs(), { cause: error }) : error;
      onRetry?.(error, round + 1, wait.delayMs);
      await sleep(wait.delayMs);
    }
  }
}

/**
 * A failure that knows it needs longer waits than the retries' own (a database resuming from zero
 * capacity): its `retryBackoff` replaces the options' `baseMs` and `capMs` for the wait after it.
 * With `waitOutMs`, it is a state to wait out rather than a failed attempt: such waits use up no
 * attempt until they add up to `waitOutMs` (the budget still bounds each one), and grow with each
 * wait as a lock's polls do.
 */
export interface SlowRetryHint {
  readonly retryBackoff: Pick<BackoffOptions, 'baseMs' | 'capMs'> & { readonly waitOutMs?: number };
}

/** The backoff a failure asks for ({@link SlowRetryHint}), if any. */
function hintOf(error: unknown): SlowRetryHint['retryBackoff'] | undefined {
  return typeof error === 'object' && error !== null ? (error as Partial<SlowRetryHint>).retryBackoff : undefined;
}

/** How long to wait before trying again, and whether this failure uses up an attempt; `waitedOutMs`: what such waits took so far. */
function nextWait(error: unknown, attempt: number, round: number, options: RetryOptions, waitedOutMs: number): { delayMs: number; usesAttempt: boolean; lockedForMs: number; waitsOut?: boolean } {
  const now = (options.now ?? Date.now)();
  const hint = hintOf(error);
  const backoff = hint === undefined ? options : { ...options, ...hint };
  if (hint?.waitOutMs !== undefined && waitedOutMs < hint.waitOutMs) {
    const delayMs = Math.min(fullJitterDelay(Math.min(round, 52), backoff), hint.waitOutMs - waitedOutMs);
    return { delayMs, usesAttempt: false, lockedForMs: 0, waitsOut: true };
  }
  const lockedForMs = error instanceof EffectInProgressError && error.retryAt ? error.retryAt.getTime() - now : 0;
  if (lockedForMs <= 0 || lockedForMs > MAX_LOCK_WAIT_MS) return { delayMs: fullJitterDelay(attempt, backoff), usesAttempt: true, lockedForMs: 0 };
  // Poll the lock with growing waits, but never past its expiry: its holder may finish any moment.
  return { delayMs: Math.min(fullJitterDelay(Math.min(round, 52), options), lockedForMs + 1), usesAttempt: false, lockedForMs };
}
