import type { CancellationReason, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { withRetries, type RetryOptions } from './backoff';
import { buildActions, planChunks, type PendingCommit } from './chunking';
import { classifyError } from './classify';
import { expirationFrom, type DedupSettings } from './dedupRecord';
import { FailureKind, NotAttemptedError, PermanentError } from './errors';
import { commitTransaction, describeReasons, failedCondition } from './transaction';

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
    for (const event of events) {
      if (run.stopOnFailure && hasFailure(outcomes)) outcomes.set(event.index, notAttempted());
      else await this.commitChunk([event], expiration, outcomes, run);
    }
    return outcomes;
  }

  /**
   * Batch-commit mode: events chunked into transactions of up to 100 actions, increments of one
   * item summed. A cancellation names the dedup puts that failed: those events are duplicates, and
   * the chunk commits again without them. Any other failure of a multi-event chunk falls back to
   * one transaction per event, so that one bad event cannot hold back the others.
   */
  public async commitBatch(events: readonly PendingCommit[], run: CommitRunOptions = {}): Promise<Map<number, CommitOutcome>> {
    const outcomes = new Map<number, CommitOutcome>();
    const expiration = expirationFrom(this.now(), this.options.dedup.ttlSeconds);
    const plan = planChunks(events);
    for (const { event, error } of plan.rejected) outcomes.set(event.index, { status: 'failed', error });
    for (const chunk of plan.chunks) {
      if (run.stopOnFailure && hasFailure(outcomes)) chunk.events.forEach((event) => outcomes.set(event.index, notAttempted()));
      else await this.commitChunk(chunk.events, expiration, outcomes, run);
    }
    return outcomes;
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
    for (const event of events) {
      if (run.stopOnFailure && hasFailure(outcomes)) outcomes.set(event.index, notAttempted());
      else await this.commitChunk([event], expiration, outcomes, run);
    }
  }

  private markDuplicates(events: readonly PendingCommit[], reasons: readonly CancellationReason[], outcomes: Map<number, CommitOutcome>): Set<number> {
    const duplicates = new Set<number>();
    events.forEach((event, position) => {
      if (!failedCondition(reasons, position)) return;
      const earlierHash = reasons[position]?.Item?.payloadHash?.S;
      outcomes.set(event.index, { status: 'duplicate', conflictingPayload: earlierHash !== undefined && earlierHash !== event.payloadHash });
      duplicates.add(event.index);
    });
    return duplicates;
  }
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
