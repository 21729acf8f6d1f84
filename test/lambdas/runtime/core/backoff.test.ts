/**
 * Exponential backoff with full jitter, and the in-process retry loop built on it. The
 * statistical checks use a seeded PRNG so that they are reproducible; the sleep is injected, so no
 * test waits for real.
 */
import { DEFAULT_BACKOFF, fullJitterDelay, MAX_LOCK_WAIT_MS, withRetries, type BackoffOptions } from '../../../../lambdas/runtime/core/backoff';
import { classifyError } from '../../../../lambdas/runtime/core/classify';
import { EffectInProgressError, FailureKind, OutOfTimeError, PermanentError, RetriesExhaustedError, SchemaViolationError, TransientError } from '../../../../lambdas/runtime/core/errors';
import type { TimeBudget } from '../../../../lambdas/runtime/core/time-budget';
import { awsError, recordingSleep, seededRandom } from '../../../helpers/fakes';

const DRAWS = 20_000;
const BUCKETS = 10;
/** Chi-square critical value for 9 degrees of freedom at p = 0.001. */
const CHI_SQUARE_9_DOF_P001 = 27.88;

function ceilingOf(attempt: number, { baseMs = DEFAULT_BACKOFF.baseMs, capMs = DEFAULT_BACKOFF.capMs }: BackoffOptions = {}): number {
  return Math.min(capMs, baseMs * 2 ** attempt);
}

function draw(attempt: number, options: BackoffOptions): number[] {
  return Array.from({ length: DRAWS }, () => fullJitterDelay(attempt, options));
}

function chiSquare(delays: readonly number[], ceiling: number): number {
  const observed = new Array<number>(BUCKETS).fill(0);
  for (const delay of delays) observed[Math.floor((delay * BUCKETS) / ceiling)] += 1;
  const expected = delays.length / BUCKETS;
  return observed.reduce((sum, count) => sum + (count - expected) ** 2 / expected, 0);
}

describe('fullJitterDelay draws uniformly from [0, min(cap, base * 2^attempt))', () => {
  const settings: [string, BackoffOptions][] = [
    ['the defaults (base 50 ms, cap 2 s)', {}],
    ['base 100 ms, cap 10 s', { baseMs: 100, capMs: 10_000 }],
  ];

  describe.each(settings)('with %s', (_label, options) => {
    test.each([0, 1, 2, 3, 4, 5, 6, 8])('attempt %i', (attempt) => {
      const ceiling = ceilingOf(attempt, options);
      const delays = draw(attempt, { ...options, random: seededRandom(1_000 + attempt) });

      expect(delays.every((delay) => Number.isInteger(delay) && delay >= 0 && delay < ceiling)).toBe(true);

      const mean = delays.reduce((sum, delay) => sum + delay, 0) / delays.length;
      expect(Math.abs(mean - ceiling / 2)).toBeLessThan(0.03 * ceiling);

      expect(Math.min(...delays)).toBeLessThanOrEqual(0.01 * ceiling);
      expect(Math.max(...delays)).toBeGreaterThanOrEqual(0.99 * ceiling - 1);

      expect(chiSquare(delays, ceiling)).toBeLessThan(CHI_SQUARE_9_DOF_P001);
    });
  });

  test('the default random source (Math.random) stays within the ceiling too', () => {
    for (const attempt of [0, 3, 7]) {
      const delays = Array.from({ length: 5_000 }, () => fullJitterDelay(attempt));
      const ceiling = ceilingOf(attempt);
      expect(delays.every((delay) => delay >= 0 && delay < ceiling)).toBe(true);
      expect(new Set(delays).size).toBeGreaterThan(1);
    }
  });

  test('the ceiling doubles with each attempt until the cap', () => {
    const nearlyOne = () => 0.999_999;
    const highest = [0, 1, 2, 3, 4, 5, 6].map((attempt) => fullJitterDelay(attempt, { baseMs: 100, capMs: 5_000, random: nearlyOne }));
    expect(highest).toEqual([99, 199, 399, 799, 1_599, 3_199, 4_999]);
  });

  test.each([30, 52, 53, 100, 10_000])('the cap holds at attempt %i and the delay stays a finite number', (attempt) => {
    const delays = draw(attempt, { baseMs: 50, capMs: 2_000, random: seededRandom(attempt) });
    expect(delays.every((delay) => Number.isFinite(delay) && delay >= 0 && delay < 2_000)).toBe(true);
    expect(Math.max(...delays)).toBeGreaterThan(1_900);
  });

  test('a random draw of 0 gives no delay at all: full jitter may retry at once', () => {
    expect(fullJitterDelay(5, { random: () => 0 })).toBe(0);
  });

  test('the delay is the draw scaled to the ceiling, rounded down', () => {
    expect(fullJitterDelay(3, { baseMs: 100, capMs: 5_000, random: () => 0.5 })).toBe(400);
    expect(fullJitterDelay(0, { baseMs: 100, capMs: 5_000, random: () => 0.259 })).toBe(25);
  });

  test.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, -0.5])('attempt %p is a RangeError that names the value', (attempt) => {
    expect(() => fullJitterDelay(attempt)).toThrow(RangeError);
    expect(() => fullJitterDelay(attempt)).toThrow(String(attempt));
  });
});

