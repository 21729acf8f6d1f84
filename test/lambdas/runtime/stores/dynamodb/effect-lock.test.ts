/**
 * The options `idempotentEffect` refuses, and how long one call holds its effect's lock: what
 * Powertools is handed to compute the in-progress expiry from. No engine is needed: nothing here
 * reaches DynamoDB (the client is built, never sent a request), and the clock is injected.
 * external-effects.int.test.ts shows the locks on DynamoDB Local.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import { DEFAULT_EFFECT_LOCK_MS, idempotentEffect, type ExternalEffectOptions } from '../../../../../lambdas/runtime';
import { MAX_LOCK_WAIT_MS } from '../../../../../lambdas/runtime/core/backoff';
import { effectLockMs, lockClock } from '../../../../../lambdas/runtime/stores/dynamodb/effect-lock';

const dynamodb = new DynamoDBClient({ region: 'us-east-1' });
afterAll(() => dynamodb.destroy());

function wrap(options: Partial<ExternalEffectOptions>) {
  return () => idempotentEffect(async () => 'sent', { table: 't', dynamodb, consumer: 'c', ...options });
}

function contextWith(remainingMs: number): Pick<Context, 'getRemainingTimeInMillis'> {
  return { getRemainingTimeInMillis: () => remainingMs };
}

describe('the options idempotentEffect refuses', () => {
  test.each([
    ['no consumer', { consumer: '' }, 'needs the consumer'],
    ['a TTL of 0', { expiresAfterSeconds: 0 }, 'expiresAfterSeconds must be a whole number of seconds > 0 (given 0)'],
    ['a lock of 0 ms', { lockMs: 0 }, 'lockMs must be a whole number of ms in 1..900000 (given 0)'],
    ['a negative lock', { lockMs: -5 }, 'lockMs must be a whole number of ms in 1..900000 (given -5)'],
    ['a fraction of a ms', { lockMs: 1.5 }, 'lockMs must be a whole number of ms in 1..900000 (given 1.5)'],
    ['a lock that is not a number', { lockMs: Number.NaN }, 'lockMs must be a whole number of ms in 1..900000 (given NaN)'],
    ['a lock longer than Lambda\'s longest invocation', { lockMs: MAX_LOCK_WAIT_MS + 1 }, 'lockMs must be a whole number of ms in 1..900000 (given 900001)'],
    ['an endless lock', { lockMs: Number.POSITIVE_INFINITY }, 'lockMs must be a whole number of ms in 1..900000 (given Infinity)'],
  ])('refuses %s', (_label, options, message) => {
    expect(wrap(options)).toThrow(message);
  });

  test.each([1, 60_000, MAX_LOCK_WAIT_MS])('accepts a lock of %i ms', (lockMs) => {
    expect(wrap({ lockMs })).not.toThrow();
  });
});

describe('how long a call holds the lock', () => {
  test('the default is the longest a Lambda invocation can run, 15 minutes', () => {
    expect(DEFAULT_EFFECT_LOCK_MS).toBe(15 * 60 * 1000);
  });

  test('with a Lambda context: until the invocation\'s deadline', () => {
    expect(effectLockMs(contextWith(30_000), 60_000)).toBe(30_000);
  });

  test('on Lambda Managed Instances, where a timeout does not stop the code: lockMs, whatever the deadline (issue 40)', () => {
    expect(effectLockMs(contextWith(30_000), 60_000, { AWS_LAMBDA_MAX_CONCURRENCY: '64' })).toBe(60_000);
    expect(effectLockMs(contextWith(-5_000), 60_000, { AWS_LAMBDA_MAX_CONCURRENCY: '8' })).toBe(60_000);
    // Unset or blank: Lambda's default compute, whose timeout stops the code.
    expect(effectLockMs(contextWith(30_000), 60_000, {})).toBe(30_000);
    expect(effectLockMs(contextWith(30_000), 60_000, { AWS_LAMBDA_MAX_CONCURRENCY: ' ' })).toBe(30_000);
  });

  test.each([
    ['no context', undefined],
    ['a context with no time left', contextWith(0)],
    ['a context of an invocation long over', contextWith(-60_000)],
    ['a context whose clock says nothing', contextWith(Number.NaN)],
    ['a context without a clock', {} as Pick<Context, 'getRemainingTimeInMillis'>],
  ])('with %s: lockMs', (_label, context) => {
    expect(effectLockMs(context, 60_000)).toBe(60_000);
  });
});

describe('the clock Powertools reads the lock expiry from', () => {
  test('counts down to the expiry fixed when the call started, whatever the caller\'s context reads later', () => {
    let now = 1_000_000;
    let callerRemainingMs = 30_000;
    const clock = lockClock({ ...contextWith(30_000), getRemainingTimeInMillis: () => callerRemainingMs } as Context, 60_000, () => now);
    now += 10_000;
    callerRemainingMs = -1;
    expect(clock.getRemainingTimeInMillis()).toBe(20_000);
  });

  test('never reads 0, for which Powertools would store no expiry at all', () => {
    let now = 1_000_000;
    const clock = lockClock(undefined, 1_000, () => now);
    now += 5_000;
    expect(clock.getRemainingTimeInMillis()).toBe(1);
  });
});
