/**
 * One invocation's work: each record applied through the strategy and, when it failed, settled
 * (to the DLQ, or reported), by order group (order-groups.ts).
 *
 * Unordered records (a standard queue's) go to the strategy at once, and their failures are settled
 * after. An order group (a stream batch, a FIFO message group) goes in order, and AWS's rule holds
 * for it: stop at the first failure, and report it with every record after it. The first failure is
 * settled as soon as it happens, a record that does not decode included. When it is reported, the
 * rest is reported too, not attempted. When it is handled (in the DLQ with its context, or found
 * applied already), the rest goes on in a new strategy run, unless it was a transient failure
 * dead-lettered on its last attempt: such a record can come back (its invocation dies before Lambda
 * gets the answer, a batch is held past its visibility timeout) and then apply, after whatever
 * followed it; so the rest is reported, not attempted, and runs on its next receive, behind it.
 * A permanent failure of the event's own fails again when it comes back; one the stored state
 * decided (a constraint: `StateRefusalError`) may not, and is treated as the last-attempt one.
 * Groups run side by side.
 *
 * A record whose event id an earlier record of its group (or of the unordered set) carries is a
 * twin (a producer's retry, a redelivery in the same batch): it never reaches the strategy, where
 * one transaction may not touch a dedup record twice, and ends as a duplicate once its primary is
 * applied or handled; while its primary waits for redelivery, so does the twin.
 */
import { DlqReason } from '../../../aws/dlq-format';
import { decidedByState, NotAttemptedError, messageOf } from '../core/errors';
import { payloadHash } from '../events/event-id';
import { MetricName, type Observability } from '../core/observability';
import { byOrderGroup } from './order-groups';
import type { SourceRecord } from '../decoding/records';
import type { RecordResult, Settlement, Settler } from './settle';
import type { AcceptedEvent, Outcome, Strategy, StrategyRun } from './strategy';
import type { TimeBudget } from '../core/time-budget';

const TWIN_WAITS = 'not attempted: a record of this batch with the same event id failed and waits for redelivery';

/** One record of the batch, decoded or not. */
export interface BatchItem<TResult> {
  readonly index: number;
  readonly record: SourceRecord;
  /** Ready for its handler; absent when the record did not decode or validate. */
  readonly accepted?: AcceptedEvent<TResult>;
  /** Why it did not decode or validate: a permanent error. */
  readonly decodeError?: unknown;
  readonly eventId?: string;
  readonly eventType?: string;
}

/** A record's end: its last outcome, and whether it is reported for redelivery. */
export interface Settled {
  readonly outcome: Outcome;
  readonly reported: boolean;
}

export class BatchRun<TResult> {
  private readonly settled = new Map<number, Settled>();
  /** This invocation, as its strategy runs name it: bounds on work at once are per invocation. */
  private readonly invocation = {};

  public constructor(
    private readonly strategy: Strategy<TResult>,
    private readonly settler: Settler,
    private readonly budget: TimeBudget,
    private readonly observability: Observability,
  ) {}

  /** Applies and settles every item; returns each one's end by batch position. */
  public async run(items: readonly BatchItem<TResult>[]): Promise<ReadonlyMap<number, Settled>> {
    const groups = [...byOrderGroup(items, (item) => item.record)];
    const ordered = groups.filter(([group]) => group !== undefined);
    await Promise.all(groups.map(([group, members]) => (group === undefined ? this.runUnordered(members) : this.runOrdered(members, ordered.findIndex(([other]) => other === group)))));
    return this.settled;
  }

