/**
 * The checker: invariants over a whole run's history (Jepsen-style: what was published, delivered,
 * applied and dead-lettered, in what order), not per call. Each returns the violations it finds,
 * as sentences that name the invocation, the record and the event. The `sql` strategy's runs are
 * held to one more, which needs the database: the one-at-a-time replay (one-at-a-time.ts).
 *
 * Documented exceptions, and only these:
 * - A copy of an event may sit in a DLQ although the event applied, when the copy was dead-lettered
 *   before another copy applied it (a producer's retry, a redelivery after a crash that lost the
 *   answer): honest when it was sent. On AWS too; `eo dlq inspect` labels it "already applied".
 *   The direct strategy keeps no dedup record, so there it may also follow an application.
 * - SQS's redrive policy may move a message (with no context) when its last receive was answered
 *   by a function that died or could not reach its DLQ: the queue's backstop.
 * - On a stream, records the mapping gave up on are in an on-failure range (metadata only, no
 *   context), and a range may cover records that had been applied: its redrive dedups them.
 * - A record whose handler never ran goes to the DLQ only on the queue's final receive, with
 *   reason `not-attempted` and its context: the alternative is SQS's move with none.
 * - FIFO order holds only while each batch is answered within its visibility timeout.
 */
import { DlqReason, type FailureEnvelope } from '../../aws/dlq-format';
import { SourceKind } from '../../lambdas/runtime/decoding/records';
import { CONSUMER } from './consumer';
import type { InvocationRecord, RunHistory } from './runner';
import type { Delivered, Published } from './sources';

type Check = (history: RunHistory) => string[];

export function violationsOf(history: RunHistory): string[] {
  return CHECKS.flatMap((check) => check(history));
}

const drains: Check = ({ drained, invocations }) => (drained ? [] : [`the source did not drain in ${invocations.length} invocations`]);

const answersAreValid: Check = ({ invocations }) =>
  invocations.filter((record) => record.answer !== 'failed' && !record.valid).map((record) => `invocation ${record.invocation}: Lambda found the response invalid (${JSON.stringify(record.answer)})`);

const appliesAtMostOnce: Check = ({ world }) => {
  const counts = countBy(world.appliedLog);
  return [...counts].filter(([, count]) => count > 1).map(([eventId, count]) => `event ${eventId} applied ${count} times`);
};

/** Every event applied, or in a DLQ with its context, or (streams) in an on-failure range; undecodable copies each in a DLQ. */
const nothingLost: Check = (history) => {
  const { schedule, source } = history;
  const applied = new Set(history.world.appliedLog);
  const wrapped = wrappedIds(history);
  const lost: string[] = [];
  schedule.events.forEach((event, index) => {
    const copies = source.published.filter((publication) => publication.event === index);
    const perCopy = event.kind === 'undecodable' || event.kind === 'schema';
    const accounted = (publications: readonly Published[]) =>
      publications.some((publication) => wrapped.has(publication.itemIdentifier) || source.movedBySqs.includes(publication.itemIdentifier) || inOnFailureRange(history, publication));
    if (perCopy) copies.filter((copy) => !accounted([copy])).forEach((copy) => lost.push(`${describe(copy)} (${event.kind}) is in no DLQ: lost`));
    else if (!applied.has(copies[0]!.eventId) && !accounted(copies)) lost.push(`event e${index} (${event.kind}) was neither applied nor dead-lettered: lost`);
    if (event.kind !== 'valid' && applied.has(copies[0]!.eventId)) lost.push(`event e${index} (${event.kind}) was applied`);
  });
  return lost;
};

/**
 * SQS moves a message only when its final receive ended without the runtime settling it: a crash,
 * or its DLQ down. The final receive is the one with the highest receive count: with a duplicate
 * delivery, two invocations may hold copies at that count, and the copy SQS moved is either's.
 */
