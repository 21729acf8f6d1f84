/**
 * The scale model's arithmetic on the hand-built bench run of ./fixtures.ts: every section's
 * figures, worked out on paper, and the basis each carries.
 */
import { BASIS, buildScaleModel, parseBenchRun, type Figure, type ScaleModel } from '../../../tools/scale-model';
import { costSection } from '../../../tools/scale-model/render-sections';
import { benchJson, TEST_SETTINGS } from './fixtures';

const model: ScaleModel = buildScaleModel(parseBenchRun(benchJson(), 'fixture.json'), TEST_SETTINGS);

/** A figure's value to 6 significant digits, and its basis. */
function expectFigure(figure: Figure | undefined, value: number, basis: Figure['basis']): void {
  expect(figure).toBeDefined();
  expect(figure?.value).toBeCloseTo(value, Math.max(0, 5 - Math.floor(Math.log10(Math.abs(value) || 1))));
  expect(figure?.basis).toBe(basis);
}

function byStrategy<T extends { readonly strategy: string }>(rows: readonly T[], strategy: string): T[] {
  return rows.filter((row) => row.strategy === strategy);
}

describe('duration of a batch', () => {
  test('batch: 5 ms of CPU plus 2.5 transactions at 10 ms and 0.5 reads at 5 ms is 32.5 ms; 50 ms locally', () => {
    const [batch] = byStrategy(model.durations, 'batch');
    expectFigure(batch?.benchCpuMs, 5, BASIS.derived);
    expectFigure(batch?.vcpuShare, 1, BASIS.derived);
    expect(batch?.roundTrips.map((trips) => [trips.command, trips.perBatch.value, trips.latencyMs.value])).toEqual([
      ['TransactWriteItemsCommand', 2.5, 10],
      ['BatchGetItemCommand', 0.5, 5],
    ]);
    expectFigure(batch?.projectedMs, 32.5, BASIS.projected);
    expectFigure(batch?.localMs, 50, BASIS.measured);
  });

  test('powertools: 40 ms of CPU plus 350 requests at 5 ms is 1,790 ms; 500 ms locally', () => {
    const [powertools] = byStrategy(model.durations, 'powertools');
    expectFigure(powertools?.projectedMs, 1790, BASIS.projected);
    expectFigure(powertools?.localMs, 500, BASIS.measured);
  });

  test('at 256 MB a function has 256/1769 of a vCPU, which stretches the CPU part', () => {
    const small = buildScaleModel(parseBenchRun(benchJson(), 'fixture.json'), { ...TEST_SETTINGS, memoryMb: 256 });
    const [batch] = byStrategy(small.durations, 'batch');
    expectFigure(batch?.vcpuShare, 256 / 1769, BASIS.derived);
    expectFigure(batch?.lambdaCpuMs, (5 * 1769) / 256, BASIS.projected);
    expectFigure(batch?.projectedMs, (5 * 1769) / 256 + 27.5, BASIS.projected);
  });
});

describe('duration of a batch, from a run under a latency profile', () => {
  const underLatency = buildScaleModel(parseBenchRun({ ...benchJson(), latencyProfile: { name: 'aws', scale: 1 } }, 'fixture.json'), TEST_SETTINGS);

  test('the requests wait what they waited in the bench, overlaps included: the measured time less the CPU', () => {
    const [batch] = byStrategy(underLatency.durations, 'batch');
    const [powertools] = byStrategy(underLatency.durations, 'powertools');
    // batch: 50 ms a batch measured, 5 of them CPU; powertools: 500 ms, 40 of them CPU (its 350 requests overlapped).
    expectFigure(batch?.waitedMs, 45, BASIS.derived);
    expectFigure(batch?.projectedMs, 5 + 45, BASIS.projected);
    expectFigure(powertools?.waitedMs, 460, BASIS.derived);
    expectFigure(powertools?.projectedMs, 40 + 460, BASIS.projected);
  });

  test('a run on the bare engine keeps the assumed latencies one after another', () => {
    expect(byStrategy(model.durations, 'batch')[0]?.waitedMs).toBeUndefined();
    expect(model.run.latencyProfile).toEqual({ name: 'none', scale: 1 });
  });
});

