/**
 * The benchmark on a tiny input, against the engines Jest started: the report has the shape the
 * issue specifies and every strategy that dedups counts exactly, while `naive` does not. Speed is
 * not checked: it says more about the machine than about the code.
 */
import { planBenchmark, reportJson, runBenchmark, STRATEGY_NAMES, type BenchmarkReport, type ColdStart } from '../../../tools/bench';
import { BARE_HANDLER, EXAMPLE_HANDLERS } from '../../../tools/bench/coldstart';
import { testEndpoints } from '../../helpers/engines';

const EVENTS = 300;

let report: BenchmarkReport;
let json: Record<string, unknown>;

beforeAll(async () => {
  const { dynamodb, sqs } = testEndpoints();
  report = await runBenchmark({ dynamodb, sqs }, planBenchmark({ events: EVENTS, rounds: 1, warmupEvents: 0, coldStartSamples: 1, endToEndMessages: 200, hotItemEvents: 0 }));
  json = JSON.parse(reportJson(report)) as Record<string, unknown>;
}, 120_000);

test('the JSON leads with events, duplicateRate, batchSize and one entry per strategy', () => {
  expect(Object.keys(json).slice(0, 4)).toEqual(['events', 'duplicateRate', 'batchSize', 'strategies']);
  expect(json).toMatchObject({ events: EVENTS, duplicateRate: 0.1, batchSize: 100, latencyProfile: { name: 'none', scale: 1 } });
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

test('the JSON names the peer: Powertools\' own batch processor, records in parallel', () => {
  expect(json.peer).toEqual({ package: '@aws-lambda-powertools/batch', version: expect.stringMatching(/^\d+\.\d+\.\d+/), processor: 'BatchProcessor', processInParallel: true });
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

test('cold start measures the bare handler, every strategy and the example app\'s handlers, with the SDK bundled and external; bundled is larger', () => {
  const rows = json.coldStart as ColdStart[];
  const handlers = [BARE_HANDLER, ...STRATEGY_NAMES, ...EXAMPLE_HANDLERS];
  expect(rows.map((entry) => `${entry.handler}/${entry.sdk}`)).toEqual(handlers.flatMap((handler) => [`${handler}/bundled`, `${handler}/external`]));
  for (const handler of handlers) {
    const bundled = rows.find((entry) => entry.handler === handler && entry.sdk === 'bundled') as ColdStart;
    const external = rows.find((entry) => entry.handler === handler && entry.sdk === 'external') as ColdStart;
    expect(external.bundleBytes).toBeGreaterThan(handler === BARE_HANDLER ? 0 : 10_000);
    expect(bundled.bundleBytes).toBeGreaterThan(external.bundleBytes);
    expect(bundled.sourceMapBytes).toBeGreaterThan(external.sourceMapBytes);
    for (const entry of [bundled, external]) expect(entry.initMs).toBeGreaterThan(0);
    expect(bundled.vsExternal.bundleBytes).toBeCloseTo(bundled.bundleBytes / external.bundleBytes, 10);
    expect(bundled.vsExternal.initMs).toBeCloseTo(bundled.initMs / external.initMs, 10);
    expect(external.vsExternal).toEqual({ bundleBytes: 1, initMs: 1 });
  }
});

test('each cold start leads with the issue\'s fields, and its ratios are to the bare handler with the same SDK placement', () => {
  const rows = json.coldStart as ColdStart[];
  for (const entry of rows) {
    expect(Object.keys(entry).slice(0, 6)).toEqual(['handler', 'sdk', 'bundleKiB', 'initMs', 'bundleRatio', 'initRatio']);
    const bare = rows.find((other) => other.handler === BARE_HANDLER && other.sdk === entry.sdk) as ColdStart;
    expect(Math.abs(entry.bundleKiB - entry.bundleBytes / 1024)).toBeLessThanOrEqual(0.05);
    expect(entry.bundleRatio).toBeCloseTo(entry.bundleBytes / bare.bundleBytes, 10);
    expect(entry.initRatio).toBeCloseTo(entry.initMs / bare.initMs, 10);
    if (entry.handler === BARE_HANDLER) expect([entry.bundleRatio, entry.initRatio]).toEqual([1, 1]);
  }
});

test('as deployed (the SDK bundled), every handler\'s bundle is within 1.3x of the bare handler\'s', () => {
  const deployed = (json.coldStart as ColdStart[]).filter((entry) => entry.sdk === 'bundled');
  expect(deployed.filter((entry) => entry.bundleRatio > 1.3).map((entry) => `${entry.handler}: ${entry.bundleRatio.toFixed(2)}x`)).toEqual([]);
});

test('end to end reports both pipelines', () => {
  expect(report.endToEnd).toMatchObject({ messages: 200, rawEventsPerSecond: expect.any(Number), mappingEventsPerSecond: expect.any(Number), ratio: expect.any(Number) });
});