const movedOnlyWhenUnsettled: Check = (history) => {
  if (history.source.kind !== SourceKind.SQS) return [];
  return history.source.movedBySqs.flatMap((messageId) => {
    const receives = history.invocations.flatMap((record) => record.records.filter((delivered) => delivered.itemIdentifier === messageId).map((delivered) => ({ record, count: delivered.receiveCount })));
    const highest = Math.max(...receives.map(({ count }) => count));
    const finals = receives.filter(({ count }) => count === highest).map(({ record }) => record);
    if (finals.length === 0 || finals.some((last) => last.crashed || last.dlqDown || last.answer === 'failed' || last.lateAck)) return [];
    return [`message ${messageId} moved by SQS with no context, although invocation ${finals.map((last) => last.invocation).join(' and ')} saw its final receive with the DLQ up`];
  });
};

/**
 * No false pages the runtime could have avoided: a copy is not dead-lettered once its event applied
 * in an earlier invocation, where the transactional strategy's dedup record says so. A copy
 * dead-lettered before another copy applied the event is honest at the time, and so is one sent
 * while the dedup table could not be read (both documented). So is one sent by an invocation that
 * ran at once with the one that applied it: that one's commit may land between this one's read of
 * the dedup records and its send.
 */
const noFalsePages: Check = (history) => {
  if (history.schedule.strategy === 'direct') return [];
  const appliedAt = new Map<string, number>();
  for (const record of history.invocations) for (const eventId of record.applied) if (!appliedAt.has(eventId)) appliedAt.set(eventId, record.invocation);
  return history.invocations.flatMap((record) =>
    record.dlqSends
      .filter(() => record.failedReads === 0)
      .filter((wrapper) => wrapper.eventId !== undefined && (appliedAt.get(wrapper.eventId) ?? Infinity) < record.invocation && appliedAt.get(wrapper.eventId) !== record.atOnceWith && isValidEvent(history, wrapper))
      .map((wrapper) => `invocation ${record.invocation} dead-lettered ${wrapper.source.itemIdentifier} (${wrapper.reason}, ${wrapper.error.name}) although its event applied in invocation ${appliedAt.get(wrapper.eventId!)}`),
  );
};

/**
 * Per FIFO group and per partition key, events apply in the order of the copies that applied them.
 * Except a copy that came back because a batch was held past its visibility timeout: SQS received
 * it again while the first invocation still worked (what that one dead-lettered may then apply
 * after what it applied); FIFO's order holds only while batches are answered in time, which the
 * constructs' visibility timeout of six function timeouts sees to.
 */
const appliesInOrder: Check = (history) => {
  if (history.source.kind === SourceKind.SQS && !history.source.fifo) return [];
  const lastPosition = new Map<string, { position: number; id: string }>();
  const heldTooLong = new Set<string>();
  const violations: string[] = [];
  for (const record of history.invocations) {
    for (const eventId of record.applied) {
      const copy = primaryOf(record.records, eventId);
      if (copy === undefined) continue;
      const before = lastPosition.get(copy.group);
      if (before !== undefined && before.position > copy.position && !heldTooLong.has(copy.itemIdentifier)) violations.push(`group ${copy.group}: ${describe(copy)} applied after ${before.id}, which was published later`);
      if (before === undefined || before.position < copy.position) lastPosition.set(copy.group, { position: copy.position, id: describe(copy) });
    }
    if (record.lateAck) for (const delivered of record.records) heldTooLong.add(delivered.itemIdentifier);
  }
  return violations;
};

/** A record goes to the DLQ only from an invocation that attempted it (or failed to decode it). */
const deadLettersWereAttempted: Check = (history) =>
  history.invocations.flatMap((record) =>
    record.dlqSends.flatMap((wrapper) => {
      const delivered = record.records.find((candidate) => candidate.itemIdentifier === wrapper.source.itemIdentifier);
      if (delivered === undefined) return [`invocation ${record.invocation} dead-lettered ${wrapper.source.itemIdentifier}, which was not in its batch`];
      if (attempted(history, record, delivered)) return [];
      if (wrapper.reason === DlqReason.NOT_ATTEMPTED && delivered.receiveCount >= (history.source.maxReceiveCount ?? Infinity)) return [];
      return [`invocation ${record.invocation} dead-lettered ${describe(delivered)} (${wrapper.reason}, ${wrapper.error.name}) although its handler never ran`];
    }),
  );

