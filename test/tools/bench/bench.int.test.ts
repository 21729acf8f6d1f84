/**
 * The benchmark on a tiny input, against the engines Jest started: the report has the shape the
 * issue specifies and every strategy that dedups counts exactly, while `naive` does not. Speed is
 * not checked: it says more about the machine than about the code.
 */
import { planBenchmark, reportJson, runBenchmark, STRATEGY_NAMES, type BenchmarkReport, type ColdStart } from '../../../tools/bench';
import { BARE_HANDLER, EXAMPLE_HANDLERS } from '../../../tools/bench/coldstart';
import { testEndpoints } from '../../helpers/engines';

const EVENTS = 300;
const LATENCY = { name: 'aws', scale: 0.1 } as const;

let report: BenchmarkReport;
let json: Record<string, unknown>;

beforeAll(async () => {
  const { dynamodb, sqs } = testEndpoints();
  // A tenth of AWS's latencies: both profiles measured, side by side; the crash window on one
  // batch that crashes, coming back after a 1.5 s timeout (7 cases: the part's wait is the timeout each).
  const plan = planBenchmark({ events: EVENTS, rounds: 1, warmupEvents: 0, coldStartSamples: 1, endToEndMessages: 200, hotItemEvents: 0, crashWindowEvents: 100, crashWindowRate: 1, crashWindowTimeoutMs: 1_500 });
  report = await runBenchmark({ dynamodb, sqs, latency: LATENCY }, plan);
  json = JSON.parse(reportJson(report)) as Record<string, unknown>;
  // Twice the work of the run before profiles and the crash window: a loaded CI machine takes minutes.
}, 300_000);

test('the JSON leads with events, duplicateRate, batchSize and one entry per strategy', () => {
  expect(Object.keys(json).slice(0, 4)).toEqual(['events', 'duplicateRate', 'batchSize', 'strategies']);
  expect(json).toMatchObject({ events: EVENTS, duplicateRate: 0.1, batchSize: 100, latencyProfile: LATENCY });
  const strategies = json.strategies as Record<string, unknown>[];
  expect(strategies.map((strategy) => strategy.name)).toEqual([...STRATEGY_NAMES]);
  for (const strategy of strategies) {
    expect(strategy).toEqual(expect.objectContaining({ eventsPerSecond: expect.any(Number), requestsPerEvent: expect.any(Number), writeUnitsPerEvent: expect.any(Number), exact: expect.any(Boolean) }));
    expect(strategy.eventsPerSecond).toBeGreaterThan(0);
    expect(strategy.requestsPerEvent).toBeGreaterThan(0);
    expect(strategy.writeUnitsPerEvent).toBeGreaterThan(0);
  }
});

test('the JSON has the strategies per profile, the bare engine first and the run\'s latency profile second, with the issue\'s fields', () => {
  const profiles = json.profiles as { name: string; latencyProfile: unknown; strategies: Record<string, unknown>[]; writeUnitFloorPerEvent: number }[];
  expect(profiles.map((profile) => [profile.name, profile.latencyProfile])).toEqual([['local', { name: 'none', scale: 1 }], ['aws', LATENCY]]);
  for (const profile of profiles) {
    expect(profile.writeUnitFloorPerEvent).toBeGreaterThan(0);
    expect(profile.strategies.map((strategy) => strategy.name)).toEqual([...STRATEGY_NAMES]);
    for (const strategy of profile.strategies) {
      expect(Object.keys(strategy).slice(0, 8)).toEqual(['name', 'eventsPerSecond', 'lambdaMsPerEvent', 'requestsPerEvent', 'writeUnitsPerEvent', 'readUnitsPerEvent', 'dollarsPerMillionEvents', 'exact']);
      for (const field of ['eventsPerSecond', 'lambdaMsPerEvent', 'requestsPerEvent', 'writeUnitsPerEvent', 'dollarsPerMillionEvents']) expect({ field, value: strategy[field] }).toEqual({ field, value: expect.any(Number) });
      expect(strategy.dollarsPerMillionEvents).toBeGreaterThan(0);
    }
  }
  // The top-level strategies are the run's profile's.
  expect(report.strategies.map((strategy) => strategy.eventsPerSecond)).toEqual(report.profiles[1]?.strategies.map((strategy) => strategy.eventsPerSecond));
});

test('the strategies that commit dedup records with their effects write no less than the workload\'s floor', () => {
  for (const profile of report.profiles) {
    for (const name of ['transactional', 'batch']) {
      const strategy = profile.strategies.find((row) => row.name === name);
      expect({ name, atLeastFloor: (strategy?.writeUnitsPerEvent ?? 0) >= profile.writeUnitFloorPerEvent }).toEqual({ name, atLeastFloor: true });
    }
  }
});

test('the crash window: batch and transactional apply nothing twice; the peer does when it dies before its COMPLETED update', () => {
  const rows = report.crashWindow;
  const row = (strategy: string, point: string) => rows.find((entry) => entry.strategy === strategy && entry.point === point);
  for (const name of ['transactional', 'batch']) {
    expect(row(name, 'before-response')).toMatchObject({ appliedTwice: 0, crashes: expect.any(Number) });
    expect(row(name, 'before-response')?.crashes).toBeGreaterThan(0);
  }
  expect(row('powertools', 'before-completed')?.appliedTwice).toBeGreaterThan(0);
});

test('the JSON checks the issue\'s targets, each with a verdict', () => {
  const targets = json.targets as { name: string; verdict: string }[];
  expect(targets).toHaveLength(8);
  for (const target of targets) expect(['met', 'missed', 'unchecked']).toContain(target.verdict);
});

test('the workload has both in-batch duplicates and redeliveries', () => {
  expect(report.workload.inBatchDuplicates).toBeGreaterThan(0);
  expect(report.workload.redeliveries).toBeGreaterThan(0);
  expect(report.workload.distinctEvents + report.workload.inBatchDuplicates + report.workload.redeliveries).toBe(EVENTS);
});

test('the JSON names the peer: Powertools\' own batch processor, records in parallel', () => {
  expect(json.peer).toEqual({ package: '@aws-lambda-powertools/batch', version: expect.stringMatching(/^\d+\.\d+\.\d+/), processor: 'BatchProcessor', processInParallel: true });
});

test('naive over-counts the redeliveries; powertools, direct, transactional and batch are exact', () => {
  const byName = new Map(report.strategies.map((strategy) => [strategy.name, strategy]));
  expect(byName.get('naive')?.exact).toBe(false);
  expect(byName.get('naive')?.extraViews).toBeGreaterThan(0);
  for (const name of ['powertools', 'direct', 'transactional', 'batch'] as const) expect({ name, exact: byName.get(name)?.exact }).toEqual({ name, exact: true });
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