describe('withRetries', () => {
  const throttled = () => awsError('ThrottlingException', 400, 'Rate exceeded');

  test('returns the first success without sleeping', async () => {
    const sleep = recordingSleep();
    const operation = jest.fn(async () => 'done');
    await expect(withRetries(operation, { sleep })).resolves.toBe('done');
    expect(operation).toHaveBeenCalledTimes(1);
    expect(sleep.delays).toEqual([]);
  });

  test('retries transient errors, sleeping a jittered delay before each retry', async () => {
    const sleep = recordingSleep();
    const onRetry = jest.fn();
    let calls = 0;
    const operation = jest.fn(async (_attempt: number) => {
      calls += 1;
      if (calls < 3) throw throttled();
      return 'committed';
    });

    const result = await withRetries(operation, { sleep, onRetry, baseMs: 100, capMs: 5_000, random: () => 0.5, maxAttempts: 5 });

    expect(result).toBe('committed');
    expect(operation.mock.calls.map(([attempt]) => attempt)).toEqual([0, 1, 2]);
    expect(sleep.delays).toEqual([50, 100]);
    expect(onRetry.mock.calls.map(([error, attempt, delay]) => [(error as Error).name, attempt, delay])).toEqual([
      ['ThrottlingException', 1, 50],
      ['ThrottlingException', 2, 100],
    ]);
  });

  test('the delays it sleeps are jittered draws below each attempt\'s ceiling', async () => {
    const delaysByRun: number[][] = [];
    for (let run = 0; run < 200; run += 1) {
      const sleep = recordingSleep();
      await expect(withRetries(async () => Promise.reject(throttled()), { sleep, maxAttempts: 5, random: seededRandom(run) })).rejects.toThrow(RetriesExhaustedError);
      delaysByRun.push(sleep.delays);
    }
    for (const delays of delaysByRun) {
      expect(delays).toHaveLength(4);
      delays.forEach((delay, attempt) => expect(delay).toBeLessThan(ceilingOf(attempt)));
    }
    const firstDelays = new Set(delaysByRun.map((delays) => delays[0]));
    expect(firstDelays.size).toBeGreaterThan(20);
  });

  test.each([
    ['our PermanentError', new PermanentError('cannot ever work')],
    ['a schema violation', new SchemaViolationError('page.viewed', ['pageId: Required'])],
    ['an SDK validation error (400)', awsError('ValidationException', 400)],
    ['an SDK access denied error (403)', awsError('AccessDeniedException', 403)],
  ])('throws %s at once, without retrying or sleeping', async (_label, error) => {
    const sleep = recordingSleep();
    const operation = jest.fn(async () => Promise.reject(error));
    await expect(withRetries(operation, { sleep, maxAttempts: 5 })).rejects.toBe(error);
    expect(operation).toHaveBeenCalledTimes(1);
    expect(sleep.delays).toEqual([]);
  });

  test('a permanent error after transient ones is thrown as it is, not as RetriesExhaustedError', async () => {
    const permanent = new PermanentError('gone');
    const errors = [throttled(), permanent];
    const operation = jest.fn(async () => Promise.reject(errors.shift()));
    await expect(withRetries(operation, { sleep: recordingSleep(), maxAttempts: 5 })).rejects.toBe(permanent);
    expect(operation).toHaveBeenCalledTimes(2);
  });

  test('throws RetriesExhaustedError with the last error as its cause after maxAttempts', async () => {
    const sleep = recordingSleep();
    const errors = [1, 2, 3, 4].map((n) => awsError('InternalServerError', 500, `failure ${n}`));
    let call = 0;
    const operation = jest.fn(async () => Promise.reject(errors[call++]));

    const failure = await withRetries(operation, { sleep, maxAttempts: 4 }).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(RetriesExhaustedError);
    const exhausted = failure as RetriesExhaustedError;
    expect(exhausted.attempts).toBe(4);
    expect(exhausted.cause).toBe(errors[3]);
    expect(exhausted.message).toContain('4 attempts');
    expect(exhausted.message).toContain('failure 4');
    expect(operation).toHaveBeenCalledTimes(4);
    expect(sleep.delays).toHaveLength(3);
  });

  test('RetriesExhaustedError is itself transient: the record is reported for redelivery, not sent to the DLQ', () => {
    const exhausted = new RetriesExhaustedError(3, new Error('timeout'));
    expect(exhausted).toBeInstanceOf(TransientError);
    expect(classifyError(exhausted)).toBe(FailureKind.TRANSIENT);
  });

  test(`makes ${DEFAULT_BACKOFF.maxAttempts} attempts by default`, async () => {
    const operation = jest.fn(async () => Promise.reject(new Error('socket hang up')));
    await expect(withRetries(operation, { sleep: recordingSleep() })).rejects.toThrow(RetriesExhaustedError);
    expect(operation).toHaveBeenCalledTimes(DEFAULT_BACKOFF.maxAttempts);
  });

  test('maxAttempts 1 means no retry at all', async () => {
    const sleep = recordingSleep();
    const operation = jest.fn(async () => Promise.reject(throttled()));
    await expect(withRetries(operation, { sleep, maxAttempts: 1 })).rejects.toMatchObject({ name: 'RetriesExhaustedError', attempts: 1 });
    expect(operation).toHaveBeenCalledTimes(1);
    expect(sleep.delays).toEqual([]);
  });

  test('unknown failures (a thrown string, a plain Error) count as transient and are retried', async () => {
    const failures: unknown[] = ['connection reset', new Error('socket hang up')];
    const operation = jest.fn(async () => {
      if (failures.length > 0) throw failures.shift();
      return 'ok';
    });
    await expect(withRetries(operation, { sleep: recordingSleep(), maxAttempts: 3 })).resolves.toBe('ok');
    expect(operation).toHaveBeenCalledTimes(3);
  });
});

