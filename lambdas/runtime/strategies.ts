import { withRetries, type RetryOptions } from './backoff';
import { TransactionalCommitter, type CommitterOptions } from './committer';
import type { Effect } from './effects';
import { NotAttemptedError, OutOfTimeError } from './errors';
import { payloadHash } from './event-id';
import type { ConsumedEvent, HandlerContext } from './routes';
import { UNLIMITED_TIME, WorkPace, type TimeBudget } from './time-budget';

/** What became of one event. */
export type Outcome =
  | { readonly status: 'applied' }
  | { readonly status: 'duplicate'; readonly conflictingPayload?: boolean }
  /** Nothing to do: an older version than the stored one, or a change the consumer ignores. */
  | { readonly status: 'skipped'; readonly reason: string }
  | { readonly status: 'failed'; readonly error: unknown };

/** An event that decoded and validated, ready for its handler. */
export interface AcceptedEvent<TResult> {
  /** Position in the batch. */
  readonly index: number;
  readonly event: ConsumedEvent<unknown>;
  readonly context: HandlerContext;
  /** Runs the route's handler on the event. */
  readonly invoke: () => TResult;
}

/** What a strategy knows about the batch it applies. */
export interface StrategyRun {
  /**
   * The events are one order group (a stream batch, a FIFO message group): stop at the first event
   * that fails, whatever the failure, and leave the rest not attempted ({@link NotAttemptedError}).
   * The consumer settles that failure (to the DLQ, or reported) and, when it is settled, applies the
   * rest in a new run: AWS's rule for ordered sources is to stop at the first failure.
   */
  readonly ordered: boolean;
  /** The invocation's time for new work; an event whose work cannot start in it fails with {@link OutOfTimeError}. @default UNLIMITED_TIME */
  readonly budget?: TimeBudget;
  /**
   * This run's place among the runs that commit at the same time (FIFO groups run side by side),
   * so that each writes its own shard of a sharded counter.
   * @default 0
   */
  readonly position?: number;
}

/** How a consumer applies events: what its handlers return, and how that is committed. */
export interface Strategy<TResult> {
  /** Applies the events; never throws for one event's failure. */
  apply(events: readonly AcceptedEvent<TResult>[], run: StrategyRun): Promise<Map<number, Outcome>>;
  /**
   * Which of these events were applied already, by any delivery: asked before a transient failure on
   * its last attempt goes to the DLQ, so that a copy of an applied event does not page anyone.
   * Strategies that keep no record of applied events leave it out.
   */
  applied?(eventIds: readonly string[]): Promise<ReadonlySet<string>>;
}

/** Handler results of the transactional strategy: the effects to commit with the dedup record. */
export type Effects = readonly Effect[];

export interface TransactionalStrategyOptions extends CommitterOptions {
  /** `batch` commits many events per transaction; `per-record` one event per transaction. @default 'batch' */
  readonly mode?: 'batch' | 'per-record';
}

/**
 * Dedup by conditional write in the same transaction as the effect (docs/patterns/transactional-dedup.md).
 * Handlers return effects; they must not write to DynamoDB themselves.
 */
export function transactionalStrategy(options: TransactionalStrategyOptions): Strategy<Effects> {
  const committer = new TransactionalCommitter(options);
  return {
    async apply(events, run) {
      const outcomes = new Map<number, Outcome>();
      const pending = [];
      let stopped = false;
      for (const accepted of events) {
        if (stopped) {
          outcomes.set(accepted.index, notAttempted());
          continue;
        }
        try {
          pending.push({
            index: accepted.index,
            eventId: accepted.event.eventId,
            payloadHash: payloadHash(accepted.event.payload),
            effects: accepted.invoke(),
            redelivered: accepted.context.record.receiveCount > 1,
          });
        } catch (error) {
          outcomes.set(accepted.index, { status: 'failed', error });
          stopped = run.ordered;
        }
      }
      const commitRun = { stopOnFailure: run.ordered, budget: run.budget, position: run.position };
      const commit = options.mode === 'per-record' ? committer.commitEach(pending, commitRun) : committer.commitBatch(pending, commitRun);
      for (const [index, outcome] of await commit) outcomes.set(index, outcome);
      return outcomes;
    },
    applied: (eventIds) => committer.committedOf(eventIds),
  };
}

/** What a direct handler may report; nothing means applied. */
export type DirectResult = Promise<Outcome | void>;

/**
 * The handler does the work itself and is idempotent by construction: a natural-key upsert, a
 * versioned write, or an external call wrapped in Powertools idempotency. Events run one at a time
 * in batch order (an ordered run stops at its first failure); transient failures retry in process
 * with full-jitter backoff. An event starts
 * only while the budget left covers the slowest event so far ({@link WorkPace}).
 */
export function directStrategy(retry: RetryOptions = {}): Strategy<DirectResult> {
  return {
    async apply(events, run) {
      const budget = run.budget ?? UNLIMITED_TIME;
      const pace = new WorkPace(budget);
      const outcomes = new Map<number, Outcome>();
      let stopped = false;
      for (const accepted of events) {
        const outcome: Outcome = stopped ? notAttempted() : !pace.canStart() ? outOfTime(pace) : await pace.time(() => runDirect(accepted, { ...retry, budget, holdOnLocks: run.ordered }));
        outcomes.set(accepted.index, outcome);
        stopped ||= run.ordered && outcome.status === 'failed';
      }
      return outcomes;
    },
  };
}

function notAttempted(): Outcome {
  return { status: 'failed', error: new NotAttemptedError() };
}

function outOfTime(pace: WorkPace): Outcome {
  return { status: 'failed', error: new OutOfTimeError(pace.remainingMs()) };
}

async function runDirect(accepted: AcceptedEvent<DirectResult>, retry: RetryOptions): Promise<Outcome> {
  try {
    return (await withRetries(() => accepted.invoke(), retry)) ?? { status: 'applied' };
  } catch (error) {
    return { status: 'failed', error };
  }
}
