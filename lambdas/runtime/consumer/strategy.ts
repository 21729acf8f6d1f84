import { NotAttemptedError } from '../core/errors';
import type { TimeBudget } from '../core/time-budget';
import type { ConsumedEvent, HandlerContext } from '../decoding/routes';

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
  /**
   * The invocation the run belongs to (one object per invocation, the same for each of its runs).
   * Bounds on work at once, such as `directStrategy`'s `concurrency`, hold per invocation: on
   * Lambda Managed Instances several invocations run at once in one process and share the
   * strategy, and one's slow handlers must not hold another's events back past its own time.
   * @default - one shared by every run without one
   */
  readonly invocation?: object;
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

/** The outcome of an event left not attempted after an earlier failure of its ordered run ({@link StrategyRun.ordered}). */
export function notAttempted(): Outcome {
  return { status: 'failed', error: new NotAttemptedError() };
}

/**
 * Runs each event's handler, in batch order, through `prepare` (which calls `invoke`). A handler
 * that throws fails its event; in an ordered run it also leaves the events after it not attempted.
 * Returns what `prepare` made of the others, and the outcomes so far.
 */
export function invokeHandlers<TResult, TPrepared>(
  events: readonly AcceptedEvent<TResult>[],
  run: StrategyRun,
  prepare: (accepted: AcceptedEvent<TResult>) => TPrepared,
): { readonly prepared: TPrepared[]; readonly outcomes: Map<number, Outcome> } {
  const outcomes = new Map<number, Outcome>();
  const prepared: TPrepared[] = [];
  let stopped = false;
  for (const accepted of events) {
    if (stopped) {
      outcomes.set(accepted.index, notAttempted());
      continue;
    }
    try {
      prepared.push(prepare(accepted));
    } catch (error) {
      outcomes.set(accepted.index, { status: 'failed', error });
      stopped = run.ordered;
    }
  }
  return { prepared, outcomes };
}
