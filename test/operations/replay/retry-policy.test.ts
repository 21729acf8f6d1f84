/**
 * `eo replay`'s retries of a reported record (issue 40, part 3): as the mapping it stands in for,
 * it sends the record again with exponential backoff and full jitter for as long as its bound
 * (`retryForMs`, `--retry-for`) allows, counted from the record's first report; progress to a later
 * record starts the count and the clock again. On a virtual clock: each wait moves it.
 */
import { REPLAY_RETRY_DEFAULTS, ShardRetries, type ReplayRetryOptions } from '../../../operations/replay/retry-policy';

function virtualPolicy(options: ReplayRetryOptions = {}, random = () => 0.999) {
  const clock = { now: 0 };
  const waits: number[] = [];
  const retries = new ShardRetries({
    random,
    now: () => clock.now,
    sleep: async (ms) => {
      waits.push(ms);
      clock.now += ms;
    },
    ...options,
  });
  return { retries, waits, clock };
}

test('a record reported again and again is retried with doubling ceilings, capped, until the bound; then its shard stops, saying which and why', async () => {
  const { retries, waits } = virtualPolicy({ retryDelayMs: 100, maxRetryDelayMs: 1_000, retryForMs: 5_000 });
  const decisions = [];
  for (let report = 0; report < 20; report += 1) {
    const decision = await retries.reported('49600000000000000000000000001', 'the function reported it (a transient failure, or not attempted in its time)');
    decisions.push(decision);
    if (!decision.retry) break;
  }
  // Ceilings 100, 200, 400, 800, then 1,000 each; the draw is the top of each; the last wait ends at the bound.
  expect(waits).toEqual([99, 199, 399, 799, 999, 999, 999, 507]);
  expect(waits.reduce((sum, ms) => sum + ms, 0)).toBe(5_000);
  const last = decisions.at(-1);
  expect(last).toEqual({ retry: false, reason: expect.stringMatching(/^the function reported it \(a transient failure, or not attempted in its time\); reported 9 times in a row over 5\.0 s \(the replay retries a record for 5\.0 s: --retry-for\): re-run the replay/) });
  expect(decisions.slice(0, -1).every((decision) => decision.retry)).toBe(true);
});

test('the waits are full jitter: a uniform draw below each ceiling', async () => {
  const draws = [0.5, 0, 0.25];
  const { retries, waits } = virtualPolicy({ retryDelayMs: 400, retryForMs: 60_000 }, () => draws.shift() ?? 0);
  for (let report = 0; report < 3; report += 1) await retries.reported('1', 'reported');
  expect(waits).toEqual([200, 0, 400]);
});

test('progress starts the count and the clock again: a later record reported is a new one to wait for', async () => {
  const { retries, clock } = virtualPolicy({ retryDelayMs: 1_000, maxRetryDelayMs: 1_000, retryForMs: 3_000 });
  expect(await retries.reported('1', 'reported')).toEqual({ retry: true });
  expect(await retries.reported('1', 'reported')).toEqual({ retry: true });
  // The function settled record 1 and reported record 2: 2 s have gone by, but not on record 2.
  expect(clock.now).toBe(1_998);
  expect(await retries.reported('2', 'reported')).toEqual({ retry: true });
  expect(await retries.reported('2', 'reported')).toEqual({ retry: true });
  expect(await retries.reported('2', 'reported')).toEqual({ retry: true });
  // The fourth wait is cut to the 3 ms left of the bound: the record gets one more try at its end.
  expect(await retries.reported('2', 'reported')).toEqual({ retry: true });
  expect(clock.now).toBe(1_998 + 3_000);
  expect(await retries.reported('2', 'reported')).toMatchObject({ retry: false, reason: expect.stringContaining('reported 5 times in a row over 3.0 s') });
});

test('a clean batch clears the record the shard was stuck on', async () => {
  const { retries } = virtualPolicy({ retryDelayMs: 1_000, maxRetryDelayMs: 1_000, retryForMs: 2_000 });
  await retries.reported('7', 'reported');
  await retries.reported('7', 'reported');
  retries.cleared();
  expect(await retries.reported('7', 'reported')).toEqual({ retry: true });
});

test('a bound of 0 stops the shard at the first report, without a wait', async () => {
  const { retries, waits } = virtualPolicy({ retryForMs: 0 });
  expect(await retries.reported('1', 'the function failed: Task timed out')).toEqual({ retry: false, reason: expect.stringMatching(/^the function failed: Task timed out; reported once over 0\.0 s/) });
  expect(waits).toEqual([]);
});

test('the defaults: a first ceiling of 0.5 s, at most 20 s a wait, 5 minutes a record', () => {
  expect(REPLAY_RETRY_DEFAULTS).toEqual({ retryDelayMs: 500, maxRetryDelayMs: 20_000, retryForMs: 300_000 });
});

test.each([
  ['retryDelayMs', { retryDelayMs: -1 }],
  ['maxRetryDelayMs', { maxRetryDelayMs: Number.NaN }],
  ['retryForMs', { retryForMs: Number.POSITIVE_INFINITY }],
])('refuses a %s that is not a number of milliseconds >= 0', (name, options) => {
  expect(() => new ShardRetries(options)).toThrow(new RegExp(`^${name} must be a number of milliseconds >= 0`));
});
