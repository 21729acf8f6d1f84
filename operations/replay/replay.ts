/**
 * `eo replay`: the records a consumer's stream still holds within a window go through the
 * consumer's own function again, shard by shard in shard order, in batches of its mapping's size,
 * then those of its archived failed batches (`onFailure: 's3'`) that the stream no longer held,
 * each invocation marked as a replay (../../lambdas/runtime/consumer/replay-mode.ts). A record the function
 * reports is sent again from there, as its mapping retries, with backoff, until it goes through or
 * has been reported for the retry bound (./retry-policy.ts): only a failure that persists stops its
 * shard. On events applied before, that changes nothing: their dedup records exist, their versions
 * are not newer; a permanent failure is counted, not dead-lettered again. Why this mechanism, what it needs and what
 * it costs: docs/operations.md, "Replay".
 */
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { ReplayCounts } from '../../lambdas/runtime/consumer/replay-mode';
import { LAMBDA_LIMITS } from '../../aws/limits';
import { leadingBatch } from '../../aws/lambda/invoke-batches';
import { compareSequenceNumbers, type ShardDescription, type StreamReader, type StreamRecord } from '../../aws/streams/stream-reader';
import { atTip, readerFor } from '../dlq/stream-range';
import type { LaggingStreamRead } from '../dlq/kinesis-range-reader';
import type { DlqContext } from '../dlq/types';
import { invokeReplayBatch, type BatchAnswer } from './invoke-batch';
import type { ReplayPlan } from './plan';
import { windowRecords } from './window-records';
import { archivedWindowRecords } from './archive-records';
import { ShardRetries, type ReplayRetryOptions, type RetryDecision } from './retry-policy';

/** Counts over the whole replay: the runtime's, summed. */
export type ReplayTotals = Omit<ReplayCounts, 'records'> & { readonly records: number };

/** How one shard went. */
export interface ShardReplay {
  readonly shardId: string;
  /** Of `inWindow`, the records read from the failure archives (the stream no longer held them). @default 0 */
  readonly fromArchive?: number;
  /** Records within the window that the shard holds (a dry run counts them; a replay sends them up to a stop). */
  readonly inWindow: number;
  readonly sent: number;
  readonly invocations: number;
  /** Of `invocations`, those that sent a batch again from a record the function reported (or from a batch it failed). @default 0 */
  readonly retries?: number;
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
  /** When the stream feeds failure archives: the consumer's archived batches read, and whether the archives held more than one read takes. */
  readonly archive?: { readonly objects: number; readonly truncated: boolean };
}

/** A replay's options; the retry settings of a reported record are `ReplayRetryOptions`'s. */
export interface ReplayOptions extends ReplayRetryOptions {
  readonly dryRun?: boolean;
  /** Told after each batch, e.g. to draw progress. */
  readonly onBatch?: (sent: number) => void;
}

const ZERO: ReplayTotals = { records: 0, applied: 0, duplicates: 0, skipped: 0, permanent: 0, reported: 0 };

export async function runReplay(context: DlqContext, plan: ReplayPlan, options: ReplayOptions = {}): Promise<ReplaySummary> {
  // The redrive's reader: a read AWS refuses for want of a permission names the action.
  const reader = readerFor(context.clients, plan.source.arn);
  const archived = plan.archives.length === 0 ? undefined : await archivedWindowRecords(context.clients.s3, plan.archives, plan.consumer.functionName, plan.window);
  const streamShards = parentsFirst(await reader.listShards()).map((shard) => shard.shardId);
  // Archived shards the stream no longer lists expired before the ones it lists: they go first.
  const gone = [...(archived?.shards.keys() ?? [])].filter((shardId) => !streamShards.includes(shardId));
  const shards: ShardReplay[] = [];
  let totals = ZERO;
  const count = (counts: ReplayCounts) => (totals = add(totals, counts));
  for (const shardId of gone) shards.push(await replayShard(context.clients.lambda, { shardId, archived: archived?.shards.get(shardId) ?? [] }, plan, options, count));
  for (const shardId of streamShards) {
    const older = await olderThanHeld(reader, shardId, archived?.shards.get(shardId) ?? []);
    shards.push(await replayShard(context.clients.lambda, { shardId, archived: older, stream: windowRecords(reader, shardId, plan.window) }, plan, options, count));
  }
  const complete = shards.every((shard) => shard.stoppedAt === undefined && shard.sent === shard.inWindow);
  return { plan, dryRun: options.dryRun === true, shards, totals, complete: !options.dryRun && complete, ...(archived && { archive: { objects: archived.objects, truncated: archived.truncated } }) };
}

/** What one shard's replay sends: first its archived records the stream no longer holds, then the stream's records in the window. */
interface ShardSource {
  readonly shardId: string;
  readonly archived: readonly StreamRecord[];
  readonly stream?: AsyncIterable<StreamRecord[]>;
}

