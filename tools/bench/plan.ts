/**
 * What a benchmark run will do, settled before any engine starts: the options with their
 * defaults, checked, and the workload generated from them. A bad option fails here with a
 * `RangeError` that names it, in milliseconds, not after DynamoDB Local has started.
 */
import type { Progress } from '../../cli/progress';
import { MAX_SHARDS } from '../../lambdas/runtime';
import { CRASH_WINDOW_DEFAULTS } from './crash-window';
import { HOT_ITEM_STRATEGIES, type HotItemStrategy } from './handlers/hot-item';
import { STRATEGY_NAMES, type StrategyName } from './strategies';
import { generateWorkload, WORKLOAD_DEFAULTS, type RedeliveryPattern, type Workload } from './workload';

/** Defaults of {@link BenchmarkOptions}, shared by the CLI and the docs: a run of about eight minutes on two cores. */
export const BENCH_DEFAULTS = {
  events: 3_000,
  rounds: 3,
  warmupEvents: 1_000,
  seed: 1,
  coldStartSamples: 5,
  endToEndMessages: 10_000,
  hotItemEvents: 12_000,
  hotItemConsumers: [1, 4, 16],
  hotItemShards: 256,
  crashWindowEvents: 1_000,
  crashWindowRate: CRASH_WINDOW_DEFAULTS.crashRate,
  crashWindowTimeoutMs: CRASH_WINDOW_DEFAULTS.functionTimeoutMs,
  sql: true,
} as const;

/**
 * In the hot-item workload, redeliveries come back at least this many batches later: more than
 * the batches 16 consumers hold at once, so that a redelivery rarely races its original (as on
 * SQS, where it comes back after the visibility timeout, long after the original's invocation).
 */
export const HOT_ITEM_REDELIVERY_DELAY_BATCHES = 32;

/**
 * `powertools` runs the hot-item cases on this share of the records: it is more than ten times
 * slower, and its cases would otherwise take most of the run. Each case's ratio compares it with
 * itself on the same records, so the figures stay comparable.
 */
export const POWERTOOLS_HOT_ITEM_SHARE = 0.25;

/** The most concurrent consumers a hot-item case may have: more would measure the machine's scheduler. */
const MAX_HOT_ITEM_CONSUMERS = 64;

export interface BenchmarkOptions {
  /** Records per round, duplicates included. @default 3000 */
  readonly events?: number;
  /** Measured rounds, after the warm-up. @default 3 */
  readonly rounds?: number;
  /** Records of the warm-up round (not measured, first batches of the workload); 0 for none. @default 1000 */
  readonly warmupEvents?: number;
  /** @default 1 */
  readonly seed?: number;
  /** @default 0.1 */
  readonly duplicateRate?: number;
  /** @default 100 */
  readonly batchSize?: number;
  /** @default 300 */
  readonly pages?: number;
  /** @default 5 */
  readonly days?: number;
  /** @default 'clustered' */
  readonly redeliveries?: RedeliveryPattern;
  /** The DynamoDB strategies; none is allowed when `sql` is on. @default all of {@link STRATEGY_NAMES} */
  readonly strategies?: readonly StrategyName[];
  /**
   * The SQL part (`sql-part.ts`): the same records counted by `sqlStrategy` through the local Data
   * API on a real PostgreSQL, beside the DynamoDB strategies; it runs when the endpoints name a
   * PostgreSQL.
   * @default true
   */
  readonly sql?: boolean;
  /** Fresh processes per handler bundle (two bundles per handler: the SDK bundled and external); 0 skips the cold-start part. @default 5 */
  readonly coldStartSamples?: number;
  /** Messages through fauxqs per side and round; 0 (or no SQS endpoint) skips the end-to-end part. @default 10000 */
  readonly endToEndMessages?: number;
  /** Records of each hot-item case (`hot-item-part.ts`); 0 skips the part. @default 12000 */
  readonly hotItemEvents?: number;
  /** Concurrent consumers of the hot-item cases: 1 to 64 each. @default [1, 4, 16] */
  readonly hotItemConsumers?: readonly number[];
  /** Shards of the sharded hot-item cases: 2 to 1000. @default 256 */
  readonly hotItemShards?: number;
  /** Records of the crash-window part, where invocations die after their effects (`crash-window.ts`); 0 skips the part. @default 1000 */
  readonly crashWindowEvents?: number;
  /** Share of the crash-window part's batches whose first invocation dies: more than 0, at most 1. @default 0.2 */
  readonly crashWindowRate?: number;
  /**
   * The function timeout of the crash-window part's invocations, in ms (1000..900000): a crashed
   * batch comes back after it. Shorter runs the part faster; too short, and the consumers' time
   * budget leaves records unstarted (reported, redelivered), which the part counts apart.
   * @default 5000
   */
  readonly crashWindowTimeoutMs?: number;
  readonly progress?: Progress;
}

