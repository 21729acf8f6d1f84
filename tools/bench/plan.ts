/**
 * What a benchmark run will do, settled before any engine starts: the options with their
 * defaults, checked, and the workload generated from them. A bad option fails here with a
 * `RangeError` that names it, in milliseconds, not after DynamoDB Local has started.
 */
import type { Progress } from '../../cli/progress';
import { STRATEGY_NAMES, type StrategyName } from './strategies';
import { generateWorkload, WORKLOAD_DEFAULTS, type RedeliveryPattern, type Workload } from './workload';

/** Defaults of {@link BenchmarkOptions}, shared by the CLI and the docs: a run of about three minutes on two cores. */
export const BENCH_DEFAULTS = {
  events: 3_000,
  rounds: 3,
  warmupEvents: 1_000,
  seed: 1,
  coldStartSamples: 5,
  endToEndMessages: 10_000,
} as const;

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
  /** @default all four */
  readonly strategies?: readonly StrategyName[];
  /** Fresh processes per handler bundle (two bundles per handler: the SDK bundled and external); 0 skips the cold-start part. @default 5 */
  readonly coldStartSamples?: number;
  /** Messages through fauxqs per side and round; 0 (or no SQS endpoint) skips the end-to-end part. @default 10000 */
  readonly endToEndMessages?: number;
  readonly progress?: Progress;
}

export type BenchmarkSettings = Required<Omit<BenchmarkOptions, 'progress'>> & Pick<BenchmarkOptions, 'progress'>;

export interface BenchmarkPlan {
  readonly settings: BenchmarkSettings;
  readonly workload: Workload;
}

/** Fills in the defaults, checks the options and generates the workload; throws a `RangeError` naming the first bad option. */
export function planBenchmark(options: BenchmarkOptions = {}): BenchmarkPlan {
  const settings: BenchmarkSettings = { ...BENCH_DEFAULTS, ...WORKLOAD_DEFAULTS, strategies: STRATEGY_NAMES, ...options };
  wholeNumber('rounds', settings.rounds, 1);
  wholeNumber('warmupEvents', settings.warmupEvents, 0);
  wholeNumber('coldStartSamples', settings.coldStartSamples, 0);
  wholeNumber('endToEndMessages', settings.endToEndMessages, 0);
  checkStrategies(settings.strategies);
  return { settings, workload: generateWorkload(settings) };
}

function wholeNumber(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) throw new RangeError(`${name} must be a whole number >= ${min} (given ${value})`);
}

function checkStrategies(names: readonly StrategyName[]): void {
  const unknown = names.filter((name) => !STRATEGY_NAMES.includes(name));
  if (unknown.length > 0) throw new RangeError(`unknown strategies ${unknown.join(', ')}; expected some of ${STRATEGY_NAMES.join(', ')}`);
  if (names.length === 0) throw new RangeError(`strategies must name at least one of ${STRATEGY_NAMES.join(', ')}`);
  if (new Set(names).size !== names.length) throw new RangeError(`strategies must not repeat a name (given ${names.join(', ')})`);
}
