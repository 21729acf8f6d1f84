/** The hot-item options of the benchmark's plan: defaults, the workloads they make, and a RangeError naming each bad one. */
import { BENCH_DEFAULTS, HOT_ITEM_REDELIVERY_DELAY_BATCHES, planBenchmark, POWERTOOLS_HOT_ITEM_SHARE } from '../../../tools/bench/plan';

test('by default: 12,000 records for batch, a quarter of them for powertools, 1, 4 and 16 consumers, 256 shards', () => {
  const plan = planBenchmark();
  expect(plan.settings).toMatchObject({ hotItemEvents: 12_000, hotItemConsumers: [1, 4, 16], hotItemShards: 256 });
  expect([...plan.hotItemWorkloads.keys()]).toEqual(['batch', 'powertools']);
  expect(plan.hotItemWorkloads.get('batch')?.deliveries).toBe(BENCH_DEFAULTS.hotItemEvents);
  expect(plan.hotItemWorkloads.get('powertools')?.deliveries).toBe(BENCH_DEFAULTS.hotItemEvents * POWERTOOLS_HOT_ITEM_SHARE);
});

test('redeliveries of the hot-item workload come back later than those of the default scenario, past the batches in flight', () => {
  const { workload, hotItemWorkloads } = planBenchmark({ events: 3_000, hotItemEvents: 12_000 });
  const firstRedeliveryBatch = (batches: typeof workload.batches) => batches.findIndex((batch) => batch.Records.some((record) => record.attributes.ApproximateReceiveCount !== '1'));
  expect(firstRedeliveryBatch(workload.batches)).toBeLessThan(HOT_ITEM_REDELIVERY_DELAY_BATCHES);
  expect(firstRedeliveryBatch(hotItemWorkloads.get('batch')?.batches ?? [])).toBeGreaterThanOrEqual(HOT_ITEM_REDELIVERY_DELAY_BATCHES);
});

test('0 records skips the part, and so does a run without batch and powertools', () => {
  expect(planBenchmark({ hotItemEvents: 0 }).hotItemWorkloads.size).toBe(0);
  expect(planBenchmark({ strategies: ['naive', 'transactional'] }).hotItemWorkloads.size).toBe(0);
  expect([...planBenchmark({ strategies: ['batch'] }).hotItemWorkloads.keys()]).toEqual(['batch']);
});

test.each([
  [{ hotItemEvents: -1 }, /hotItemEvents must be a whole number >= 0/],
  [{ hotItemConsumers: [] }, /hotItemConsumers must name at least one/],
  [{ hotItemConsumers: [0, 4] }, /hotItemConsumers must be whole numbers from 1 to 64 \(given 0\)/],
  [{ hotItemConsumers: [65] }, /from 1 to 64 \(given 65\)/],
  [{ hotItemConsumers: [4, 4] }, /must not repeat a count/],
  [{ hotItemShards: 1 }, /hotItemShards must be a whole number from 2 to 1000 \(given 1\)/],
  [{ hotItemShards: 1001 }, /from 2 to 1000 \(given 1001\)/],
  [{ hotItemShards: 2.5 }, /given 2.5/],
])('refuses %j', (options, message) => {
  expect(() => planBenchmark(options)).toThrow(message);
});
