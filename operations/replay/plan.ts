/**
 * What a replay will read and whom it will invoke, decided before anything is read: the consumer's
 * own function and the stream its mapping reads, how far back that stream still holds records,
 * whether the window reaches past the consumer's dedup records (DynamoDB's or a SQL consumer's: then
 * a replay would apply events again, and is refused unless the operator says so), and whether a
 * rebuilt generation writes to an earlier generation's tables (generation-tables.ts: refused).
 */
import { dedupNamespace } from '../../lambdas/runtime/consumer/namespace';
import { targetKindOf, TargetKind } from '../dlq/redrive-targets';
import { retentionHoursOf } from '../dlq/stream-range';
import type { ConsumerFunction, ConsumerWindow, StackTopology } from '../dlq/types';
import { earlierGenerations, generationTablesOf, sharedTables } from './generation-tables';
import type { ReplayWindow } from './window';

/** A stream the replay reads. */
export interface ReplaySource {
  readonly kind: 'kinesis' | 'dynamodb-stream';
  readonly arn: string;
  readonly retentionHours: number;
}

/** A replay, checked and ready to run. */
export interface ReplayPlan {
  readonly consumer: ConsumerFunction;
  readonly source: ReplaySource;
  readonly window: ReplayWindow;
  /** Where the window starts before the oldest record the stream can still hold: that part is gone. */
  readonly trimmedBefore?: number;
  /** The consumer's dedup TTL on this source, when it keeps dedup records. */
  readonly dedupTtlSeconds?: number;
  /** Set when the window reaches past the dedup records and the operator allowed it: what it means. */
  readonly pastDedupWindow?: string;
  /** Set when a SQL consumer's generations declare no effect tables and the operator allowed the replay: what could not be told. */
  readonly undeclaredSqlTables?: string;
  /** The buckets of the failure archives (`onFailure: 's3'`) fed by the stream: records the stream no longer holds are read there. */
  readonly archives: readonly string[];
}

/** Thrown when a replay cannot or must not run; nothing was read or invoked. */
export class ReplayRefusedError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'ReplayRefusedError';
  }
}

export interface PlanOptions {
  readonly nowMs: number;
  /** Replay even where the dedup records have expired (events there are applied again). @default false */
  readonly allowPastDedupWindow?: boolean;
  /**
   * Replay into a generation of a SQL consumer although it, or an earlier generation on the same
   * database, declares no effect tables (`connect`'s `effectTables`), so that whether they share
   * one cannot be told. @default false
   */
  readonly allowUndeclaredSqlTables?: boolean;
  /**
   * The generation of the consumer to replay into (its `CONSUMER_GENERATION`): a rebuild, filled
   * from the stream. Takes a consumer's name, not a function's.
   * @default - the consumer the name alone names: generation 1, or `<name>@g<n>` as written
   */
  readonly generation?: number;
}

/**
 * The plan for replaying `name` (a consumer's name or its function's) over `window`.
 * @throws ReplayRefusedError for an unknown consumer, a queue consumer, a generation that writes to an earlier generation's tables (or, for SQL, declares none), or a window past the dedup records
 */
export function planReplay(topology: StackTopology, name: string, window: ReplayWindow, options: PlanOptions): ReplayPlan {
  const consumer = consumerNamed(topology, name, options.generation);
  const source = sourceOf(topology, consumer);
  const undeclaredSqlTables = checkGenerationTables(topology, consumer, options.allowUndeclaredSqlTables === true);
  const oldestHeldMs = options.nowMs - source.retentionHours * 3_600_000;
  const dedup = dedupWindowOf(topology.consumerWindows, consumer);
  const archives = archivesOf(topology, consumer.sourceArn);
  const plan = {
    consumer,
    source,
    window,
    archives,
    ...(window.fromMs < oldestHeldMs && { trimmedBefore: oldestHeldMs }),
    ...(dedup && { dedupTtlSeconds: dedup.dedupTtlSeconds }),
    ...(undeclaredSqlTables && { undeclaredSqlTables }),
  };
  if (dedup === undefined) return plan;
  const dedupSinceMs = options.nowMs - dedup.dedupTtlSeconds * 1000;
  if (window.fromMs >= dedupSinceMs) return plan;
  const what = `events that arrived before ${new Date(dedupSinceMs).toISOString()} are past ${consumer.consumer}'s dedup TTL (${dedup.dedupTtlSeconds} s): their dedup records may be gone, so the replay would apply them again`;
  if (!options.allowPastDedupWindow) throw new ReplayRefusedError(`${what}. Start --from at or after that time, or pass --allow-past-dedup-window to apply them again (into a new generation, say).`);
  return { ...plan, pastDedupWindow: what };
}

/**
 * Refuses a replay into a generation that writes to an earlier generation's tables (generation-tables.ts).
 * @returns what could not be told, when the operator allowed undeclared SQL tables
 */
