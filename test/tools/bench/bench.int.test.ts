/**
 * The benchmark on a tiny input, against the engines Jest started: the report has the shape the
 * issue specifies and every strategy that dedups counts exactly, while `naive` does not. Speed is
 * not checked: it says more about the machine than about the code.
 */
import { planBenchmark, reportJson, runBenchmark, STRATEGY_NAMES, type BenchmarkReport, type ColdStart } from '../../../tools/bench';
import { testEndpoints } from '../../helpers/engines';

const EVENTS = 300;

let report: BenchmarkReport;
let json: Record<string, unknown>;

beforeAll(async () => {
  const { dynamodb, sqs } = testEndpoints();
  report = await runBenchmark({ dynamodb, sqs }, planBenchmark({ events: EVENTS, rounds: 1, warmupEvents: 0, coldStartSamples: 1, endToEndMessages: 200 }));
  json = JSON.parse(reportJson(report)) as Record<string, unknown>;
}, 120_000);

test('the JSON leads with events, duplicateRate, batchSize and one entry per strategy', () => {
  expect(Object.keys(json).slice(0, 4)).toEqual(['events', 'duplicateRate', 'batchSize', 'strategies']);
  expect(json).toMatchObject({ events: EVENTS, duplicateRate: 0.1, batchSize: 100 });
  const strategies = json.strategies as Record<string, unknown>[];
  expect(strategies.map((strategy) => strategy.name)).toEqual([...STRATEGY_NAMES]);
  for (const strategy of strategies) {
    expect(strategy).toEqual(expect.objectContaining({ eventsPerSecond: expect.any(Number), requestsPerEvent: expect.any(Number), writeUnitsPerEvent: expect.any(Number), exact: expect.any(Boolean) }));
    expect(strategy.eventsPerSecond).toBeGreaterThan(0);
    expect(strategy.requestsPerEvent).toBeGreaterThan(0);
    expect(strategy.writeUnitsPerEvent).toBeGreaterThan(0);
  }
});

test('the workload has both in-batch duplicates and redeliveries', () => {
  expect(report.workload.inBatchDuplicates).toBeGreaterThan(0);
  expect(report.workload.redeliveries).toBeGreaterThan(0);
  expect(report.workload.distinctEvents + report.workload.inBatchDuplicates + report.workload.redeliveries).toBe(EVENTS);
});

test('naive over-counts the redeliveries; powertools, transactional and batch are exact', () => {
  const byName = new Map(report.strategies.map((strategy) => [strategy.name, strategy]));
  expect(byName.get('naive')?.exact).toBe(false);
  expect(byName.get('naive')?.extraViews).toBeGreaterThan(0);
  for (const name of ['powertools', 'transactional', 'batch'] as const) expect({ name, exact: byName.get(name)?.exact }).toEqual({ name, exact: true });
});

test('batch commit makes far fewer requests than per-record strategies', () => {
  const requests = Object.fromEntries(report.strategies.map((strategy) => [strategy.name, strategy.requestsPerEvent]));
  expect(requests.batch).toBeLessThan(0.1);
  expect(requests.powertools).toBeGreaterThan(3);
});

test('cold start measures every strategy with the SDK bundled and external; bundled is larger, and the ratios are of the sizes and times', () => {
  const rows = json.coldStart as ColdStart[];
  expect(rows.map((entry) => `${entry.name}/${entry.sdk}`)).toEqual(STRATEGY_NAMES.flatMap((name) => [`${name}/bundled`, `${name}/external`]));
  for (const name of STRATEGY_NAMES) {
    const bundled = rows.find((entry) => entry.name === name && entry.sdk === 'bundled') as ColdStart;
    const external = rows.find((entry) => entry.name === name && entry.sdk === 'external') as ColdStart;
    expect(external.bundleBytes).toBeGreaterThan(10_000);
    expect(bundled.bundleBytes).toBeGreaterThan(external.bundleBytes);
    expect(bundled.sourceMapBytes).toBeGreaterThan(external.sourceMapBytes);
    for (const entry of [bundled, external]) expect(entry.initMs).toBeGreaterThan(0);
    expect(bundled.vsExternal.bundleBytes).toBeCloseTo(bundled.bundleBytes / external.bundleBytes, 10);
    expect(bundled.vsExternal.initMs).toBeCloseTo(bundled.initMs / external.initMs, 10);
    expect(external.vsExternal).toEqual({ bundleBytes: 1, initMs: 1 });
  }
});

test('end to end reports both pipelines', () => {
  expect(report.endToEnd).toMatchObject({ messages: 200, rawEventsPerSecond: expect.any(Number), mappingEventsPerSecond: expect.any(Number), ratio: expect.any(Number) });
});