/**
 * Ordered sources: nothing of a group is processed after a record the same invocation reports, and
 * (FIFO) the rest is reported too. A reported record whose event was applied already does not
 * count, by this invocation (its transaction committed but the runtime never heard: a lost commit
 * answer) or by one that ended before it began (a redelivered duplicate, reported with the batch
 * whose commit answer was lost): the report only redelivers a duplicate, and the events applied
 * after it in this invocation were applied in their order, after it.
 */
const stopsAtFirstReported: Check = (history) => {
  const { source } = history;
  if (source.kind === SourceKind.SQS && !source.fifo) return [];
  return history.invocations.flatMap((record) => (record.answer === 'failed' ? [] : groupStops(history, record)));
};

function groupStops(history: RunHistory, record: InvocationRecord): string[] {
  const answer = record.answer as Exclude<InvocationRecord['answer'], 'failed'>;
  const reported = new Set(answer.batchItemFailures.map((failure) => failure.itemIdentifier));
  const groups = new Map<string, Delivered[]>();
  for (const delivered of record.records) {
    const group = history.source.kind === SourceKind.SQS ? delivered.group : 'shard';
    groups.set(group, [...(groups.get(group) ?? []), delivered]);
  }
  // Applied before or by this invocation (the twin of a record ahead of the failure, which applied),
  // or by the one that ran at once with it, whose commit this one's lookup may have seen.
  const partner = history.invocations.find((other) => other.invocation === record.atOnceWith);
  const appliedBefore = new Set([...history.invocations.slice(0, record.invocation + 1).flatMap((earlier) => earlier.applied), ...(partner?.applied ?? [])]);
  // Applied by this invocation, or by one that ended before it began (not the one at once with it).
  const endedBefore = history.invocations.filter((other) => other.invocation < record.invocation && other.invocation !== record.atOnceWith);
  const appliedAlready = new Set([...endedBefore.flatMap((earlier) => earlier.applied), ...record.applied]);
  return [...groups.values()].flatMap((members) => {
    const first = members.findIndex((delivered) => reported.has(delivered.itemIdentifier) && !appliedAlready.has(delivered.eventId));
    if (first === -1) return [];
    return members.slice(first + 1).flatMap((later) => {
      const problems: string[] = [];
      if (processed(history, record, later)) problems.push(`processed`);
      // A copy of an event already applied is a duplicate: deleting it ahead of the failure moves no
      // effect (on the final receive, the settler deletes such a twin rather than leave it to SQS's
      // context-free move).
      if (history.source.kind === SourceKind.SQS && !reported.has(later.itemIdentifier) && !appliedBefore.has(later.eventId)) problems.push('not reported (deleted ahead of it)');
      return problems.map((problem) => `invocation ${record.invocation}: ${describe(later)} ${problem} after ${describe(members[first]!)}, which it reported failed`);
    });
  });
}

/** Each wrapper carries its context. */
const wrappersCarryContext: Check = (history) =>
  history.invocations.flatMap((record) =>
    record.dlqSends.flatMap((wrapper) => {
      const delivered = record.records.find((candidate) => candidate.itemIdentifier === wrapper.source.itemIdentifier);
      const missing = [!wrapper.error?.name && 'error name', !wrapper.error?.message && 'error message', wrapper.consumer !== CONSUMER && 'consumer', wrapper.source.arn !== history.source.arn && 'source ARN', wrapper.attempts !== delivered?.receiveCount && 'attempts', !wrapper.original?.body && 'original body'].filter(Boolean);
      return missing.length === 0 ? [] : [`invocation ${record.invocation}: the wrapper of ${wrapper.source.itemIdentifier} lacks ${missing.join(', ')}`];
    }),
  );

/** Transactional strategies: each group's counter (DynamoDB: its shards summed) holds exactly its applied events. */
const countersMatchApplied: Check = (history) => {
  if (history.schedule.strategy === 'direct') return [];
  const applied = new Set(history.world.appliedLog);
  const expected = countBy(history.source.published.filter((publication) => publication.copy === 0 && applied.has(publication.eventId)).map((publication) => publication.group));
  const counted = history.store.groupCounts;
  return [...new Set([...expected.keys(), ...counted.keys()])].filter((group) => (expected.get(group) ?? 0) !== (counted.get(group) ?? 0)).map((group) => `group ${group}'s counter is ${counted.get(group) ?? 0}, but ${expected.get(group) ?? 0} of its events applied`);
};

