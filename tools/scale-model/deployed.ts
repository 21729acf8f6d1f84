/**
 * The example's own settings that the scale model uses, read from the code that deploys them so
 * that docs/scale.md follows a change of memory, concurrency or shards without being edited.
 */
import { PAGE_VIEW_COUNTER_SHARDS } from '../../example/counter-shards';
import { MAX_SHARDS } from '../../lambdas/runtime/stores/dynamodb/sharding';
import { CONSUMER_DEFAULTS, QUEUE_CONSUMER_DEFAULTS, STREAM_CONSUMER_DEFAULTS } from '../../lib/defaults';
import { SQS_LIMITS } from '../../aws/limits';

export interface DeployedSettings {
  /** Memory of every consumer function, in MB. */
  readonly memoryMb: number;
  /** The queue mapping's `MaximumConcurrency` unless a consumer sets its own. */
  readonly queueMaxConcurrency: number;
  /** Shard items of each page-view counter. */
  readonly counterShards: number;
  /** The most shards the runtime allows a counter. */
  readonly maxShards: number;
  /** docs/patterns/sharded-counters.md's rule of thumb: shards per concurrent invocation for conflicts to stay rare. */
  readonly shardsPerConcurrentInvocation: number;
  /** Records per invocation of the stream consumers (order-projection). */
  readonly streamBatchSize: number;
  /** Messages per `SendMessageBatch` of the producer (`publishToSqs`). */
  readonly producerBatchEntries: number;
}

export const DEPLOYED: DeployedSettings = {
  memoryMb: CONSUMER_DEFAULTS.memorySize,
  queueMaxConcurrency: QUEUE_CONSUMER_DEFAULTS.maxConcurrency,
  counterShards: PAGE_VIEW_COUNTER_SHARDS,
  maxShards: MAX_SHARDS,
  shardsPerConcurrentInvocation: 16,
  streamBatchSize: STREAM_CONSUMER_DEFAULTS.batchSize,
  producerBatchEntries: SQS_LIMITS.maxBatchEntries,
};
