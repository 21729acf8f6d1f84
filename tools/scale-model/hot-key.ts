/**
 * Events per second one hot key takes: the item every event adds to (the day's counter) or the
 * most popular page's. DynamoDB serves one item at most {@link DYNAMODB.itemWriteUnits} write
 * units a second, however large the table.
 *
 * The model's worst case puts a whole day's traffic on one counter: batch commit writes it once
 * per transaction (2 write units: a transactional write of an item under 1 KB), spread over its
 * shards; Powertools writes it once per event with a plain `UpdateItem` (1 write unit), unsharded.
 * The bench's hot-item rows measure the same thing on their workload, where the views are spread
 * over several days and pages, so their hottest item takes less per event.
 */
import { DYNAMODB } from './assumptions';
import type { BenchHotItem, BenchRun } from './bench-input';
import { TRANSACT_WRITE_COMMAND } from './duration';
import { documented, measured, over, times, type Figure } from './figures';
import { strategyOf } from './strategy';

export interface HotKeyRow {
  readonly strategy: string;
  readonly shards: number;
  /** Write units per event on the hottest item (one shard of the counter). */
  readonly writeUnitsPerEvent: Figure;
  readonly eventsPerSecond: Figure;
}

export interface MeasuredHotKeyRow extends HotKeyRow {
  readonly consumers: number;
  readonly key: string;
  readonly conflictsPer1000: Figure;
  /** The model's worst case for the same strategy and shards. */
  readonly worstCase: HotKeyRow;
}

export interface HotKeys {
  /** TransactWriteItems requests per event of the batch strategy. */
  readonly transactionsPerEvent: Figure;
  readonly worstCase: readonly HotKeyRow[];
  readonly bench: readonly MeasuredHotKeyRow[];
}

/** The hot-key figures, for the counter unsharded, sharded as in the bench, and as deployed. */
export function hotKeys(run: BenchRun, deployedShards: number): HotKeys {
  const transactionsPerEvent = batchTransactionsPerEvent(run);
  const shardCounts = [...new Set([1, ...run.hotItem.filter((row) => row.strategy === 'batch').map((row) => row.shards), deployedShards])].sort((a, b) => a - b);
  const worstCase = [...shardCounts.map((shards) => batchRow(transactionsPerEvent, shards)), powertoolsRow()];
  const bench = run.hotItem.map((row) => benchRow(row, worstCase.find((model) => model.strategy === row.strategy && model.shards === row.shards) ?? batchRow(transactionsPerEvent, row.shards)));
  return { transactionsPerEvent, worstCase, bench };
}

/**
 * TransactWriteItems per record delivered in the batch strategy's rounds.
 *
 * @throws RangeError when the batch strategy made none (then it committed nothing)
 */
export function batchTransactionsPerEvent(run: BenchRun): Figure {
  const transactions = strategyOf(run, 'batch').requestsByCommand[TRANSACT_WRITE_COMMAND] ?? 0;
  if (transactions <= 0) throw new RangeError(`the batch strategy made no ${TRANSACT_WRITE_COMMAND} requests: nothing to model its counters on`);
  return over(measured(transactions), measured(run.events));
}

/** The day counter under batch commit: one transactional write per transaction, over `shards` items. */
export function batchRow(transactionsPerEvent: Figure, shards: number): HotKeyRow {
  const writeUnitsPerEvent = over(times(transactionsPerEvent, documented(DYNAMODB.transactionalWriteUnitsPerKb.value)), documented(shards));
  return { strategy: 'batch', shards, writeUnitsPerEvent, eventsPerSecond: over(documented(DYNAMODB.itemWriteUnits.value), writeUnitsPerEvent) };
}

function powertoolsRow(): HotKeyRow {
  const writeUnitsPerEvent = documented(DYNAMODB.standardWriteUnitsPerKb.value);
  return { strategy: 'powertools', shards: 1, writeUnitsPerEvent, eventsPerSecond: over(documented(DYNAMODB.itemWriteUnits.value), writeUnitsPerEvent) };
}

function benchRow(row: BenchHotItem, worstCase: HotKeyRow): MeasuredHotKeyRow {
  const writeUnitsPerEvent = measured(row.hottestItem.writeUnitsPerEvent);
  return {
    strategy: row.strategy,
    shards: row.shards,
    consumers: row.consumers,
    key: row.hottestItem.key,
    writeUnitsPerEvent,
    eventsPerSecond: over(documented(DYNAMODB.itemWriteUnits.value), writeUnitsPerEvent),
    conflictsPer1000: measured(row.conflictsPer1000),
    worstCase,
  };
}
