/**
 * What one table, one queue and one Kinesis shard take, in events per second.
 *
 * - A table: the on-demand table quota over the write (and read) units an event costs. The
 *   example keeps dedup records and counters in two tables; one table taking both is the worst case.
 * - A queue: SQS standard queues take a nearly unlimited number of calls, so the limit is the
 *   mapping's concurrency times the batch size over how long a batch takes.
 * - A shard: Kinesis takes 1,000 records a second per shard; the order projection reads it one
 *   batch at a time (or up to ParallelizationFactor batches), one conditional put per record.
 */
import { ASSUMED, DYNAMODB, LAMBDA, STREAMS } from './assumptions';
import type { BenchRun, BenchStrategy } from './bench-input';
import type { BatchDuration } from './duration';
import { assumed, ceil, derive, documented, measured, over, times, type Figure } from './figures';

export interface TableRow {
  readonly strategy: string;
  readonly writeUnitsPerEvent: Figure;
  readonly readUnitsPerEvent: Figure;
  /** At the table quota, writes; `undefined` reads when the strategy reads nothing. */
  readonly eventsPerSecond: { readonly writes: Figure; readonly reads?: Figure; readonly warmWrites: Figure };
}

export interface QueueRow {
  readonly strategy: string;
  readonly concurrency: number;
  readonly projected: Figure;
  readonly local: Figure;
  /** Messages in flight at that concurrency (batch size each), against SQS's in-flight limit. */
  readonly inFlight: Figure;
  /** Minutes the mapping needs to scale from where it starts to `concurrency`. */
  readonly minutesToScale: Figure;
}

export interface ShardRow {
  readonly parallelizationFactor: number;
  readonly writeLimit: Figure;
  readonly consumer: Figure;
  readonly sustained: Figure;
}

/** Events per second one table takes for each strategy. */
export function tableRows(strategies: readonly BenchStrategy[]): TableRow[] {
  return strategies.map((strategy) => {
    const writeUnitsPerEvent = measured(strategy.writeUnitsPerEvent);
    const readUnitsPerEvent = measured(strategy.readUnitsPerEvent);
    const reads = strategy.readUnitsPerEvent > 0 ? over(documented(DYNAMODB.tableReadUnits.value), readUnitsPerEvent) : undefined;
    const writes = over(documented(DYNAMODB.tableWriteUnits.value), writeUnitsPerEvent);
    return { strategy: strategy.name, writeUnitsPerEvent, readUnitsPerEvent, eventsPerSecond: { writes, reads, warmWrites: over(documented(DYNAMODB.newTableWarmWriteUnits.value), writeUnitsPerEvent) } };
  });
}

/** Events per second one queue's mapping takes at each of `concurrencies`. */
export function queueRows(run: BenchRun, durations: readonly BatchDuration[], concurrencies: readonly number[]): QueueRow[] {
  return durations.flatMap((duration) => concurrencies.map((concurrency) => queueRow(run.batchSize, duration, concurrency)));
}

function queueRow(batchSize: number, duration: BatchDuration, concurrency: number): QueueRow {
  const records = times(documented(concurrency), measured(batchSize));
  const rate = (batchMs: Figure): Figure => over(times(records, documented(1000)), batchMs);
  const steps = over(documented(Math.max(0, concurrency - LAMBDA.sqsInitialBatches.value)), documented(LAMBDA.sqsScaleUpPerMinute.value));
  return { strategy: duration.strategy, concurrency, projected: rate(duration.projectedMs), local: rate(duration.localMs), inFlight: records, minutesToScale: ceil(steps) };
}

/** Events per second one Kinesis shard takes into the order projection, at a parallelization factor of 1 and at its maximum. */
export function shardRows(): ShardRow[] {
  const writeLimit = documented(STREAMS.kinesisShardWriteRecords.value);
  return [1, LAMBDA.maxParallelizationFactor.value].map((factor) => {
    // One conditional PutItem per record, one after another: an ordered source commits in order.
    const consumer = over(times(documented(factor), documented(1000)), assumed(ASSUMED.requestLatencyMs.value));
    return { parallelizationFactor: factor, writeLimit, consumer, sustained: derive(Math.min(writeLimit.value, consumer.value), writeLimit, consumer) };
  });
}

/** The largest record that still fits 1,000 a second into a shard's 1 MB/s. */
export function largestRecordAtFullRate(): Figure {
  return over(documented(STREAMS.kinesisShardWriteBytes.value), documented(STREAMS.kinesisShardWriteRecords.value));
}