function checkGenerationTables(topology: StackTopology, consumer: ConsumerFunction, allowUndeclared: boolean): string | undefined {
  const earlier = earlierGenerations(topology, consumer);
  if (earlier.length === 0) return undefined;
  const generation = consumer.generation ?? 1;
  const { shared, undeclared } = sharedTables(generationTablesOf(topology, consumer), earlier.map((fn) => generationTablesOf(topology, fn)));
  const rebuild = 'A rebuilt generation takes effect tables of its own (docs/operations.md, "Rebuild")';
  if (shared.length > 0) {
    throw new ReplayRefusedError(
      `generation ${generation} of ${consumer.name ?? consumer.consumer} writes to tables an earlier generation writes to: ${shared.join(', ')}. ` +
        `Its dedup records are its own, so a replay into it would apply every event of the window to them again. ${rebuild}.`,
    );
  }
  if (undeclared.length === 0) return undefined;
  const what =
    `generation ${generation} of ${consumer.name ?? consumer.consumer} and generation ${undeclared.join(', ')} write SQL effects to one database, and at least one of them declares no effect tables ` +
    '(SqlEffectDatabase.connect\'s effectTables): whether the replay would apply events again to an earlier generation\'s tables cannot be told';
  if (!allowUndeclared) throw new ReplayRefusedError(`${what}. Declare each generation's tables, or pass --allow-undeclared-sql-tables once you have checked that its handlers' SQL writes to tables of its own. ${rebuild}.`);
  return what;
}

function consumerNamed(topology: StackTopology, given: string, generation?: number): ConsumerFunction {
  const name = generation === undefined ? given : generationName(given, generation);
  const matching = topology.consumerFunctions.filter((candidate) => candidate.consumer === name || (generation === undefined && candidate.functionName === name));
  const names = [...new Set(topology.consumerFunctions.map((candidate) => candidate.consumer))].sort().join(', ') || 'none';
  if (matching.length === 0) throw new ReplayRefusedError(`no consumer of ${topology.stackName} is named ${JSON.stringify(name)} (its consumers: ${names})`);
  const streams = matching.filter((candidate) => streamKindOf(candidate.sourceArn) !== undefined);
  if (streams.length > 1) throw new ReplayRefusedError(`${name} reads ${streams.length} streams; replay takes one: ${streams.map((candidate) => candidate.sourceArn).join(', ')}`);
  if (streams.length === 1) return streams[0] as ConsumerFunction;
  const [queued] = matching;
  throw new ReplayRefusedError(
    `${name} reads a queue (${queued?.sourceArn}), and a queue keeps no history: a message is gone once it is consumed, so there is nothing to replay. ` +
      'To make it replayable, feed it from a Kinesis stream (retention up to 365 days), or keep an archive of the raw events it receives (an S3 copy, an EventBridge archive) and publish from there again.',
  );
}

/** A consumer's name at a generation, as the stack's functions declare it; a name refused as the runtime refuses it. */
function generationName(name: string, generation: number): string {
  try {
    return dedupNamespace(name, generation);
  } catch (error) {
    throw new ReplayRefusedError(`--generation: ${(error as Error).message}`);
  }
}

function sourceOf(topology: StackTopology, consumer: ConsumerFunction): ReplaySource {
  const kind = streamKindOf(consumer.sourceArn) as ReplaySource['kind'];
  if (kind === 'kinesis' && !topology.streams.some((candidate) => candidate.arn === consumer.sourceArn)) {
    throw new ReplayRefusedError(`${consumer.sourceArn}, the stream ${consumer.consumer} reads, is not a stream of ${topology.stackName}: nothing outside the stack is read`);
  }
  return { kind, arn: consumer.sourceArn, retentionHours: retentionHoursOf(topology, consumer.sourceArn) };
}

const STREAM_KINDS: Partial<Record<TargetKind, ReplaySource['kind']>> = { [TargetKind.KINESIS_STREAM]: 'kinesis', [TargetKind.TABLE_STREAM]: 'dynamodb-stream' };

/** `kinesis` or `dynamodb-stream` for a stream ARN, as a redrive tells its targets; undefined for anything else (a queue). */
export function streamKindOf(arn: string): ReplaySource['kind'] | undefined {
  const kind = targetKindOf(arn);
  return kind === undefined ? undefined : STREAM_KINDS[kind];
}

/** The failure archives' buckets whose index a mapping on `sourceArn` feeds. */
function archivesOf(topology: StackTopology, sourceArn: string): string[] {
  const buckets = topology.deadLetterQueues.flatMap((dlq) => (dlq.archive && dlq.sources.some((source) => source.arn === sourceArn) ? [dlq.archive.bucket] : []));
  return [...new Set(buckets)].sort();
}

function dedupWindowOf(windows: readonly ConsumerWindow[], consumer: ConsumerFunction): ConsumerWindow | undefined {
  return windows.find((window) => window.sourceArn === consumer.sourceArn && window.consumer === consumer.consumer && (window.dedupTable !== undefined || window.sqlDedup !== undefined));
}
