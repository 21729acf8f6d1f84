/**
 * The dedup strategies benchmark: `planBenchmark` settles what to run (and fails fast on bad
 * options), `runBenchmark` runs it; the CLI (`bin/bench.ts`) only starts the engines and prints.
 * What this file does not name is internal.
 */
export { BENCH_DEFAULTS, planBenchmark } from './plan';
export type { BenchmarkOptions, BenchmarkPlan } from './plan';
export { runBenchmark } from './run';
export type { BenchmarkEndpoints, BenchmarkReport } from './run';
export type { StrategyReport } from './summary';
export type { HotItemFigures, HotItemReport } from './hot-item-part';
export type { SqlReport } from './sql-part';
export type { SqlLatencyAssumption, SqlProfileReport } from './sql-summary';
export { SQL_STRATEGY, SELECTABLE_STRATEGIES } from './strategies';
export type { SelectableStrategy } from './strategies';
export { reportJson, reportTables } from './report';
export { BASELINE_STRATEGY, STRATEGY_NAMES } from './strategies';
export type { StrategyName } from './strategies';
export { REDELIVERY_PATTERNS, WORKLOAD_DEFAULTS, generateWorkload } from './workload';
export type { RedeliveryPattern, Workload, WorkloadOptions } from './workload';
export type { ColdStart } from './coldstart';
export type { EndToEnd } from './endtoend';
export { capacityOf, itemSize } from './capacity';
export type { Capacity } from './capacity';
