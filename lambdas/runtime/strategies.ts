import { withRetries, type RetryOptions } from './backoff';
import { classifyError } from './classify';
import { TransactionalCommitter, type CommitterOptions } from './committer';
import type { Effect } from './effects';
import { FailureKind, NotAttemptedError } from './errors';
import { payloadHash } from './eventId';
import type { ConsumedEvent, HandlerContext } from './routes';

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

/** How a consumer applies events: what its handlers return, and how that is committed. */
export interface Strategy<TResult> {
  /** Applies the events; never throws for one event's failure. */
  apply(events: readonly AcceptedEvent<TResult>[], run: { readonly ordered: boolean }): Promise<Map<number, Outcome>>;
}

/** Handler results of the transactional strategy: the effects to commit with the dedup record. */
export type Effects = readonly Effect[];

export interface TransactionalStrategyOptions extends CommitterOptions {
  /** `batch` commits many events per transaction; `per-record` one event per transaction. @default 'batch' */
  readonly mode?: 'batch' | 'per-record';
}

/**
 * Dedup by conditional write in the same transaction as the effect (DESIGN.md, pattern 2).
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
          outcomes.set(accepted.index, { status: 'failed', error: new NotAttemptedError() });
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
      const commit = options.mode === 'per-record' ? committer.commitEach(pending, { stopOnFailure: run.ordered }) : committer.commitBatch(pending, { stopOnFailure: run.ordered });
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
 * in batch order; transient failures retry in process with full-jitter backoff.
 */
export function directStrategy(retry: RetryOptions = {}): Strategy<DirectResult> {
  return {
    async apply(events, run) {
      const outcomes = new Map<number, Outcome>();
      let stopped = false;
      for (const accepted of events) {
        const outcome: Outcome = stopped ? { status: 'failed', error: new NotAttemptedError() } : await runDirect(accepted, retry);
        outcomes.set(accepted.index, outcome);
        stopped ||= run.ordered && outcome.status === 'failed' && classifyError(outcome.error) === FailureKind.TRANSIENT;
      }
      return outcomes;
    },
  };
}

async function runDirect(accepted: AcceptedEvent<DirectResult>, retry: RetryOptions): Promise<Outcome> {
  try {
    return (await withRetries(() => accepted.invoke(), retry)) ?? { status: 'applied' };
  } catch (error) {
    return { status: 'failed', error };
  }
}