/** A clock that the injected sleep moves forward, so that time passes only when the retries wait. */
function fakeClock(start = 1_000_000) {
  let now = start;
  const delays: number[] = [];
  return {
    now: () => now,
    sleep: async (ms: number) => {
      delays.push(ms);
      now += ms;
    },
    advance: (ms: number) => (now += ms),
    delays,
  };
}

/** A budget that ends at `endsAt` on the fake clock. */
function budgetUntil(clock: ReturnType<typeof fakeClock>, endsAt: number): TimeBudget {
  return { remainingMs: () => Math.max(0, endsAt - clock.now()), exhausted: () => clock.now() >= endsAt };
}

describe('withRetries within the invocation\'s time', () => {
  const throttled = () => awsError('ThrottlingException', 400, 'Rate exceeded');

  test('no retry starts that the budget cannot cover: the last error is the cause of an OutOfTimeError', async () => {
    const clock = fakeClock();
    const operation = jest.fn(async () => Promise.reject(throttled()));
    const budget = budgetUntil(clock, clock.now() + 40);
    const failure = await withRetries(operation, { sleep: clock.sleep, now: clock.now, budget, random: () => 0.99, maxAttempts: 10 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OutOfTimeError);
    expect((failure as OutOfTimeError).cause).toMatchObject({ name: 'ThrottlingException' });
    // 49 ms (attempt 0's draw) does not fit in 40 ms: one call, no wait.
    expect(operation).toHaveBeenCalledTimes(1);
    expect(clock.delays).toEqual([]);
  });

  test('without a budget the retries are bounded by attempts alone, as before', async () => {
    const clock = fakeClock();
    const operation = jest.fn(async () => Promise.reject(throttled()));
    await expect(withRetries(operation, { sleep: clock.sleep, now: clock.now, maxAttempts: 4 })).rejects.toThrow(RetriesExhaustedError);
    expect(operation).toHaveBeenCalledTimes(4);
  });
});

describe('withRetries and idempotency locks (EffectInProgressError)', () => {
  const locked = (clock: ReturnType<typeof fakeClock>, forMs: number) => new EffectInProgressError('k', new Date(clock.now() + forMs));

  test('a held lock is polled without using attempts, and never waited on past its expiry', async () => {
    const clock = fakeClock();
    const lockEndsAt = clock.now() + 5_000;
    const operation = jest.fn(async () => {
      if (clock.now() < lockEndsAt) throw new EffectInProgressError('k', new Date(lockEndsAt));
      return 'sent';
    });
    await expect(withRetries(operation, { sleep: clock.sleep, now: clock.now, maxAttempts: 2, random: () => 0.99 })).resolves.toBe('sent');
    expect(operation.mock.calls.length).toBeGreaterThan(2);
    expect(clock.now()).toBeGreaterThanOrEqual(lockEndsAt);
    expect(clock.now()).toBeLessThanOrEqual(lockEndsAt + 1);
    expect(Math.max(...clock.delays)).toBeLessThanOrEqual(DEFAULT_BACKOFF.capMs);
  });

  test('a lock released early (its holder finished) is taken at the next poll', async () => {
    const clock = fakeClock();
    let calls = 0;
    const operation = jest.fn(async () => {
      calls += 1;
      if (calls < 3) throw locked(clock, 25_000);
      return 'stored result';
    });
    await expect(withRetries(operation, { sleep: clock.sleep, now: clock.now, random: () => 0.5 })).resolves.toBe('stored result');
    expect(clock.delays).toEqual([25, 50]);
  });

  test('a lock that outlasts the budget is thrown at once, with its expiry, so that the source redelivers after it', async () => {
    const clock = fakeClock();
    const operation = jest.fn(async () => Promise.reject(locked(clock, 20_000)));
    const failure = await withRetries(operation, { sleep: clock.sleep, now: clock.now, budget: budgetUntil(clock, clock.now() + 5_000) }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EffectInProgressError);
    expect(operation).toHaveBeenCalledTimes(1);
  });

  test('holdOnLocks (ordered sources): the budget is spent polling before the lock error is thrown', async () => {
    const clock = fakeClock();
    const start = clock.now();
    const operation = jest.fn(async () => Promise.reject(locked(clock, 20_000)));
    const failure = await withRetries(operation, { sleep: clock.sleep, now: clock.now, budget: budgetUntil(clock, start + 5_000), holdOnLocks: true, random: () => 0.99 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EffectInProgressError);
    expect(clock.now() - start).toBeGreaterThan(5_000 - DEFAULT_BACKOFF.capMs);
    expect(clock.now() - start).toBeLessThanOrEqual(5_000);
  });

  test('a lock with no expiry, or one longer than any invocation, is an ordinary transient failure', async () => {
    const clock = fakeClock();
    for (const lockError of [() => new EffectInProgressError('k', undefined), () => locked(clock, MAX_LOCK_WAIT_MS + 1)]) {
      const operation = jest.fn(async () => Promise.reject(lockError()));
      await expect(withRetries(operation, { sleep: clock.sleep, now: clock.now, maxAttempts: 3 })).rejects.toThrow(RetriesExhaustedError);
      expect(operation).toHaveBeenCalledTimes(3);
    }
  });
});
