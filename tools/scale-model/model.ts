/**
 * The scale model: pure functions from a bench run, AWS's documented limits and prices
 * (./assumptions.ts) and the example's settings (./deployed.ts) to every figure of docs/scale.md,
 * each labelled measured, derived or projected (./figures.ts).
 */
import { DYNAMODB, LAMBDA } from './assumptions';
import { MODELLED_STRATEGIES, type BenchRun } from './bench-input';
import { largestRecordAtFullRate, queueRows, shardRows, tableRows, type QueueRow, type ShardRow, type TableRow } from './capacity';
import { concurrencyRows, type ConcurrencyRow } from './concurrency';
import { costRow, type CostRow } from './cost';
import { DEPLOYED, type DeployedSettings } from './deployed';
import { batchDuration, type BatchDuration } from './duration';
import { documented, over, plus, times, type Figure } from './figures';
import { batchTransactionsPerEvent, hotKeys, type HotKeys } from './hot-key';
import { strategyOf } from './strategy';
import { sustainedRates, type Sustained } from './sustained';

export interface ScaleModel {
  readonly run: BenchRun;
  readonly settings: DeployedSettings;
  /** What the deployed example takes, and which limit binds. */
  readonly sustained: readonly Sustained[];
  readonly durations: readonly BatchDuration[];
  readonly hotKeys: HotKeys;
  readonly tables: readonly TableRow[];
  readonly queues: readonly QueueRow[];
  readonly shards: readonly ShardRow[];
  readonly largestRecordAtFullRate: Figure;
  readonly concurrency: readonly ConcurrencyRow[];
  readonly costs: readonly CostRow[];
  /** batch over powertools, per million events. */
  readonly costRatio: { readonly total: Figure; readonly dynamodb: Figure };
}

/** Every figure of the model for `run`. */
export function buildScaleModel(run: BenchRun, settings: DeployedSettings = DEPLOYED): ScaleModel {
  const strategies = MODELLED_STRATEGIES.map((name) => strategyOf(run, name));
  const durations = strategies.map((strategy) => batchDuration(run, strategy, settings.memoryMb));
  const costs = strategies.map((strategy, index) => costRow(strategy, durations[index] as BatchDuration, run.batchSize, settings));
  const keys = hotKeys(run, settings.counterShards);
  const tables = tableRows(strategies);
  const queues = queueRows(run, durations, [settings.queueMaxConcurrency, LAMBDA.sqsMaximumConcurrency.value]);
  return {
    run,
    settings,
    sustained: sustainedRates(keys.worstCase, tables, queues, settings),
    durations,
    hotKeys: keys,
    tables,
    queues,
    shards: shardRows(),
    largestRecordAtFullRate: largestRecordAtFullRate(),
    concurrency: concurrencyRows(durations, run.batchSize, counterWriteUnits(run), settings),
    costs,
    costRatio: costRatio(costs),
  };
}

/** Write units per event on the unsharded day counter: one transactional write per transaction (batch), one standard write per event (powertools). */
function counterWriteUnits(run: BenchRun): Map<string, Figure> {
  return new Map([
    ['batch', times(batchTransactionsPerEvent(run), documented(DYNAMODB.transactionalWriteUnitsPerKb.value))],
    ['powertools', documented(DYNAMODB.standardWriteUnitsPerKb.value)],
  ]);
}

function costRatio(costs: readonly CostRow[]): ScaleModel['costRatio'] {
  const [batch, powertools] = costs as readonly [CostRow, CostRow];
  const dynamodb = (row: CostRow): Figure => plus(row.dynamodbWrites, row.dynamodbReads);
  return { total: over(batch.total, powertools.total), dynamodb: over(dynamodb(batch), dynamodb(powertools)) };
}