describe('per hot key', () => {
  test('batch writes the day counter once per transaction: 0.025 x 2 WCU per event, 20,000 events/s unsharded', () => {
    expectFigure(model.hotKeys.transactionsPerEvent, 0.025, BASIS.derived);
    const rows = byStrategy(model.hotKeys.worstCase, 'batch');
    expect(rows.map((row) => row.shards)).toEqual([1, 64, 256]);
    expectFigure(rows[0]?.writeUnitsPerEvent, 0.05, BASIS.derived);
    expectFigure(rows[0]?.eventsPerSecond, 20_000, BASIS.derived);
  });

  test('sharded: the bench row\'s 64 shards take 1,280,000 events/s, the example\'s 256 take 5,120,000', () => {
    const rows = byStrategy(model.hotKeys.worstCase, 'batch');
    expectFigure(rows[1]?.eventsPerSecond, 1_280_000, BASIS.derived);
    expectFigure(rows[2]?.eventsPerSecond, 5_120_000, BASIS.derived);
  });

  test('powertools: one UpdateItem per event on one item, 1,000 events/s', () => {
    const [row] = byStrategy(model.hotKeys.worstCase, 'powertools');
    expect(row?.shards).toBe(1);
    expectFigure(row?.eventsPerSecond, 1000, BASIS.derived);
  });

  test("the bench's hottest items, next to the worst case of the same strategy and shards", () => {
    expect(model.hotKeys.bench.map((row) => [row.strategy, row.shards, row.consumers, row.key, row.eventsPerSecond.value, row.worstCase.shards])).toEqual([
      ['batch', 1, 1, 'page#page-1', 20_000, 1],
      ['batch', 64, 16, 'day#2026-12-01#shard-3', 500_000, 64],
      ['powertools', 1, 1, 'day#2026-12-01', 2000, 1],
    ]);
    expect(model.hotKeys.bench[1]?.writeUnitsPerEvent.basis).toBe(BASIS.measured);
    expectFigure(model.hotKeys.bench[1]?.conflictsPer1000, 0.5, BASIS.measured);
  });
});

describe('per table', () => {
  test('40,000 WRU/s over the write units per event; reads only where there are any; 4,000 on a new table', () => {
    const [batch, powertools] = model.tables;
    expectFigure(batch?.eventsPerSecond.writes, 40_000 / 3, BASIS.derived);
    expectFigure(batch?.eventsPerSecond.reads, 800_000, BASIS.derived);
    expectFigure(batch?.eventsPerSecond.warmWrites, 4000 / 3, BASIS.derived);
    expectFigure(powertools?.eventsPerSecond.writes, 40_000 / 3.5, BASIS.derived);
    expect(powertools?.eventsPerSecond.reads).toBeUndefined();
  });
});

describe('per queue', () => {
  test('concurrency x batch size / seconds per batch, at the deployed 16 and at the mapping\'s 1,000', () => {
    const rows = model.queues.map((row) => [row.strategy, row.concurrency, row.inFlight.value, row.minutesToScale.value]);
    expect(rows).toEqual([
      ['batch', 16, 1600, 1],
      ['batch', 1000, 100_000, 4],
      ['powertools', 16, 1600, 1],
      ['powertools', 1000, 100_000, 4],
    ]);
    const [batch16, batch1000, powertools16] = model.queues;
    expectFigure(batch16?.projected, 1_600_000 / 32.5, BASIS.projected);
    expectFigure(batch16?.local, 32_000, BASIS.derived);
    expectFigure(batch1000?.projected, 100_000_000 / 32.5, BASIS.projected);
    expectFigure(powertools16?.projected, 1_600_000 / 1790, BASIS.projected);
    expectFigure(powertools16?.local, 3200, BASIS.derived);
  });
});

describe('per Kinesis shard', () => {
  test('one conditional put at 5 ms per record: 200 records/s per concurrent batch, capped by the shard\'s 1,000', () => {
    expect(model.shards.map((row) => [row.parallelizationFactor, row.writeLimit.value, row.consumer.value, row.sustained.value])).toEqual([
      [1, 1000, 200, 200],
      [10, 1000, 2000, 1000],
    ]);
    expect(model.shards[0]?.sustained.basis).toBe(BASIS.projected);
    expectFigure(model.largestRecordAtFullRate, 1048.576, BASIS.derived);
  });
});

describe('Lambda concurrency', () => {
  const row = (strategy: string, rate: number) => model.concurrency.find((entry) => entry.strategy === strategy && entry.rate === rate);

  test('batch at 10,000 events/s: 0.325 ms per event makes 3.25, so 4 concurrent invocations (5 at the local duration)', () => {
    const at10k = row('batch', 10_000);
    expectFigure(at10k?.projected, 4, BASIS.projected);
    expectFigure(at10k?.local, 5, BASIS.derived);
    expect(at10k?.fits).toEqual({ account: true, deployedMaxConcurrency: true, mappingMaximum: true });
    expectFigure(at10k?.shardsForWrites, 1, BASIS.derived);
    expectFigure(at10k?.shardsForConflicts, 64, BASIS.projected);
  });

  test('batch at 100,000 events/s: 33 invocations, more than the deployed 16; the day counter needs 5 shards for its write units', () => {
    const at100k = row('batch', 100_000);
    expectFigure(at100k?.projected, 33, BASIS.projected);
    expect(at100k?.fits).toEqual({ account: true, deployedMaxConcurrency: false, mappingMaximum: true });
    expectFigure(at100k?.shardsForWrites, 5, BASIS.derived);
    expectFigure(at100k?.shardsForConflicts, 528, BASIS.projected);
  });

  test('powertools: 17.9 ms per event; at 100,000 events/s 1,790 invocations fit neither the account nor a mapping, and the counter needs 100 shards', () => {
    expect([1000, 10_000, 100_000].map((rate) => row('powertools', rate)?.projected.value)).toEqual([18, 179, 1790]);
    const at100k = row('powertools', 100_000);
    expect(at100k?.fits).toEqual({ account: false, deployedMaxConcurrency: false, mappingMaximum: false });
    expectFigure(at100k?.shardsForWrites, 100, BASIS.derived);
    expect(at100k?.shardsForConflicts).toBeUndefined();
  });
});

