/**
 * The Lambda concurrency a rate of events needs, by Little's law: invocations in flight = batches
 * arriving a second x seconds per batch = events a second x seconds per event. And the shards the
 * day counter then needs: enough for its write units, and enough for the concurrent invocations
 * not to meet on one (docs/patterns/sharded-counters.md).
 */
import { DYNAMODB, LAMBDA } from './assumptions';
import type { DeployedSettings } from './deployed';
import { perEvent, type BatchDuration } from './duration';
import { ceil, documented, over, times, type Figure } from './figures';

/** The rates docs/scale.md sizes for, in events per second. */
export const RATES = [1_000, 10_000, 100_000] as const;

export interface Fit {
  readonly account: boolean;
  readonly deployedMaxConcurrency: boolean;
  readonly mappingMaximum: boolean;
}

export interface ConcurrencyRow {
  readonly strategy: string;
  readonly rate: number;
  readonly projected: Figure;
  readonly local: Figure;
  readonly fits: Fit;
  /** Shards of the day counter for its write units alone. */
  readonly shardsForWrites: Figure;
  /** Shards for conflicts to stay rare; `undefined` where plain writes do not conflict (powertools). */
  readonly shardsForConflicts?: Figure;
}

/** Concurrency and shards for each duration at each rate; `counterWriteUnits` is the day counter's write units per event, unsharded, by strategy. */
export function concurrencyRows(durations: readonly BatchDuration[], batchSize: number, counterWriteUnits: ReadonlyMap<string, Figure>, settings: DeployedSettings): ConcurrencyRow[] {
  return durations.flatMap((duration) => RATES.map((rate) => concurrencyRow(duration, batchSize, rate, counterWriteUnits.get(duration.strategy) as Figure, settings)));
}

function concurrencyRow(duration: BatchDuration, batchSize: number, rate: number, counterWriteUnits: Figure, settings: DeployedSettings): ConcurrencyRow {
  const inFlight = (batchMs: Figure): Figure => ceil(over(times(documented(rate), perEvent(batchMs, batchSize)), documented(1000)));
  const projected = inFlight(duration.projectedMs);
  const transactional = duration.strategy === 'batch';
  return {
    strategy: duration.strategy,
    rate,
    projected,
    local: inFlight(duration.localMs),
    fits: fitOf(projected.value, settings),
    shardsForWrites: ceil(over(times(documented(rate), counterWriteUnits), documented(DYNAMODB.itemWriteUnits.value))),
    shardsForConflicts: transactional ? times(projected, documented(settings.shardsPerConcurrentInvocation)) : undefined,
  };
}

function fitOf(concurrency: number, settings: DeployedSettings): Fit {
  return {
    account: concurrency <= LAMBDA.accountConcurrency.value,
    deployedMaxConcurrency: concurrency <= settings.queueMaxConcurrency,
    mappingMaximum: concurrency <= LAMBDA.sqsMaximumConcurrency.value,
  };
}
