import { withRetries, type RetryOptions } from './backoff';
import { TransactionalCommitter, type CommitterOptions } from './committer';
import type { Effect } from './effects';
import { NotAttemptedError, OutOfTimeError } from './errors';
import { payloadHash } from './event-id';
import type { ConsumedEvent, HandlerContext } from './routes';
import { Slots } from './slots';
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

/** Options of {@link transactionalStrategy}: how many events a transaction commits, and the dedup records it writes. */
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
 * How many direct handlers run at once by default. Ten is a standard queue's default batch size
 * (and its largest without a batching window), so a default batch runs whole at once, as
 * Powertools' `BatchProcessor` runs it (`processInParallel`, on by default, with no bound); a
 * bound still keeps a large batch (a batching window admits up to 10,000 records) from opening as
 * many requests at once against one dependency and the SDK's connection pool.
 */
export const DEFAULT_DIRECT_CONCURRENCY = 10;

/** Options of {@link directStrategy}: how many handlers run at once, and how each event is retried in process. */
export interface DirectStrategyOptions extends RetryOptions {
  /**
   * The most handlers in flight at once, over every event this strategy applies: the events of an
   * unordered source, and the order groups of an ordered one (each group one event at a time).
   * `1` runs every event one at a time, for handlers that are not safe to run side by side.
   * @default 10 (`DEFAULT_DIRECT_CONCURRENCY`)
   */
  readonly concurrency?: number;
}

/**
 * The handler does the work itself and is idempotent by construction: a natural-key upsert, a
 * versioned write, or an external call wrapped in Powertools idempotency. The events of an
 * unordered source (a standard queue, SNS or EventBridge through one) run concurrently, up to
 * `concurrency` at once, started in batch order. An ordered run (a FIFO message group, a stream
 * batch) goes one event at a time in batch order and stops at its first failure; the consumer runs
 * its order groups side by side, and they share the same `concurrency`. Transient failures retry in
 * process with full-jitter backoff. An event starts only while the budget left covers the slowest
 * event so far ({@link WorkPace}); one that waits for a slot past that point is out of time.
 *
 * Records that carry the same event id never run at once: the consumer passes only the first of
 * them to the strategy.
 *
 * @throws RangeError when `concurrency` is not a positive integer
 * @example
 * ```ts
 * import { directStrategy } from 'effectively-once/runtime';
 * const strategy = directStrategy({ maxAttempts: 3, concurrency: 4 }); // at most 4 handlers in flight, each event tried up to 3 times
 * ```
 */
export function directStrategy(options: DirectStrategyOptions = {}): Strategy<DirectResult> {
  const { concurrency = DEFAULT_DIRECT_CONCURRENCY, ...retry } = options;
  const slots = new Slots(concurrency);
  return {
    apply(events, run) {
      const budget = run.budget ?? UNLIMITED_TIME;
      const start = (accepted: AcceptedEvent<DirectResult>, pace: WorkPace): Promise<Outcome> =>
        slots.run(async () => (pace.canStart() ? pace.time(() => runDirect(accepted, { ...retry, budget, holdOnLocks: run.ordered })) : outOfTime(pace)));
      return run.ordered ? applyInOrder(events, new WorkPace(budget), start) : applyAtOnce(events, new WorkPace(budget), start);
    },
  };
}

type Start = (accepted: AcceptedEvent<DirectResult>, pace: WorkPace) => Promise<Outcome>;

/** Every event asks for a slot at once; the outcomes keep batch order. */
async function applyAtOnce(events: readonly AcceptedEvent<DirectResult>[], pace: WorkPace, start: Start): Promise<Map<number, Outcome>> {
  const outcomes = await Promise.all(events.map((accepted) => start(accepted, pace)));
  return new Map(events.map((accepted, position) => [accepted.index, outcomes[position] as Outcome]));
}

/** One event at a time; after the first failure nothing more runs. */
async function applyInOrder(events: readonly AcceptedEvent<DirectResult>[], pace: WorkPace, start: Start): Promise<Map<number, Outcome>> {
  const outcomes = new Map<number, Outcome>();
  let stopped = false;
  for (const accepted of events) {
    const outcome: Outcome = stopped ? notAttempted() : await start(accepted, pace);
    outcomes.set(accepted.index, outcome);
    stopped ||= outcome.status === 'failed';
  }
  return outcomes;
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