/** The archived records older than the shard's oldest record: the ones the stream no longer holds (all of them when it holds none). */
async function olderThanHeld(reader: StreamReader, shardId: string, archived: readonly StreamRecord[]): Promise<StreamRecord[]> {
  if (archived.length === 0) return [];
  const oldest = await oldestHeld(reader, shardId);
  return oldest === undefined ? [...archived] : archived.filter((record) => compareSequenceNumbers(record.sequenceNumber, oldest) < 0);
}

/** The sequence number of the shard's oldest record; undefined when it holds none. A Kinesis read from the trim horizon can come back empty short of the tip, so reads go on until a record or the tip. */
async function oldestHeld(reader: StreamReader, shardId: string): Promise<string | undefined> {
  let iterator: string | undefined = await reader.iterator(shardId, { type: 'TRIM_HORIZON' });
  for (let emptyReads = 1; iterator !== undefined; emptyReads += 1) {
    const read: LaggingStreamRead = await reader.read(shardId, iterator, 1);
    const [oldest] = read.records;
    if (oldest !== undefined) return oldest.sequenceNumber;
    if (atTip(read, 1, emptyReads)) return undefined;
    iterator = read.nextIterator;
  }
  return undefined;
}

async function* pagesOf({ archived, stream }: ShardSource): AsyncGenerator<{ readonly records: StreamRecord[]; readonly fromArchive: boolean }> {
  if (archived.length > 0) yield { records: [...archived], fromArchive: true };
  if (stream) for await (const records of stream) yield { records, fromArchive: false };
}

async function replayShard(lambda: LambdaClient, source: ShardSource, plan: ReplayPlan, options: ReplayOptions, count: (counts: ReplayCounts) => void): Promise<ShardReplay> {
  const { shardId } = source;
  const batchSize = plan.consumer.batchSize ?? LAMBDA_LIMITS.defaultStreamBatchSize;
  const retries = new ShardRetries(options);
  let inWindow = 0;
  let sent = 0;
  let invocations = 0;
  let retried = 0;
  let pending: StreamRecord[] = [];
  /** Sends full batches (all of them when `all`); undefined, or where the shard stopped for good. */
  const flush = async (all: boolean): Promise<ShardReplay['stoppedAt']> => {
    while (pending.length > 0) {
      // A batch goes once it is full (the mapping's size, or Lambda's payload limit), or at the end.
      const batch = leadingBatch(pending, batchSize, (record) => record.lambdaRecord);
      if (!all && batch.length === pending.length && batch.length < batchSize) break;
      const answer = await invokeReplayBatch(lambda, plan.consumer.functionName, batch);
      invocations += 1;
      const stop = answer.stoppedAt;
      const decision = await decide(stop, retries);
      const retry = decision?.retry === true;
      if (retry) retried += 1;
      const position = stop ? Math.max(0, batch.findIndex((record) => record.sequenceNumber === stop.sequenceNumber)) : batch.length;
      // A record retried is counted by the invocation that settles it, not by the one that reported it.
      if (answer.counts) count(retry ? withoutReported(answer.counts) : answer.counts);
      const settled = retry ? position : batch.length;
      pending = pending.slice(settled);
      sent += settled;
      options.onBatch?.(settled);
      if (stop !== undefined && decision?.retry === false) return { sequenceNumber: stop.sequenceNumber, reason: decision.reason };
    }
    return undefined;
  };
  let fromArchive = 0;
  for await (const { records, fromArchive: archived } of pagesOf(source)) {
    inWindow += records.length;
    if (archived) fromArchive += records.length;
    if (options.dryRun) continue;
    pending.push(...records);
    const stoppedAt = await flush(false);
    if (stoppedAt) return { shardId, inWindow, sent, invocations, stoppedAt, ...(fromArchive > 0 && { fromArchive }), ...(retried > 0 && { retries: retried }) };
  }
  const stoppedAt = options.dryRun ? undefined : await flush(true);
  return { shardId, inWindow, sent, invocations, ...(fromArchive > 0 && { fromArchive }), ...(retried > 0 && { retries: retried }), ...(stoppedAt && { stoppedAt }) };
}

/** What becomes of a batch's stop: nothing stopped (undefined), a retry after the policy's wait, or the shard's end there. */
async function decide(stop: BatchAnswer['stoppedAt'], retries: ShardRetries): Promise<RetryDecision | undefined> {
  if (stop === undefined) {
    retries.cleared();
    return undefined;
  }
  if (!stop.retryable) return { retry: false, reason: stop.reason };
  return retries.reported(stop.sequenceNumber, stop.reason);
}

/** The counts of a batch whose reported records go again: they are not settled yet. */
function withoutReported(counts: ReplayCounts): ReplayCounts {
  return { ...counts, records: counts.records - counts.reported, reported: 0 };
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