  private async runUnordered(members: readonly BatchItem<TResult>[]): Promise<void> {
    const twins = this.twinsOf(members);
    const primaries = members.filter((member) => member.accepted !== undefined && !twins.has(member.index));
    const outcomes = await this.apply(primaries, { ordered: false, budget: this.budget });
    const failed: { member: BatchItem<TResult>; outcome: Outcome }[] = [];
    for (const member of members) {
      if (twins.has(member.index)) continue;
      const outcome = outcomeOf(member, outcomes);
      if (outcome.status === 'failed') failed.push({ member, outcome });
      else this.end(member, outcome, false);
    }
    const settlements = await this.settler.settle(failed.map(({ member, outcome }) => resultOf(member, outcome)));
    failed.forEach(({ member }, position) => this.endSettled(member, settlements[position] as Settlement));
    await this.settleTwins(members, twins);
  }

  /**
   * Each twin ends as its primary did: a duplicate once the primary applied or was handled, and
   * reported, not attempted, when the primary was reported (on the queue's final receive it goes to
   * the DLQ with its context, labelled not attempted, as a blocked record does). A twin is never deleted while
   * its event waits for redelivery: a second invocation holding the same messages (a visibility
   * timeout that ended mid-batch) may take the other copy as its primary, and two deletes, one per
   * invocation, would then leave no copy of an event that never applied.
   */
  private async settleTwins(members: readonly BatchItem<TResult>[], twins: ReadonlyMap<number, number>): Promise<void> {
    const byIndex = new Map(members.map((member) => [member.index, member]));
    const waiting: BatchItem<TResult>[] = [];
    for (const [index, primaryIndex] of twins) {
      if (this.settled.get(primaryIndex)?.reported === true) waiting.push(byIndex.get(index) as BatchItem<TResult>);
      else this.settled.set(index, { outcome: { status: 'duplicate' }, reported: false });
    }
    if (waiting.length === 0) return;
    const outcome: Outcome = { status: 'failed', error: new NotAttemptedError(TWIN_WAITS) };
    const settlements = await this.settler.settle(waiting.map((member) => resultOf(member, outcome)));
    waiting.forEach((member, position) => this.endSettled(member, settlements[position] as Settlement));
  }

  /** The group in order: runs of decoded records through the strategy, each first failure settled before anything after it. */
  private async runOrdered(members: readonly BatchItem<TResult>[], position: number): Promise<void> {
    const twins = this.twinsOf(members);
    let at = 0;
    while (at < members.length) {
      const member = members[at] as BatchItem<TResult>;
      if (member.accepted === undefined) {
        if (!(await this.settleNow(member, { status: 'failed', error: member.decodeError }))) return this.reportRest(members.slice(at + 1));
        at += 1;
        continue;
      }
      const run = await this.runSegment(members, at, twins, position);
      if (run === 'stopped') return;
      at = run;
    }
  }

  /**
   * The decoded records from `start` up to the next one that did not decode, through one strategy
   * run. Returns where the group goes on: after the run, or after its first failure once that is
   * handled; `stopped` once a failure is reported (the rest reported with it).
   */
  private async runSegment(members: readonly BatchItem<TResult>[], start: number, twins: ReadonlyMap<number, number>, position: number): Promise<number | 'stopped'> {
    let end = start;
    while (end < members.length && members[end]?.accepted !== undefined) end += 1;
    const segment = members.slice(start, end);
    const outcomes = await this.apply(segment.filter((member) => !twins.has(member.index)), { ordered: true, budget: this.budget, position });
    for (const [offset, member] of segment.entries()) {
      if (twins.has(member.index)) {
        this.settled.set(member.index, { outcome: { status: 'duplicate' }, reported: false });
        continue;
      }
      const outcome = outcomeOf(member, outcomes);
      if (outcome.status !== 'failed') {
        this.end(member, outcome, false);
        continue;
      }
      if (await this.settleNow(member, outcome)) return start + offset + 1;
      await this.reportRest(members.slice(start + offset + 1));
      return 'stopped';
    }
    return end;
  }

