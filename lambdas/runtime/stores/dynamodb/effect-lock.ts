/**
 * The in-progress lock of an external effect: how long one call holds it, and the clock that
 * Powertools computes its expiry from.
 *
 * Powertools (2.x, `IdempotencyHandler` and `BasePersistenceLayer.saveInProgress`) stores a lock's
 * expiry as `Date.now() + config.lambdaContext.getRemainingTimeInMillis()` when it writes the
 * INPROGRESS record, and its conditional put takes a record over once that time has passed. With
 * no context in its config, or a remaining time of 0, it stores no expiry: a record left by a crash
 * then blocks the key until the record's TTL (the dedup TTL: weeks). A negative remaining time (a
 * context whose invocation is over) stores an expiry already past: the lock holds nothing back.
 */
import type { Context } from 'aws-lambda';
import { MAX_LOCK_WAIT_MS } from '../../core/backoff';
import { ConfigurationError } from '../../core/errors';
import { remainingMsOf } from '../../core/time-budget';

/**
 * How long a call with no usable Lambda context (or on Lambda Managed Instances) holds its
 * effect's lock, in ms: 15 minutes, the longest a Lambda invocation can run, so that a lock
 * outlives any invocation that could still be running the effect on Lambda's default compute. It
 * is also the longest lock the retries wait out (`MAX_LOCK_WAIT_MS`). On Managed Instances a
 * timeout does not stop the code: set `lockMs` above the effect's longest run there.
 */
export const DEFAULT_EFFECT_LOCK_MS = MAX_LOCK_WAIT_MS;

/**
 * The variable Lambda sets on Lambda Managed Instances, where one execution environment takes up
 * to that many invocations at once, and a timeout reports the invocation failed without stopping
 * its code.
 */
export const MANAGED_INSTANCES_ENV = 'AWS_LAMBDA_MAX_CONCURRENCY';

/** What Powertools reads from the context it is given: only its clock. */
type LockClock = Pick<Context, 'getRemainingTimeInMillis'>;

/** Whether a timeout stops this process's code: not on Lambda Managed Instances ({@link MANAGED_INSTANCES_ENV} set). */
export function codeStopsAtDeadline(env: NodeJS.ProcessEnv = process.env): boolean {
  const maxConcurrency = env[MANAGED_INSTANCES_ENV];
  return maxConcurrency === undefined || maxConcurrency.trim() === '';
}

/**
 * How long one call holds the lock: until its invocation's deadline where the code stops there, or
 * `lockMs` when it has no context, one whose clock says nothing (see `remainingMsOf`), or runs on
 * Managed Instances. There the deadline only means "start no new work": a stream retries the
 * timed-out batch at once, and a lock that expired at the deadline would let the retry run the
 * effect again while this call still runs it (an email sent twice).
 */
export function effectLockMs(lambdaContext: LockClock | undefined, lockMs: number, env: NodeJS.ProcessEnv = process.env): number {
  if (!codeStopsAtDeadline(env)) return lockMs;
  return remainingMsOf(lambdaContext) ?? lockMs;
}

/**
 * The context to put in one call's Powertools config: a clock counting down to the expiry fixed
 * when the call starts. It reads at least 1 ms, since Powertools stores no expiry for 0.
 */
export function lockClock(lambdaContext: LockClock | undefined, lockMs: number, now: () => number = Date.now): Context {
  const expiresAt = now() + effectLockMs(lambdaContext, lockMs);
  const clock: LockClock = { getRemainingTimeInMillis: () => Math.max(1, expiresAt - now()) };
  // Powertools types the field as a whole Context but reads nothing from it besides the clock.
  return clock as Context;
}

/** @throws ConfigurationError naming the value, for a lock that is not a whole number of ms in 1..MAX_LOCK_WAIT_MS */
export function checkLockMs(lockMs: number | undefined): void {
  if (lockMs === undefined || (Number.isInteger(lockMs) && lockMs >= 1 && lockMs <= MAX_LOCK_WAIT_MS)) return;
  throw new ConfigurationError(`idempotentEffect: lockMs must be a whole number of ms in 1..${MAX_LOCK_WAIT_MS} (given ${lockMs})`);
}
