/**
 * A run whose transaction the Data API aborted on a failed statement (its troubleshooting page:
 * "Transaction has been aborted due to an error from a previous call"): no savepoint survives that,
 * so the statement that failed cannot be isolated inside the transaction, and retrying the run as
 * it was would meet the same statement and abort again, until every good event of it reached the
 * DLQ as a last attempt. Instead the run is committed again in parts, each its own transaction in
 * which a failing statement ends the transaction (`whole`): a part that commits is done; a part
 * that fails for an event's reason is split in halves, down to the one event that fails alone with
 * its SQLSTATE. The parts go in the run's order, so the state is that of applying the events one
 * at a time, less the ones that failed; on an ordered run, the events after a failure are not
 * attempted, as AWS's rule for ordered sources wants. k bad events among n cost about 2k log2(n)
 * transactions more than one.
 */
import { OutOfTimeError } from '../../core/errors';
import type { WorkPace } from '../../core/time-budget';
import { notAttempted, type Outcome } from '../../consumer/strategy';
import type { PendingEvent } from './batch-commit';
import { SqlStatementError } from './errors';

/** Commits one part in a transaction of its own (with the strategy's retries), a failing statement ending it. */
export type PartCommit = (part: readonly PendingEvent[]) => Promise<Map<number, Outcome>>;

/** The outcomes of committing `events` part by part, halving each part that fails for an event's reason. */
export async function commitInParts(events: readonly PendingEvent[], commitPart: PartCommit, run: { readonly ordered: boolean; readonly pace: WorkPace }): Promise<Map<number, Outcome>> {
  const outcomes = new Map<number, Outcome>();
  let stopped = false;
  const commit = async (part: readonly PendingEvent[]): Promise<void> => {
    if (stopped) return setAll(outcomes, part, notAttempted());
    if (!run.pace.canStart()) return setAll(outcomes, part, { status: 'failed', error: new OutOfTimeError(run.pace.remainingMs()) });
    try {
      for (const [index, outcome] of await commitPart(part)) outcomes.set(index, outcome);
    } catch (error) {
      if (error instanceof SqlStatementError && part.length > 1) {
        const middle = Math.ceil(part.length / 2);
        await commit(part.slice(0, middle));
        await commit(part.slice(middle));
        return;
      }
      setAll(outcomes, part, { status: 'failed', error });
      stopped = run.ordered;
    }
  };
  await commit(events);
  return outcomes;
}

function setAll(outcomes: Map<number, Outcome>, events: readonly PendingEvent[], outcome: Outcome): void {
  for (const event of events) outcomes.set(event.index, outcome);
}
