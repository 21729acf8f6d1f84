/**
 * The invocation's time budget: how much of `getRemainingTimeInMillis()` the runtime keeps back,
 * and how the rest counts down. The clock is injected, so nothing here waits.
 */
import { checkTimeBudgetOptions, DEFAULT_TIME_BUDGET, marginFor, timeBudgetOf, UNLIMITED_TIME, WorkPace } from '../../../../lambdas/runtime/core/time-budget';

function contextWith(remainingMs: number) {
  return { getRemainingTimeInMillis: () => remainingMs };
}

describe('marginFor', () => {
  test.each([
    ['a 30 s function keeps 10% back', 30_000, 3_000],
    ['a 5 s function keeps the 1 s minimum', 5_000, 1_000],
    ['a 15 min function keeps the 10 s maximum', 900_000, 10_000],
    ['a 1.5 s function keeps at most half of its time', 1_500, 750],
  ])('%s', (_label, startingMs, expected) => {
    expect(marginFor(startingMs)).toBe(expected);
  });

  test('a fixed margin replaces the share, and never exceeds the time there is', () => {
    expect(marginFor(30_000, { marginMs: 500 })).toBe(500);
    expect(marginFor(300, { marginMs: 500 })).toBe(300);
  });

  test('the defaults are the documented ones', () => {
    expect(DEFAULT_TIME_BUDGET).toEqual({ marginShare: 0.1, minMarginMs: 1_000, maxMarginMs: 10_000 });
  });
});

describe('timeBudgetOf', () => {
  test('counts down to the deadline less the margin, then is exhausted', () => {
    let now = 1_000_000;
    const budget = timeBudgetOf(contextWith(30_000), {}, () => now);
    expect(budget.remainingMs()).toBe(27_000);
    now += 26_999;
    expect(budget.exhausted()).toBe(false);
    now += 1;
    expect(budget.exhausted()).toBe(true);
    now += 10_000;
    expect(budget.remainingMs()).toBe(0);
  });

  test.each([
    ['no context', undefined],
    ['a context without a clock', {} as never],
    ['a clock that says nothing useful', contextWith(Number.NaN)],
  ])('%s: no deadline', (_label, context) => {
    expect(timeBudgetOf(context)).toBe(UNLIMITED_TIME);
    expect(UNLIMITED_TIME.exhausted()).toBe(false);
  });
});

describe('checkTimeBudgetOptions', () => {
  test.each([
    [{ marginMs: -1 }, 'timeBudget.marginMs must be a number of ms >= 0 (given -1)'],
    [{ minMarginMs: Number.NaN }, 'timeBudget.minMarginMs must be a number of ms >= 0 (given NaN)'],
    [{ marginShare: 1 }, 'timeBudget.marginShare must be in [0, 1) (given 1)'],
  ])('refuses %j', (options, message) => {
    expect(() => checkTimeBudgetOptions(options)).toThrow(message);
  });

  test('accepts the boundaries', () => {
    expect(() => checkTimeBudgetOptions({ marginMs: 0, marginShare: 0, minMarginMs: 0, maxMarginMs: 0 })).not.toThrow();
  });
});

describe('WorkPace', () => {
  test('a unit starts only while the time left covers the slowest unit so far', async () => {
    let now = 0;
    let left = 10_000;
    const pace = new WorkPace({ remainingMs: () => left, exhausted: () => left <= 0 }, () => now);
    expect(pace.canStart()).toBe(true);
    await pace.time(async () => {
      now += 3_000;
    });
    left = 3_000;
    expect(pace.canStart()).toBe(true);
    left = 2_999;
    expect(pace.canStart()).toBe(false);
  });

  test('a unit that throws is timed too', async () => {
    let now = 0;
    const pace = new WorkPace({ remainingMs: () => 500, exhausted: () => false }, () => now);
    await expect(pace.time(async () => {
      now += 1_000;
      throw new Error('slow failure');
    })).rejects.toThrow('slow failure');
    expect(pace.canStart()).toBe(false);
  });

  test('an exhausted budget starts nothing, even before any unit ran', () => {
    expect(new WorkPace({ remainingMs: () => 0, exhausted: () => true }).canStart()).toBe(false);
  });
});