describe('dollars per million events', () => {
  test('batch: $1.875 of writes, $0.00625 of reads, 650 GB-s of arm64, 10,000 invocations and 300,000 SQS requests', () => {
    const [batch] = model.costs;
    expectFigure(batch?.dynamodbWrites, 1.875, BASIS.derived);
    expectFigure(batch?.dynamodbReads, 0.00625, BASIS.derived);
    expectFigure(batch?.lambdaCompute, 650 * 0.0000133334, BASIS.projected);
    expectFigure(batch?.lambdaComputeLocal, 1000 * 0.0000133334, BASIS.derived);
    expectFigure(batch?.lambdaComputeX86, 650 * 0.0000166667, BASIS.projected);
    expectFigure(batch?.lambdaRequests, 0.002, BASIS.derived);
    expectFigure(batch?.sqsRequests, 0.12, BASIS.projected);
    expectFigure(batch?.total, 1.875 + 0.00625 + 0.002 + 0.12 + 650 * 0.0000133334, BASIS.projected);
  });

  test('powertools: $2.1875 of writes and 35,800 GB-s; batch costs 0.722x in all and 0.86x on DynamoDB', () => {
    const [, powertools] = model.costs;
    expectFigure(powertools?.dynamodbWrites, 2.1875, BASIS.derived);
    expectFigure(powertools?.lambdaCompute, 35_800 * 0.0000133334, BASIS.projected);
    const batchTotal = 1.875 + 0.00625 + 0.002 + 0.12 + 650 * 0.0000133334;
    const powertoolsTotal = 2.1875 + 0.002 + 0.12 + 35_800 * 0.0000133334;
    expectFigure(model.costRatio.total, batchTotal / powertoolsTotal, BASIS.projected);
    expectFigure(model.costRatio.dynamodb, 1.88125 / 2.1875, BASIS.derived);
  });
});

describe('in short', () => {
  test('batch is bound by the table quota, powertools by its queue at the deployed concurrency', () => {
    expect(model.sustained.map((entry) => [entry.strategy, entry.binding.label, entry.binding.eventsPerSecond.value])).toEqual([
      ['batch', 'the table quota', 40_000 / 3],
      ['powertools', 'the queue at maxConcurrency 16', 1_600_000 / 1790],
    ]);
    expect(model.sustained[0]?.limits.map((limit) => limit.label)).toEqual(['the day counter over 256 shards', 'the table quota', 'the queue at maxConcurrency 16']);
  });
});

test('a batch strategy without transactions cannot be modelled, and says so', () => {
  const json = benchJson();
  const [batch] = json.strategies as { requestsByCommand: unknown }[];
  if (batch) batch.requestsByCommand = { BatchGetItemCommand: 5 };
  expect(() => buildScaleModel(parseBenchRun(json, 'fixture.json'), TEST_SETTINGS)).toThrow(/batch strategy made no TransactWriteItemsCommand requests/);
});

describe('the peer a run measured against', () => {
  const costLine = (json: Record<string, unknown>): string => costSection(buildScaleModel(parseBenchRun(json, 'fixture.json'), TEST_SETTINGS)).split('\n\n').at(-1) ?? '';

  test('a run with no `peer` (before issue 27) ran it one record at a time: its ratios are labelled withdrawn', () => {
    expect(costLine(benchJson())).toMatch(/measured against a sequential peer .*withdrawn until re-measured\.$/);
  });

  test('a run whose peer processed records in parallel states its ratios plainly', () => {
    const json = { ...benchJson(), peer: { package: '@aws-lambda-powertools/batch', version: '2.35.0', processor: 'BatchProcessor', processInParallel: true } };
    expect(costLine(json)).not.toContain('sequential peer');
    expect(costLine(json)).toMatch(/on DynamoDB alone\.$/);
  });
});
