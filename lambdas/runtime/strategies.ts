import { withRetries, type RetryOptions } from './backoff';
import { classifyError } from './classify';
import { TransactionalCommitter, type CommitterOptions } from './committer';
import type { Effect } from './effects';
import { FailureKind, NotAttemptedError, OutOfTimeError } from './errors';
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
  /** Kinesis and DynamoDB Streams: nothing may be applied after a record that failed transiently. */
  readonly ordered: boolean;
  /** The invocation's time for new work; an event whose work cannot start in it fails with {@link OutOfTimeError}. @default UNLIMITED_TIME */
  readonly budget?: TimeBudget;
}

/** How a consumer applies events: what its handlers return, and how that is committed. */
export interface Strategy<TResult> {
  /** Applies the events; never throws for one event's failure. */
  apply(events: readonly AcceptedEvent<TResult>[], run: StrategyRun): Promise<Map<number, Outcome>>;
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
          // On an ordered source nothing after a transient failure may be applied before it.
          stopped = run.ordered && classifyError(error) === FailureKind.TRANSIENT;
        }
      }
      const commitRun = { stopOnFailure: run.ordered, budget: run.budget };
      const commit = options.mode === 'per-record' ? committer.commitEach(pending, commitRun) : committer.commitBatch(pending, commitRun);
      for (const [index, outcome] of await commit) outcomes.set(index, outcome);
      return outcomes;
    },
  };
}

/** What a direct handler may report; nothing means applied. */
export type DirectResult = Promise<Outcome | void>;

/**
 * The handler does the work itself and is idempotent by construction: a natural-key upsert, a
 * versioned write, or an external call wrapped in Powertools idempotency. Events run one at a time
 * in batch order; transient failures retry in process with full-jitter backoff. An event starts
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
        stopped ||= run.ordered && outcome.status === 'failed' && classifyError(outcome.error) === FailureKind.TRANSIENT;
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