export type BenchmarkSettings = Required<Omit<BenchmarkOptions, 'progress'>> & Pick<BenchmarkOptions, 'progress'>;

export interface BenchmarkPlan {
  readonly settings: BenchmarkSettings;
  readonly workload: Workload;
  /** The hot-item part's workloads by strategy: `hotItemEvents` records of the same kind (a share of them for powertools); empty when the part is skipped. */
  readonly hotItemWorkloads: ReadonlyMap<HotItemStrategy, Workload>;
  /** The crash-window part's workload (`crashWindowEvents` records, the same seed); undefined when the part is skipped. */
  readonly crashWindowWorkload?: Workload;
}

/** Fills in the defaults, checks the options and generates the workload; throws a `RangeError` naming the first bad option. */
export function planBenchmark(options: BenchmarkOptions = {}): BenchmarkPlan {
  const settings: BenchmarkSettings = { ...BENCH_DEFAULTS, ...WORKLOAD_DEFAULTS, strategies: STRATEGY_NAMES, ...options };
  wholeNumber('rounds', settings.rounds, 1);
  wholeNumber('warmupEvents', settings.warmupEvents, 0);
  wholeNumber('coldStartSamples', settings.coldStartSamples, 0);
  wholeNumber('endToEndMessages', settings.endToEndMessages, 0);
  wholeNumber('hotItemEvents', settings.hotItemEvents, 0);
  wholeNumber('crashWindowEvents', settings.crashWindowEvents, 0);
  const timeout = settings.crashWindowTimeoutMs;
  if (!Number.isInteger(timeout) || timeout < 1_000 || timeout > 900_000) throw new RangeError(`crashWindowTimeoutMs must be a whole number of ms in 1000..900000, Lambda's range (given ${timeout})`);
  if (!(settings.crashWindowRate > 0 && settings.crashWindowRate <= 1)) throw new RangeError(`crashWindowRate must be more than 0 and at most 1 (given ${settings.crashWindowRate})`);
  checkHotItemConsumers(settings.hotItemConsumers);
  if (!Number.isInteger(settings.hotItemShards) || settings.hotItemShards < 2 || settings.hotItemShards > MAX_SHARDS) throw new RangeError(`hotItemShards must be a whole number from 2 to ${MAX_SHARDS} (given ${settings.hotItemShards})`);
  checkStrategies(settings.strategies, settings.sql);
  const crashWindowWorkload = settings.crashWindowEvents > 0 ? generateWorkload({ ...settings, events: settings.crashWindowEvents }) : undefined;
  return { settings, workload: generateWorkload(settings), hotItemWorkloads: hotItemWorkloadsOf(settings), crashWindowWorkload };
}

function hotItemWorkloadsOf(settings: BenchmarkSettings): Map<HotItemStrategy, Workload> {
  const workloads = new Map<HotItemStrategy, Workload>();
  if (settings.hotItemEvents === 0) return workloads;
  for (const strategy of HOT_ITEM_STRATEGIES.filter((name) => settings.strategies.includes(name))) {
    const events = strategy === 'powertools' ? Math.ceil(settings.hotItemEvents * POWERTOOLS_HOT_ITEM_SHARE) : settings.hotItemEvents;
    workloads.set(strategy, generateWorkload({ ...settings, events, redeliveryDelayBatches: HOT_ITEM_REDELIVERY_DELAY_BATCHES }));
  }
  return workloads;
}

function checkHotItemConsumers(consumers: readonly number[]): void {
  if (consumers.length === 0) throw new RangeError('hotItemConsumers must name at least one consumer count');
  const bad = consumers.filter((count) => !Number.isInteger(count) || count < 1 || count > MAX_HOT_ITEM_CONSUMERS);
  if (bad.length > 0) throw new RangeError(`hotItemConsumers must be whole numbers from 1 to ${MAX_HOT_ITEM_CONSUMERS} (given ${bad.join(', ')})`);
  if (new Set(consumers).size !== consumers.length) throw new RangeError(`hotItemConsumers must not repeat a count (given ${consumers.join(', ')})`);
}

function wholeNumber(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) throw new RangeError(`${name} must be a whole number >= ${min} (given ${value})`);
}

function checkStrategies(names: readonly StrategyName[], sql: boolean): void {
  const unknown = names.filter((name) => !STRATEGY_NAMES.includes(name));
  if (unknown.length > 0) throw new RangeError(`unknown strategies ${unknown.join(', ')}; expected some of ${STRATEGY_NAMES.join(', ')}`);
  if (names.length === 0 && !sql) throw new RangeError(`strategies must name at least one of ${STRATEGY_NAMES.join(', ')}, or the SQL part be on`);
  if (new Set(names).size !== names.length) throw new RangeError(`strategies must not repeat a name (given ${names.join(', ')})`);
}
