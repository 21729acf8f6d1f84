/**
 * The crash window on a small workload, against the engines Jest started: the same invocations die
 * under every strategy; a dedup record committed with the effect (transactional, batch) applies
 * nothing twice, no dedup (naive) does, and the peer's record written apart from the effect is
 * safe when the process dies before the response but not when it dies before the record is
 * COMPLETED. No effect is ever lost, and no record runs out of receives.
 */
import { measureCrashWindow, type CrashPoint, type CrashWindowRow } from '../../../tools/bench/crash-window';
import type { StrategyName } from '../../../tools/bench/strategies';
import { generateWorkload } from '../../../tools/bench/workload';
import { testEndpoints } from '../../helpers/engines';

// The consumers' log lines and EMF metrics stay off the test output, as `npm run bench` keeps them off its own.
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const workload = generateWorkload({ events: 300, seed: 3, batchSize: 25 });
const STRATEGIES = ['naive', 'powertools', 'transactional', 'batch'] as const satisfies readonly StrategyName[];

let rows: CrashWindowRow[];

beforeAll(async () => {
  rows = await measureCrashWindow(testEndpoints().dynamodb, workload, STRATEGIES, { crashRate: 0.3, seed: 5, functionTimeoutMs: 3_000 });
}, 90_000);

function row(strategy: StrategyName, point: CrashPoint): CrashWindowRow {
  const found = rows.find((entry) => entry.strategy === strategy && entry.point === point);
  if (!found) throw new Error(`no crash-window row for ${strategy} at ${point}`);
  return found;
}

test('every strategy at before-response, and only the peer at before-completed', () => {
  expect(rows.map(({ strategy, point }) => `${strategy} ${point}`)).toEqual(['naive before-response', 'powertools before-response', 'powertools before-completed', 'transactional before-response', 'batch before-response']);
});

test('invocations crashed in every run, and no effect was lost nor any record left beyond maxReceiveCount', () => {
  for (const entry of rows) {
    expect(entry).toEqual(expect.objectContaining({ events: workload.deliveries, lost: 0, beyondMaxReceiveCount: 0 }));
    expect(entry.crashes).toBeGreaterThan(0);
  }
});

test('every strategy dies at before-response on the same batches', () => {
  expect(new Set(STRATEGIES.map((strategy) => row(strategy, 'before-response').crashes)).size).toBe(1);
});

test('a dedup record committed with the effect applies nothing twice', () => {
  for (const strategy of ['transactional', 'batch'] as const) expect(row(strategy, 'before-response').appliedTwice).toBe(0);
});

test('the short timeout leaves our consumers\' time budget room to start every event of a batch', () => {
  for (const strategy of ['naive', 'transactional', 'batch'] as const) expect({ strategy, reportedFailed: row(strategy, 'before-response').reportedFailed }).toEqual({ strategy, reportedFailed: 0 });
});

test('without dedup, the crashed batches count again', () => {
  expect(row('naive', 'before-response').appliedTwice).toBeGreaterThan(0);
});

test('the peer finds its COMPLETED records after a crash before the response, and applies effects twice after a crash before COMPLETED', () => {
  expect(row('powertools', 'before-response').appliedTwice).toBe(0);
  expect(row('powertools', 'before-completed').appliedTwice).toBeGreaterThan(0);
});

test.each([
  [{ crashRate: 0 }, /crashRate must be in \(0, 1\] \(given 0\)/],
  [{ crashRate: 1.5 }, /crashRate must be in \(0, 1\] \(given 1.5\)/],
  [{ seed: 0.5 }, /seed must be a whole number \(given 0.5\)/],
  [{ functionTimeoutMs: 999 }, /functionTimeoutMs must be .* \(given 999\)/],
  [{ functionTimeoutMs: 900_001 }, /functionTimeoutMs must be .* \(given 900001\)/],
])('fails on bad options before touching DynamoDB: %p', async (options, message) => {
  await expect(measureCrashWindow('http://127.0.0.1:1', workload, STRATEGIES, options)).rejects.toThrow(RangeError);
  await expect(measureCrashWindow('http://127.0.0.1:1', workload, STRATEGIES, options)).rejects.toThrow(message);
});
