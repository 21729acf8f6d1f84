import type { CancellationReason, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { withRetries, type RetryOptions } from './backoff';
import { buildActions, disjointWaves, planChunks, type PendingCommit } from './chunking';
import { classifyError } from './classify';
import { expirationFrom, type DedupSettings } from './dedupRecord';
import { FailureKind, NotAttemptedError, PermanentError } from './errors';
import { findCommitted } from './knownDuplicates';
import { commitTransaction, describeReasons, failedCondition } from './transaction';

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
}

export interface CommitRunOptions {
  /**
   * Stop at the first event that fails and leave the rest unattempted (reported failed), as
   * ordered sources (Kinesis, DynamoDB Streams) need.
   * @default false
   */
  readonly stopOnFailure?: boolean;
}

/**
 * Commits each event's dedup record and effects in one DynamoDB transaction, so that an event is
 * applied exactly once however often it is delivered.
 */
export class TransactionalCommitter {
  private readonly now: () => Date;

  public constructor(private readonly options: CommitterOptions) {
    this.now = options.now ?? (() => new Date());
  }

  /** Per-record mode: one transaction per event, in order. */
  public async commitEach(events: readonly PendingCommit[], run: CommitRunOptions = {}): Promise<Map<number, CommitOutcome>> {
    const outcomes = new Map<number, CommitOutcome>();
    const expiration = expirationFrom(this.now(), this.options.dedup.ttlSeconds);
    for (const event of await this.withoutKnownDuplicates(events, outcomes)) await this.commitUnlessStopped([event], expiration, outcomes, run);
    return outcomes;
  }

  /**
   * Batch-commit mode: events chunked into transactions of up to 100 actions, increments of one
   * item summed. A cancellation names the dedup puts that failed: those events are duplicates, and
   * the chunk commits again without them. Any other failure of a multi-event chunk falls back to
   * one transaction per event, so that one bad event cannot hold back the others.
   *
   * Chunks that share no item commit at once (up to {@link MAX_CONCURRENT_TRANSACTIONS}): they
   * cannot conflict, and a batch then waits one round trip for them instead of one each. Chunks
   * that share an item (page views share their day counter) commit one after another, as do all
   * chunks of an ordered source, where nothing may be applied after a transient failure.
   */
  public async commitBatch(events: readonly PendingCommit[], run: CommitRunOptions = {}): Promise<Map<number, CommitOutcome>> {
    const outcomes = new Map<number, CommitOutcome>();
    const expiration = expirationFrom(this.now(), this.options.dedup.ttlSeconds);
    const plan = planChunks(await this.withoutKnownDuplicates(events, outcomes));
    for (const { event, error } of plan.rejected) outcomes.set(event.index, { status: 'failed', error });
    for (const wave of disjointWaves(plan.chunks, run.stopOnFailure ? 1 : MAX_CONCURRENT_TRANSACTIONS)) {
      await Promise.all(wave.map((chunk) => this.commitUnlessStopped(chunk.events, expiration, outcomes, run)));
    }
    return outcomes;
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
    const committed = await findCommitted(this.options.dynamodb, this.options.dedup, redelivered);
    return events.filter((event) => {
      if (!event.redelivered || !committed.has(event.eventId)) return true;
      outcomes.set(event.index, duplicateOf(event, committed.get(event.eventId)));
      return false;
    });
  }

  /** Commits the events, unless an ordered batch already stopped at a transient failure: then they are not attempted. */
  private async commitUnlessStopped(events: readonly PendingCommit[], expiration: number, outcomes: Map<number, CommitOutcome>, run: CommitRunOptions): Promise<void> {
    if (!run.stopOnFailure || !hasFailure(outcomes)) return this.commitChunk(events, expiration, outcomes, run);
    for (const event of events) outcomes.set(event.index, notAttempted());
  }

  private async commitChunk(events: readonly PendingCommit[], expiration: number, outcomes: Map<number, CommitOutcome>, run: CommitRunOptions): Promise<void> {
    let remaining = events;
    while (remaining.length > 0) {
      const attempt = await this.tryCommit(remaining, expiration);
      if (attempt.error !== undefined) return this.recoverChunk(remaining, attempt.error, expiration, outcomes, run);
      if (attempt.reasons === undefined) return setAll(outcomes, remaining, { status: 'applied' });
      const duplicates = this.markDuplicates(remaining, attempt.reasons, outcomes);
      if (duplicates.size === 0) {
        const error = new PermanentError(`transaction cancelled by an effect's condition: ${describeReasons(attempt.reasons)}`);
        return this.recoverChunk(remaining, error, expiration, outcomes, run);
      }
      remaining = remaining.filter((event) => !duplicates.has(event.index));
    }
  }

  private async tryCommit(events: readonly PendingCommit[], expiration: number): Promise<{ error?: unknown; reasons?: readonly CancellationReason[] }> {
    const actions = buildActions(this.options.dedup, events, expiration);
    try {
      const result = await withRetries(() => commitTransaction(this.options.dynamodb, actions), this.options.retry);
      return result.committed ? {} : { reasons: result.reasons };
    } catch (error) {
      return { error };
    }
  }

  /** A multi-event chunk that failed permanently retries event by event to isolate the culprit. */
  private async recoverChunk(events: readonly PendingCommit[], error: unknown, expiration: number, outcomes: Map<number, CommitOutcome>, run: CommitRunOptions): Promise<void> {
    if (events.length === 1 || classifyError(error) === FailureKind.TRANSIENT) {
      return setAll(outcomes, events, { status: 'failed', error });
    }
    for (const event of events) await this.commitUnlessStopped([event], expiration, outcomes, run);
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

/** A duplicate; its payload conflicts when the earlier commit stored another hash. */
function duplicateOf(event: PendingCommit, earlierHash: string | undefined): CommitOutcome {
  return { status: 'duplicate', conflictingPayload: earlierHash !== undefined && earlierHash !== event.payloadHash };
}

function setAll(outcomes: Map<number, CommitOutcome>, events: readonly PendingCommit[], outcome: CommitOutcome): void {
  for (const event of events) outcomes.set(event.index, outcome);
}

/** A transient failure stops an ordered batch; a permanent one does not (its record goes to the DLQ). */
function hasFailure(outcomes: ReadonlyMap<number, CommitOutcome>): boolean {
  for (const outcome of outcomes.values()) {
    if (outcome.status === 'failed' && classifyError(outcome.error) === FailureKind.TRANSIENT) return true;
  }
  return false;
}

function notAttempted(): CommitOutcome {
  return { status: 'failed', error: new NotAttemptedError() };
}
