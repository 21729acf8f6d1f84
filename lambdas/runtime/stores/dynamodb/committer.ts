import { randomUUID } from 'node:crypto';
import type { CancellationReason, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { withRetries, type RandomSource, type RetryOptions } from '../../core/backoff';
import { buildActions, disjointWaves, planChunks, type PendingCommit, type ShardChoice } from './chunking';
import { classifyError } from '../../core/classify';
import { expirationFrom, type DedupSettings } from './dedup-record';
import { checkEffects } from './effects';
import { FailureKind, InvalidEffectError, messageOf, NotAttemptedError, OutOfTimeError, StateRefusalError } from '../../core/errors';
import { findCommitted, readCommitted } from './known-duplicates';
import { UNLIMITED_TIME, WorkPace, type TimeBudget } from '../../core/time-budget';
import { ShardLanes, type ShardLane } from './shard-lane';
import { commitTransaction, conflictingActions, describeReasons, failedCondition, type TransactionResult } from './transaction';

/** Transactions of one batch in flight at once, at most: enough to overlap round trips, few enough not to burst a table's capacity. */
export const MAX_CONCURRENT_TRANSACTIONS = 4;

/** What became of one event's commit. */
export type CommitOutcome =
  | { readonly status: 'applied' }
  /** Committed before. `conflictingPayload`: the earlier commit had another payload under this event id. */
  | { readonly status: 'duplicate'; readonly conflictingPayload: boolean }
  | { readonly status: 'failed'; readonly error: unknown };

export interface CommitterOptions {
  readonly dynamodb: DynamoDBClient;
  readonly dedup: DedupSettings;
  /** Retries of transient failures (throttling, conflicts, 5xx) in process. */
  readonly retry?: RetryOptions;
  /** @default () => new Date() */
  readonly now?: () => Date;
  /** Draws the shard lane (`shard-lane.ts`). @default Math.random */
  readonly random?: RandomSource;
}

export interface CommitRunOptions {
  /**
   * Stop at the first event that fails, whatever the failure, and leave the rest not attempted, as
   * ordered sources (Kinesis, DynamoDB Streams, a FIFO message group) need.
   * @default false
   */
  readonly stopOnFailure?: boolean;
  /** No transaction starts once the invocation's time for new work is gone: its events fail with {@link OutOfTimeError}. @default UNLIMITED_TIME */
  readonly budget?: TimeBudget;
  /** The run's place among runs committing at the same time (FIFO groups), added to each transaction's shard lane position. @default 0 */
  readonly position?: number;
}

/**
 * Commits each event's dedup record and effects in one DynamoDB transaction, so that an event is
 * applied exactly once however often it is delivered.
 */
export class TransactionalCommitter {
  private readonly now: () => Date;
  /** The shards its runs' transactions write, each run on a lane of its own, kept until one is cancelled by a conflict. */
  private readonly lanes: ShardLanes;

  public constructor(private readonly options: CommitterOptions) {
    this.now = options.now ?? (() => new Date());
    this.lanes = new ShardLanes(options.random);
  }

  /** Per-record mode: one transaction per event, in order. */
  public async commitEach(events: readonly PendingCommit[], run: CommitRunOptions = {}): Promise<Map<number, CommitOutcome>> {
    return this.lanes.withLane(async (lane) => {
      const outcomes = new Map<number, CommitOutcome>();
      const expiration = expirationFrom(this.now(), this.options.dedup.ttlSeconds);
      const valid = withoutInvalidEffects(events, outcomes);
      const paced = { ...run, pace: new WorkPace(run.budget ?? UNLIMITED_TIME), lane };
      for (const event of await this.withoutKnownDuplicates(valid, outcomes)) await this.commitUnlessStopped([event], expiration, outcomes, paced, run.position);
      return outcomes;
    });
  }

  /**
   * Batch-commit mode: events chunked into transactions of up to 100 actions, increments of one
   * item summed. A cancellation names the dedup puts that failed: those events are duplicates, and
   * the chunk commits again without them. Any other failure of a multi-event chunk falls back to
   * one transaction per event, so that one bad event cannot hold back the others.
   *
   * Write units are the bill, and a batch's floor is each new event's dedup record plus each
   * distinct item its events touch, each written once (2 WRU apiece under 1 KB): an item touched
   * from two chunks is written twice. An unordered run therefore lets {@link planChunks} place the
   * events that share items in the same chunk, which leaves a few items cut at each chunk
   * boundary (a page, a day counter); an ordered run keeps batch order. Outcomes are
   * keyed by event index, so the order of commit changes nothing a caller sees.
   *
   * Chunks that share no item commit at once (up to {@link MAX_CONCURRENT_TRANSACTIONS}): they
   * cannot conflict, and a batch then waits one round trip for them instead of one each. Chunks
   * that share an item (page views share their day counter) commit one after another, unless the
   * item is a sharded counter that their positions in the wave put on different shards; all chunks
   * of an ordered source commit one after another, as nothing may be applied after a transient
   * failure.
   */
  public async commitBatch(events: readonly PendingCommit[], run: CommitRunOptions = {}): Promise<Map<number, CommitOutcome>> {
    return this.lanes.withLane(async (lane) => {
      const outcomes = new Map<number, CommitOutcome>();
      const expiration = expirationFrom(this.now(), this.options.dedup.ttlSeconds);
      const plan = planChunks(await this.withoutKnownDuplicates(withoutInvalidEffects(events, outcomes), outcomes), { keepOrder: run.stopOnFailure ?? false });
      for (const { event, error } of plan.rejected) outcomes.set(event.index, { status: 'failed', error });
      const paced = { ...run, pace: new WorkPace(run.budget ?? UNLIMITED_TIME), lane };
      for (const wave of disjointWaves(plan.chunks, run.stopOnFailure ? 1 : MAX_CONCURRENT_TRANSACTIONS)) {
        await Promise.all(wave.map((chunk, position) => this.commitUnlessStopped(chunk.events, expiration, outcomes, paced, (run.position ?? 0) + position)));
      }
      return outcomes;
    });
  }

  /** Which of these events have a dedup record: applied already, by whatever delivery. Retries a read that fails; throws when it cannot tell. */
  public async committedOf(eventIds: readonly string[]): Promise<ReadonlySet<string>> {
    return withRetries(() => readCommitted(this.options.dynamodb, this.options.dedup, eventIds), this.options.retry);
  }

  /**
   * Redelivered events whose dedup record exists are duplicates already: they stay out of every
   * transaction, where one duplicate would cancel the fresh events' commit and cost a second one.
   * The read is skipped when every event is a redelivery, a heuristic: such a batch is most often
   * one retried after a failure, which committed nothing, so the read would be a request wasted;
   * its transactions still tell the duplicates apart.
   */
  private async withoutKnownDuplicates(events: readonly PendingCommit[], outcomes: Map<number, CommitOutcome>): Promise<readonly PendingCommit[]> {
    const redelivered = events.filter((event) => event.redelivered);
    if (redelivered.length === 0 || redelivered.length === events.length) return events;
    const committed = await findCommitted(this.options.dynamodb, this.options.dedup, redelivered.map((event) => event.eventId));
    return events.filter((event) => {
      if (!event.redelivered || !committed.has(event.eventId)) return true;
      outcomes.set(event.index, duplicateOf(event, committed.get(event.eventId)));
      return false;
    });
  }

  /**
   * Commits the events, unless an ordered batch already stopped at a failure (then they are not
   * attempted) or the invocation's time for new work is gone.
   */
  private async commitUnlessStopped(events: readonly PendingCommit[], expiration: number, outcomes: Map<number, CommitOutcome>, run: PacedRun, position = 0): Promise<void> {
    if (run.stopOnFailure && hasFailure(outcomes)) return setAll(outcomes, events, notAttempted());
    return this.commitChunk(events, expiration, outcomes, run, position);
  }

  /**
   * Commits the events in one transaction, the `position`-th of those committing at once (their
   * sharded counters land on distinct shards). Events that another invocation was committing at
   * that very moment (a conflict on their dedup record, on an unordered source) wait: the others
   * commit without them, then they are committed on their own, where a retry waits the other
   * invocation out and most likely finds them committed.
   */
  private async commitChunk(events: readonly PendingCommit[], expiration: number, outcomes: Map<number, CommitOutcome>, run: PacedRun, position: number): Promise<void> {
    const racing: PendingCommit[] = [];
    await this.commitUntilSettled(events, expiration, outcomes, run, position, run.stopOnFailure ? undefined : racing);
    if (racing.length > 0) await this.commitUntilSettled(racing, expiration, outcomes, run, position);
  }

  /** Commits until every event has an outcome; with `racing`, events whose dedup record conflicted are moved there instead of retried. */
  private async commitUntilSettled(events: readonly PendingCommit[], expiration: number, outcomes: Map<number, CommitOutcome>, run: PacedRun, position: number, racing?: PendingCommit[]): Promise<void> {
    const budget = run.budget ?? UNLIMITED_TIME;
    let remaining = events;
    while (remaining.length > 0) {
      if (!run.pace.canStart()) return setAll(outcomes, remaining, { status: 'failed', error: new OutOfTimeError(run.pace.remainingMs()) });
      const attempt = await run.pace.time(() => this.tryCommit(remaining, expiration, budget, run.lane, position, racing !== undefined));
      if (attempt.error !== undefined) return this.recoverChunk(remaining, attempt.error, expiration, outcomes, run, position);
      if (attempt.racing !== undefined) {
        const raced = attempt.racing;
        racing?.push(...raced);
        remaining = remaining.filter((event) => !raced.includes(event));
        continue;
      }
      if (attempt.reasons === undefined) return setAll(outcomes, remaining, { status: 'applied' });
      const duplicates = this.markDuplicates(remaining, attempt.reasons, outcomes);
      if (duplicates.size === 0) {
        const error = new StateRefusalError(`transaction cancelled by an effect's condition: ${describeReasons(attempt.reasons)}`);
        return this.recoverChunk(remaining, error, expiration, outcomes, run, position);
      }
      remaining = remaining.filter((event) => !duplicates.has(event.index));
    }
  }

  private async tryCommit(events: readonly PendingCommit[], expiration: number, budget: TimeBudget, lane: ShardLane, position: number, isolateRaces: boolean): Promise<CommitAttempt> {
    try {
      // One name for this commit and its retries: their token is the same, anyone else's is not (transaction.ts).
      const attempt = randomUUID();
      const result = await withRetries(() => this.commitOnLane(events, expiration, lane, position, isolateRaces, attempt), { ...this.options.retry, budget });
      if (result.committed) return {};
      return 'racing' in result ? { racing: result.racing } : { reasons: result.reasons };
    } catch (error) {
      return { error };
    }
  }

  /**
   * One attempt, on the lane's shards as they are now. A conflict on an effect moves the lane
   * before the retry. A conflict on a dedup put means another invocation is committing that very
   * event (a redelivery racing its original): with `isolateRaces`, those events are handed back,
   * to be committed after the others, which then do not wait for it.
   */
  private async commitOnLane(events: readonly PendingCommit[], expiration: number, lane: ShardLane, position: number, isolateRaces: boolean, attempt: string): Promise<TransactionResult | { readonly committed: false; readonly racing: readonly PendingCommit[] }> {
    const actions = buildTransaction(this.options.dedup, events, expiration, (shards) => lane.shardOf(shards, position));
    try {
      return await commitTransaction(this.options.dynamodb, actions, attempt);
    } catch (error) {
      const conflicts = conflictingActions(error);
      if (conflicts.some((action) => action >= events.length)) lane.leave();
      const racing = conflicts.filter((action) => action < events.length).map((action) => events[action] as PendingCommit);
      if (isolateRaces && racing.length > 0) return { committed: false, racing };
      throw error;
    }
  }

  /** A multi-event chunk that failed permanently retries event by event to isolate the culprit. */
  private async recoverChunk(events: readonly PendingCommit[], error: unknown, expiration: number, outcomes: Map<number, CommitOutcome>, run: PacedRun, position: number): Promise<void> {
    if (events.length === 1 || classifyError(error) === FailureKind.TRANSIENT) {
      return setAll(outcomes, events, { status: 'failed', error });
    }
    for (const event of events) await this.commitUnlessStopped([event], expiration, outcomes, run, position);
  }

  private markDuplicates(events: readonly PendingCommit[], reasons: readonly CancellationReason[], outcomes: Map<number, CommitOutcome>): Set<number> {
    const duplicates = new Set<number>();
    events.forEach((event, position) => {
      if (!failedCondition(reasons, position)) return;
      outcomes.set(event.index, duplicateOf(event, reasons[position]?.Item?.payloadHash?.S));
      duplicates.add(event.index);
    });
    return duplicates;
  }
}

/** What one commit of a chunk came to: committed (nothing set), cancelled by conditions, events racing another invocation, or an error. */
interface CommitAttempt {
  readonly error?: unknown;
  readonly reasons?: readonly CancellationReason[];
  readonly racing?: readonly PendingCommit[];
}

/** A run whose transactions are paced against its budget ({@link WorkPace}), on the shard lane it holds. */
type PacedRun = CommitRunOptions & { readonly pace: WorkPace; readonly lane: ShardLane };

/**
 * Events whose effects no transaction can carry fail alone, permanently (to the DLQ with their
 * context), before any is planned: one unmarshallable effect must not fail its whole batch.
 */
function withoutInvalidEffects(events: readonly PendingCommit[], outcomes: Map<number, CommitOutcome>): PendingCommit[] {
  return events.filter((event) => {
    try {
      checkEffects(event.effects);
      return true;
    } catch (error) {
      outcomes.set(event.index, { status: 'failed', error: new InvalidEffectError(`the effects of event ${event.eventId} cannot be committed: ${messageOf(error)}`, { cause: error }) });
      return false;
    }
  });
}

/** The transaction's actions; a failure to build them is the events' fault, never worth a retry. */
function buildTransaction(settings: DedupSettings, events: readonly PendingCommit[], expiration: number, shardOf: ShardChoice): ReturnType<typeof buildActions> {
  try {
    return buildActions(settings, events, expiration, shardOf);
  } catch (error) {
    throw new InvalidEffectError(`a transaction of ${events.length} events could not be built: ${messageOf(error)}`, { cause: error });
  }
}

/** A duplicate; its payload conflicts when the earlier commit stored another hash. */
function duplicateOf(event: PendingCommit, earlierHash: string | undefined): CommitOutcome {
  return { status: 'duplicate', conflictingPayload: earlierHash !== undefined && earlierHash !== event.payloadHash };
}

function setAll(outcomes: Map<number, CommitOutcome>, events: readonly PendingCommit[], outcome: CommitOutcome): void {
  for (const event of events) outcomes.set(event.index, outcome);
}

/** Any failure stops an ordered batch: the consumer settles it before the rest may go on. */
function hasFailure(outcomes: ReadonlyMap<number, CommitOutcome>): boolean {
  for (const outcome of outcomes.values()) if (outcome.status === 'failed') return true;
  return false;
}

function notAttempted(): CommitOutcome {
  return { status: 'failed', error: new NotAttemptedError() };
}
