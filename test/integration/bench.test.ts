/**
 * The benchmark on a tiny input, against the engines Jest started: the report has the shape the
 * issue specifies and every strategy that dedups counts exactly, while `naive` does not. Speed is
 * not checked: it says more about the machine than about the code.
 */
import { planBenchmark, reportJson, runBenchmark, STRATEGY_NAMES, type BenchmarkReport } from '../../bench';
import { testEndpoints } from '../helpers/engines';

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

test('cold start and end to end report every strategy and both pipelines', () => {
  expect(report.coldStart.map((entry) => entry.name)).toEqual([...STRATEGY_NAMES]);
  for (const entry of report.coldStart) {
    expect(entry.bundleBytes).toBeGreaterThan(10_000);
    expect(entry.initMs).toBeGreaterThan(0);
  }
  expect(report.endToEnd).toMatchObject({ messages: 200, rawEventsPerSecond: expect.any(Number), mappingEventsPerSecond: expect.any(Number), ratio: expect.any(Number) });
});
