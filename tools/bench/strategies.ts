/** The strategies the benchmark compares, by name, each built from the same wiring. */
import * as path from 'node:path';
import type { BatchHandler } from '../../lambdas/runtime';
import { createBatchHandler } from './handlers/batch';
import { createDirectHandler } from './handlers/direct';
import type { BenchWiring } from './handlers/common';
import { createNaiveHandler } from './handlers/naive';
import { createPowertoolsHandler } from './handlers/powertools';
import { createTransactionalHandler } from './handlers/transactional';

export const STRATEGY_NAMES = ['naive', 'powertools', 'direct', 'transactional', 'batch'] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];

/** The SQL part's name in a strategy selection (`--strategies`): not a DynamoDB strategy, it has a part of its own (`sql-part.ts`). */
export const SQL_STRATEGY = 'sql';

/** What `--strategies` may name: the DynamoDB strategies and the SQL part. */
export const SELECTABLE_STRATEGIES = [...STRATEGY_NAMES, SQL_STRATEGY] as const;
export type SelectableStrategy = (typeof SELECTABLE_STRATEGIES)[number];

/** The strategy the table's ratios are against. */
export const BASELINE_STRATEGY: StrategyName = 'powertools';

const FACTORIES: Readonly<Record<StrategyName, (wiring: BenchWiring) => BatchHandler>> = {
  naive: createNaiveHandler,
  powertools: createPowertoolsHandler,
  direct: createDirectHandler,
  transactional: createTransactionalHandler,
  batch: createBatchHandler,
};

/** The strategy's consumer, as its Lambda handler would build it. */
export function createStrategyHandler(name: StrategyName, wiring: BenchWiring): BatchHandler {
  return FACTORIES[name](wiring);
}

/** The file whose `handler` is the strategy's Lambda entry point (for the cold-start bundles). */
export function strategyEntry(name: StrategyName): string {
  return path.join(__dirname, 'handlers', `${name}.ts`);
}
