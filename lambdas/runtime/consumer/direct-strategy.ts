import { withRetries, type RetryOptions } from '../core/backoff';
import { OutOfTimeError } from '../core/errors';
import { UNLIMITED_TIME, WorkPace } from '../core/time-budget';
import { InvocationSlots } from './slots';
import { notAttempted, type AcceptedEvent, type Outcome, type Strategy } from './strategy';

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
   * The most handlers in flight at once, over every event of one invocation: the events of an
   * unordered source, and the order groups of an ordered one (each group one event at a time).
   * Invocations that run at once in one process (Lambda Managed Instances) each have their own.
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
  const slots = new InvocationSlots(concurrency);
  return {
    apply(events, run) {
      const budget = run.budget ?? UNLIMITED_TIME;
      const own = slots.of(run.invocation);
      const start = (accepted: AcceptedEvent<DirectResult>, pace: WorkPace): Promise<Outcome> =>
        own.run(async () => (pace.canStart() ? pace.time(() => runDirect(accepted, { ...retry, budget, holdOnLocks: run.ordered })) : outOfTime(pace)));
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
