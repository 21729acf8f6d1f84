import { TransactionalCommitter, type CommitterOptions } from './committer';
import type { Effect } from './effects';
import { payloadHash } from '../../events/event-id';
import { invokeHandlers, type Strategy } from '../../consumer/strategy';

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
      const { prepared: pending, outcomes } = invokeHandlers(events, run, (accepted) => ({
        index: accepted.index,
        eventId: accepted.event.eventId,
        payloadHash: payloadHash(accepted.event.payload),
        effects: accepted.invoke(),
        redelivered: accepted.context.record.receiveCount > 1,
      }));
      const commitRun = { stopOnFailure: run.ordered, budget: run.budget, position: run.position };
      const commit = options.mode === 'per-record' ? committer.commitEach(pending, commitRun) : committer.commitBatch(pending, commitRun);
      for (const [index, outcome] of await commit) outcomes.set(index, outcome);
      return outcomes;
    },
    applied: (eventIds) => committer.committedOf(eventIds),
  };
}
