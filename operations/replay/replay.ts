/**
 * `eo replay`: the records a consumer's stream still holds within a window go through the
 * consumer's own function again, shard by shard in shard order, in batches of its mapping's size,
 * each invocation marked as a replay (../../lambdas/runtime/replay-mode.ts). On events applied
 * before, that changes nothing: their dedup records exist, their versions are not newer; a
 * permanent failure is counted, not dead-lettered again. Why this mechanism, what it needs and what
 * it costs: docs/operations.md, "Replay".
 */
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { ReplayCounts } from '../../lambdas/runtime/replay-mode';
import { LAMBDA_LIMITS } from '../../aws/limits';
import { dynamoDbStreamReader } from '../../aws/streams/dynamodb-stream-reader';
import { kinesisReader } from '../../aws/streams/kinesis-reader';
import type { ShardDescription, StreamReader, StreamRecord } from '../../aws/streams/stream-reader';
import type { DlqContext } from '../dlq/types';
import { invokeReplayBatch } from './invoke-batch';
import type { ReplayPlan } from './plan';
import { windowRecords } from './window-records';

/** Counts over the whole replay: the runtime's, summed. */
export type ReplayTotals = Omit<ReplayCounts, 'records'> & { readonly records: number };

/** How one shard went. */
export interface ShardReplay {
  readonly shardId: string;
  /** Records within the window that the shard holds (a dry run counts them; a replay sends them up to a stop). */
  readonly inWindow: number;
  readonly sent: number;
  readonly invocations: number;
  readonly stoppedAt?: { readonly sequenceNumber: string; readonly reason: string };
}

/** What `eo replay` prints. */
export interface ReplaySummary {
  readonly plan: ReplayPlan;
  readonly dryRun: boolean;
  readonly shards: readonly ShardReplay[];
  readonly totals: ReplayTotals;
  /** Whether every record in the window was sent and none was reported. */
  readonly complete: boolean;
}

export interface ReplayOptions {
  readonly dryRun?: boolean;
  /** Told after each batch, e.g. to draw progress. */
  readonly onBatch?: (sent: number) => void;
}

const ZERO: ReplayTotals = { records: 0, applied: 0, duplicates: 0, skipped: 0, permanent: 0, reported: 0 };

export async function runReplay(context: DlqContext, plan: ReplayPlan, options: ReplayOptions = {}): Promise<ReplaySummary> {
  const reader = readerFor(context, plan);
  const shards: ShardReplay[] = [];
  let totals = ZERO;
  for (const { shardId } of parentsFirst(await reader.listShards())) {
    const shard = await replayShard(context.clients.lambda, reader, shardId, plan, options, (counts) => (totals = add(totals, counts)));
    shards.push(shard);
  }
  const complete = shards.every((shard) => shard.stoppedAt === undefined && shard.sent === shard.inWindow);
  return { plan, dryRun: options.dryRun === true, shards, totals, complete: !options.dryRun && complete };
}

async function replayShard(lambda: LambdaClient, reader: StreamReader, shardId: string, plan: ReplayPlan, options: ReplayOptions, count: (counts: ReplayCounts) => void): Promise<ShardReplay> {
  const batchSize = plan.consumer.batchSize ?? LAMBDA_LIMITS.defaultStreamBatchSize;
  let inWindow = 0;
  let sent = 0;
  let invocations = 0;
  let pending: StreamRecord[] = [];
  const flush = async (all: boolean): Promise<ShardReplay['stoppedAt']> => {
    while (pending.length >= batchSize || (all && pending.length > 0)) {
      const batch = pending.slice(0, batchSize);
      pending = pending.slice(batch.length);
      const answer = await invokeReplayBatch(lambda, plan.consumer.functionName, batch);
      invocations += 1;
      if (answer.counts) count(answer.counts);
      sent += batch.length;
      options.onBatch?.(batch.length);
      if (answer.stoppedAt) return answer.stoppedAt;
    }
    return undefined;
  };
  for await (const records of windowRecords(reader, shardId, plan.window)) {
    inWindow += records.length;
    if (options.dryRun) continue;
    pending.push(...records);
    const stoppedAt = await flush(false);
    if (stoppedAt) return { shardId, inWindow, sent, invocations, stoppedAt };
  }
  const stoppedAt = options.dryRun ? undefined : await flush(true);
  return { shardId, inWindow, sent, invocations, ...(stoppedAt && { stoppedAt }) };
}

function readerFor(context: DlqContext, plan: ReplayPlan): StreamReader {
  const { clients } = context;
  if (plan.source.kind === 'kinesis') return kinesisReader({ kinesis: clients.kinesis, streamArn: plan.source.arn, region: clients.region });
  return dynamoDbStreamReader({ streams: clients.dynamodbStreams, streamArn: plan.source.arn, region: clients.region });
}

function add(totals: ReplayTotals, counts: ReplayCounts): ReplayTotals {
  return {
    records: totals.records + counts.records,
    applied: totals.applied + counts.applied,
    duplicates: totals.duplicates + counts.duplicates,
    skipped: totals.skipped + counts.skipped,
    permanent: totals.permanent + counts.permanent,
    reported: totals.reported + counts.reported,
  };
}

/** Shards with each parent before its children, so that an item's changes go in the order they happened. */
export function parentsFirst(shards: readonly ShardDescription[]): ShardDescription[] {
  const byId = new Map(shards.map((shard) => [shard.shardId, shard]));
  const ordered: ShardDescription[] = [];
  const placed = new Set<string>();
  const place = (shard: ShardDescription): void => {
    if (placed.has(shard.shardId)) return;
    placed.add(shard.shardId);
    const parent = shard.parentShardId === undefined ? undefined : byId.get(shard.parentShardId);
    if (parent) place(parent);
    ordered.push(shard);
  };
  for (const shard of shards) place(shard);
  return ordered;
}