/** The store holds each event's own effect as many times as its commits were seen: the log the other checks read is the store's. */
const storeMatchesLog: Check = (history) => {
  const logged = countBy(history.world.appliedLog);
  const stored = history.store.applications;
  return [...new Set([...logged.keys(), ...stored.keys()])].filter((eventId) => (logged.get(eventId) ?? 0) !== (stored.get(eventId) ?? 0)).map((eventId) => `event ${eventId}'s effect is in the store ${stored.get(eventId) ?? 0} times, but ${logged.get(eventId) ?? 0} commits of it were seen`);
};

/** SQL: an event has a dedup row exactly when it applied (the row commits with its effects, and a failed event's row is deleted). */
const dedupRowsMatchApplied: Check = (history) => {
  const { dedupRows } = history.store;
  if (dedupRows === undefined) return [];
  const applied = new Set(history.world.appliedLog);
  const withoutEffect = [...dedupRows].filter((eventId) => !applied.has(eventId)).map((eventId) => `event ${eventId} has a dedup row but never applied`);
  return [...withoutEffect, ...[...applied].filter((eventId) => !dedupRows.has(eventId)).map((eventId) => `event ${eventId} applied but has no dedup row`)];
};

const CHECKS: readonly Check[] = [drains, answersAreValid, appliesAtMostOnce, nothingLost, movedOnlyWhenUnsettled, noFalsePages, appliesInOrder, deadLettersWereAttempted, stopsAtFirstReported, wrappersCarryContext, countersMatchApplied, storeMatchesLog, dedupRowsMatchApplied];

/** Whether the invocation attempted the record: ran its direct handler, sent its event's dedup put, or saw its handler throw; a record that does not decode is attempted by decoding it. */
function attempted(history: RunHistory, record: InvocationRecord, delivered: Delivered): boolean {
  const kind = history.schedule.events[delivered.event]!.kind;
  if (kind === 'undecodable' || kind === 'schema') return true;
  if (record.handlerThrows.includes(delivered.itemIdentifier)) return true;
  if (history.schedule.strategy === 'direct') return record.handlerRuns.includes(delivered.itemIdentifier);
  return record.dedupAttempts.has(delivered.eventId) && primaryOf(record.records, delivered.eventId) === delivered;
}

/** Whether the invocation processed the record: dead-lettered it, applied its event through it, or ran its direct handler. */
function processed(history: RunHistory, record: InvocationRecord, delivered: Delivered): boolean {
  if (record.dlqSends.some((wrapper) => wrapper.source.itemIdentifier === delivered.itemIdentifier)) return true;
  if (history.schedule.strategy === 'direct' && record.handlerRuns.includes(delivered.itemIdentifier)) return true;
  return record.applied.includes(delivered.eventId) && primaryOf(record.records, delivered.eventId) === delivered;
}

/** The first record of the batch that carries the event: the one whose outcome its in-batch twins follow. */
function primaryOf(records: readonly Delivered[], eventId: string): Delivered | undefined {
  return records.find((delivered) => delivered.eventId === eventId);
}

function wrappedIds(history: RunHistory): Set<string> {
  return new Set(history.invocations.flatMap((record) => record.dlqSends.map((wrapper) => wrapper.source.itemIdentifier)));
}

function isValidEvent(history: RunHistory, wrapper: FailureEnvelope): boolean {
  const copy = history.source.published.find((publication) => publication.itemIdentifier === wrapper.source.itemIdentifier);
  return copy !== undefined && history.schedule.events[copy.event]!.kind === 'valid';
}

function inOnFailureRange(history: RunHistory, publication: Published): boolean {
  const sequence = BigInt(publication.itemIdentifier.replace(/\D/g, '') || '0');
  return history.source.onFailure.some((range) => BigInt(range.startSequenceNumber) <= sequence && sequence <= BigInt(range.endSequenceNumber));
}

function countBy(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}

/** `m4 (e2 copy 1, k0)`: a record by its identifier, event, copy and group. */
export function describe(publication: Published): string {
  const copy = publication.copy === 0 ? '' : ` copy ${publication.copy}${publication.conflicting ? ', conflicting' : ''}`;
  return `${publication.itemIdentifier} (e${publication.event}${copy}, ${publication.group})`;
}
