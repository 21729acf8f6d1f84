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
 * How long a call with no usable Lambda context holds its effect's lock, in ms: 15 minutes, the
 * longest a Lambda invocation can run, so that a lock outlives any invocation that could still be
 * running the effect. It is also the longest lock the retries wait out (`MAX_LOCK_WAIT_MS`).
 */
export const DEFAULT_EFFECT_LOCK_MS = MAX_LOCK_WAIT_MS;

/** What Powertools reads from the context it is given: only its clock. */
type LockClock = Pick<Context, 'getRemainingTimeInMillis'>;

/**
 * How long one call holds the lock: until its invocation's deadline, or `lockMs` when it has no
 * context or one whose clock says nothing (see `remainingMsOf`).
 */
export function effectLockMs(lambdaContext: LockClock | undefined, lockMs: number): number {
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