  /**
   * Settles one failure at once; true when its group may go on in this invocation: it was found
   * applied, or dead-lettered for a permanent failure that fails again when it comes back. One the
   * stored state decided (a constraint) may pass when it comes back, after what followed it, so
   * the rest waits for its next receive, behind it.
   */
  private async settleNow(member: BatchItem<TResult>, outcome: Outcome): Promise<boolean> {
    const [settlement] = (await this.settler.settle([resultOf(member, outcome)])) as [Settlement];
    this.endSettled(member, settlement);
    if (settlement.fate !== 'handled') return false;
    if (settlement.reason === undefined) return true;
    return settlement.reason === DlqReason.PERMANENT && !(outcome.status === 'failed' && decidedByState(outcome.error));
  }

  /** The rest of a stopped group: not attempted, reported (or, on the queue's final receive, dead-lettered with its context). */
  private async reportRest(rest: readonly BatchItem<TResult>[]): Promise<void> {
    const outcome: Outcome = { status: 'failed', error: new NotAttemptedError() };
    const settlements = await this.settler.settle(rest.map((member) => resultOf(member, outcome)));
    rest.forEach((member, position) => this.endSettled(member, settlements[position] as Settlement));
  }

  /**
   * A strategy never throws for one event's failure; if it throws all the same (a bug, a broken
   * custom strategy), its events fail with that error rather than the whole invocation, so that
   * each record still gets its retries, its visibility backoff and, last, its DLQ context.
   */
  private async apply(members: readonly BatchItem<TResult>[], run: StrategyRun): Promise<Map<number, Outcome>> {
    if (members.length === 0) return new Map();
    try {
      return await this.strategy.apply(members.map((member) => member.accepted as AcceptedEvent<TResult>), { ...run, invocation: this.invocation });
    } catch (error) {
      this.observability.logger.error('the strategy failed the whole batch: its events are failed with its error', { error: messageOf(error) });
      return new Map(members.map((member) => [member.index, { status: 'failed', error }]));
    }
  }

  /**
   * Twins by position, each with its primary's: the records whose event id an earlier one of
   * `members` carries. A twin with another payload means a broken producer: counted and logged.
   */
  private twinsOf(members: readonly BatchItem<TResult>[]): Map<number, number> {
    const primaries = new Map<string, BatchItem<TResult>>();
    const twins = new Map<number, number>();
    for (const member of members) {
      if (member.accepted === undefined) continue;
      const { eventId } = member.accepted.event;
      const primary = primaries.get(eventId);
      if (primary === undefined) {
        primaries.set(eventId, member);
        continue;
      }
      twins.set(member.index, primary.index);
      if (!samePayload(primary.accepted?.event.payload, member.accepted.event.payload)) {
        this.observability.count(MetricName.CONFLICTING_DUPLICATES);
        this.observability.logger.error('duplicate event id with a different payload in one batch: the producer is broken', { eventId });
      }
    }
    return twins;
  }

  private end(member: BatchItem<TResult>, outcome: Outcome, reported: boolean): void {
    this.settled.set(member.index, { outcome, reported });
  }

  private endSettled(member: BatchItem<TResult>, settlement: Settlement): void {
    this.end(member, settlement.outcome, settlement.fate === 'reported');
  }
}

function outcomeOf<TResult>(member: BatchItem<TResult>, outcomes: ReadonlyMap<number, Outcome>): Outcome {
  if (member.accepted === undefined) return { status: 'failed', error: member.decodeError };
  return outcomes.get(member.index) ?? { status: 'failed', error: new NotAttemptedError() };
}

/** Whether two payloads hash alike; a payload that cannot be hashed is unlike any other (its strategy run fails it, permanently). */
function samePayload(first: unknown, second: unknown): boolean {
  try {
    return payloadHash(first) === payloadHash(second);
  } catch {
    return false;
  }
}

function resultOf<TResult>(member: BatchItem<TResult>, outcome: Outcome): RecordResult {
  return { record: member.record, outcome, eventId: member.eventId, eventType: member.eventType };
}
