/**
 * The hot-item part on a small input, against DynamoDB Local behind a contract layer of its own
 * (the part starts one in front of the engine's own endpoint): every case is exact; unsharded
 * batch commit at 4 consumers meets `TransactionConflict` on the shared counters, as it would on
 * AWS, and sharded it meets fewer; each row's ratio is to its own run without the day counter.
 * Speed is not checked: it says more about the machine than about the code.
 */
import { measureHotItems, type HotItemReport } from '../../../tools/bench/hot-item-part';
import { hotItemTable } from '../../../tools/bench/hot-item-table';
import { HOT_ITEM_REDELIVERY_DELAY_BATCHES, planBenchmark } from '../../../tools/bench/plan';
import { engineEndpoints } from '../../helpers/engines';

// The consumers' log lines and EMF metrics stay off the test output, as `npm run bench` keeps them off its own.
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const EVENTS = 1_200;
const SHARDS = 64;

let rows: HotItemReport[];

beforeAll(async () => {
  const plan = planBenchmark({ strategies: ['batch', 'powertools'], hotItemEvents: EVENTS, hotItemConsumers: [1, 4], hotItemShards: SHARDS });
  rows = await measureHotItems(engineEndpoints().dynamodb, { workloads: plan.hotItemWorkloads, consumers: plan.settings.hotItemConsumers, shards: SHARDS });
}, 240_000);

function row(strategy: string, shards: number, consumers: number): HotItemReport {
  const found = rows.find((entry) => entry.strategy === strategy && entry.shards === shards && entry.consumers === consumers);
  if (!found) throw new Error(`no hot-item row for ${strategy}, ${shards} shards, ${consumers} consumers`);
  return found;
}

test('one row per case: batch unsharded and sharded, powertools unsharded, at each consumer count', () => {
  expect(rows.map((entry) => `${entry.strategy}/${entry.shards}/${entry.consumers}`)).toEqual(['batch/1/1', 'batch/1/4', `batch/${SHARDS}/1`, `batch/${SHARDS}/4`, 'powertools/1/1', 'powertools/1/4']);
  expect(Object.keys(rows[0] as object).slice(0, 8)).toEqual(['strategy', 'shards', 'consumers', 'eventsPerSecond', 'vsNoSharedCounter', 'conflictsPer1000', 'exact', 'redeliveriesPer1000']);
});

test('every case counts exactly, with the day counter and without it', () => {
  for (const entry of rows) expect({ case: `${entry.strategy}/${entry.shards}/${entry.consumers}`, exact: entry.exact, alone: entry.noSharedCounter.exact }).toEqual({ case: `${entry.strategy}/${entry.shards}/${entry.consumers}`, exact: true, alone: true });
});

test('unsharded batch commit at 4 consumers meets TransactionConflict through the contract layer; sharded counters meet fewer', () => {
  const unsharded = row('batch', 1, 4);
  expect(unsharded.conflictsPer1000).toBeGreaterThan(0);
  expect(unsharded.redeliveriesPer1000).toBeGreaterThan(0);
  expect(row('batch', SHARDS, 4).conflictsPer1000).toBeLessThan(unsharded.conflictsPer1000);
  // One consumer has nobody to conflict with.
  expect(row('batch', 1, 1).conflictsPer1000).toBe(0);
});

test('sharded, the hottest item is a shard and takes fewer write units per event than the unsharded hottest item', () => {
  const sharded = row('batch', SHARDS, 4);
  expect(sharded.hottestItem.key).toMatch(/#shard-\d+$/);
  expect(sharded.hottestItem.writeUnitsPerEvent).toBeLessThan(row('batch', 1, 4).hottestItem.writeUnitsPerEvent);
});

test('the ratio is to the same case without the day counter, and the figures are per event of the workload', () => {
  for (const entry of rows) {
    expect(entry.vsNoSharedCounter).toBeCloseTo(entry.eventsPerSecond / entry.noSharedCounter.eventsPerSecond, 10);
    expect(entry.requestsPerEvent).toBeGreaterThan(0);
    expect(entry.writeUnitsPerEvent).toBeGreaterThan(0);
  }
  // With one consumer nothing conflicts, so the day counter's actions are the whole difference.
  for (const alone of rows.filter((entry) => entry.consumers === 1)) expect(alone.writeUnitsPerEvent).toBeGreaterThan(alone.noSharedCounter.writeUnitsPerEvent);
  // Powertools runs on a share of the records; its requests per event are about those of the default scenario.
  expect(row('powertools', 1, 1).requestsPerEvent).toBeGreaterThan(3);
  expect(HOT_ITEM_REDELIVERY_DELAY_BATCHES).toBeGreaterThan(16);
});

test('the table prints one line per case', () => {
  const lines = hotItemTable(rows).split('\n');
  expect(lines).toHaveLength(2 + rows.length);
  expect(lines[2]).toMatch(/^batch\s+1\s+1\s/);
});
