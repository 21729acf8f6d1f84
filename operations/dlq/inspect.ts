/**
 * `dlq inspect`: what is in a DLQ, grouped by kind, error type and consumer, with counts, first
 * and last seen and one example each; for on-failure pointers, each range read back from its
 * stream to count the records it still holds; for a failure archive, each object's batch with
 * its records, read from the object; and which messages hold an event that was applied already,
 * from its consumer's dedup record (applied-events.ts). The DLQ (or archive) is left as it was.
 */
import { DlqAttribute, type FailureEnvelope } from '../../aws/dlq-format';
import { findApplied, type AppliedEvent } from './applied-events';
import { readArchive } from './archive-objects';
import { viewOfArchivedRecord, type ArchivedRecordView } from './archived-records';
import { describeMalformed, entryOf, EntryKind, type ArchivedEntry, type DlqEntry } from './entry';
import { matches, type EntryFilter } from './filter';
import { describeMissing, readerFor, readRange, retentionHoursOf } from './stream-range';
import { needing } from './permissions';
import { peekQueue, type SweepOptions } from './sweep';
import { findDlq } from './topology';
import type { DlqContext, DlqInfo } from './types';

/** Characters of an original body and lines of a stack shown in an example. */
const EXCERPT_CHARS = 240;
const STACK_LINES = 4;

/** Enough to understand a failure without opening the message. */
export interface FailureExample {
  readonly messageId: string;
  readonly eventId?: string;
  readonly eventType?: string;
  /** The error message, or for a pointer the range it names. */
  readonly message: string;
  readonly reason?: string;
  readonly attempts?: number;
  readonly source?: string;
  readonly stack?: string;
  /** The start of the original body (Kinesis data decoded as UTF-8). */
  readonly original?: string;
}

export interface FailureGroup {
  readonly kind: EntryKind;
  readonly errorType: string;
  readonly consumer?: string;
  readonly count: number;
  /** Of them, messages whose event was applied already (its consumer's dedup record exists). */
  readonly applied: number;
  /**
   * Distinct failures among them (by event id, else by source record): a poison message redelivered
   * before its first delivery was acknowledged is wrapped once per delivery.
   */
  readonly distinct: number;
  readonly firstSeen: string;
  readonly lastSeen: string;
  readonly example: FailureExample;
}

/** An on-failure pointer's range and what the stream still holds of it. */
export interface RangeReport {
  readonly messageId: string;
  readonly streamArn: string;
  readonly shardId: string;
  readonly startSequenceNumber: string;
  readonly endSequenceNumber: string;
  readonly batchSize: number;
  readonly condition: string;
  readonly consumer?: string;
  readonly firstArrival: string;
  readonly lastArrival: string;
  /** Records of the range the stream returned. */
  readonly readable: number;
  readonly missing: number;
  readonly status: 'readable' | 'partly-readable' | 'unreadable';
  readonly reason?: string;
}

/** A failure archive's object: the batch given up on, with its records. */
export interface ArchivedBatchReport {
  readonly bucket: string;
  readonly key: string;
  readonly condition: string;
  readonly consumer?: string;
  readonly failedAt: string;
  readonly streamArn?: string;
  readonly shardId?: string;
  readonly startSequenceNumber?: string;
  readonly endSequenceNumber?: string;
  readonly attempts?: number;
  readonly records: readonly ArchivedRecordView[];
  /** Why the object cannot be redriven, when it is not an on-failure record. */
  readonly problem?: string;
}

export interface Inspection {
  readonly queue: DlqInfo;
  /** Messages read; for a failure archive, objects. */
  readonly total: number;
  /** The DLQ held more than `limit` messages: the counts are of the first `limit`. */
  readonly truncated: boolean;
  readonly groups: readonly FailureGroup[];
  readonly ranges: readonly RangeReport[];
  /** A failure archive's objects, oldest first; empty for a DLQ. */
  readonly archived: readonly ArchivedBatchReport[];
  /**
   * The messages whose event was applied already: the dedup record `<consumer>#<eventId>` of a
   * consumer of their source exists. Paging for them was for nothing; a redrive changes nothing.
   */
  readonly alreadyApplied: readonly AppliedEvent[];
  /** Why some messages could not be looked up in their consumer's dedup records (they are not labelled). */
  readonly appliedCheckProblems: readonly string[];
}

export interface InspectOptions {
  readonly filter?: EntryFilter;
  /** Messages read at most. @default 10000 */
  readonly limit?: number;
  readonly sweep?: SweepOptions;
  /** @default () => new Date() */
  readonly now?: () => Date;
}

/** Inspects the DLQ `queue` names (see {@link findDlq}); for a failure archive's index queue, the archive. */
export async function inspectQueue(request: DlqContext & { readonly queue: string }, options: InspectOptions = {}): Promise<Inspection> {
  const dlq = findDlq(request.topology, request.queue);
  const limit = options.limit ?? 10_000;
  if (dlq.archive) {
    const { entries: all, truncated } = await readArchive(request.clients.s3, dlq.archive.bucket, limit);
    const entries = all.filter((entry) => matches(entry, options.filter ?? {}));
    return { queue: dlq, total: entries.length, truncated, groups: groupEntries(entries), ranges: [], archived: entries.map(archivedReport), alreadyApplied: [], appliedCheckProblems: [] };
  }
  const { messages, truncated } = await needing({ action: 'sqs:ReceiveMessage', resource: dlq.arn }, () => peekQueue(request.clients.sqs, dlq.url, { limit, ...options.sweep }));
  const entries = messages.map(entryOf).filter((entry) => matches(entry, options.filter ?? {}));
  const ranges: RangeReport[] = [];
  for (const entry of entries) if (entry.kind === EntryKind.POINTER) ranges.push(await rangeReport(request, entry, options.now?.() ?? new Date()));
  const { applied, problems } = await findApplied(request, dlq, entries);
  const appliedIds = new Set(applied.map((event) => event.messageId));
  return { queue: dlq, total: entries.length, truncated, groups: groupEntries(entries, appliedIds), ranges, archived: [], alreadyApplied: applied, appliedCheckProblems: problems };
}

/** Groups by kind, error type and consumer; the most frequent first. `applied` names the messages whose event was applied already. */
export function groupEntries(entries: readonly DlqEntry[], applied: ReadonlySet<string> = new Set()): FailureGroup[] {
  const groups = new Map<string, { entries: DlqEntry[] }>();
  for (const entry of entries) {
    const key = JSON.stringify([entry.kind, entry.errorType, entry.consumer ?? '']);
    const group = groups.get(key) ?? { entries: [] };
    group.entries.push(entry);
    groups.set(key, group);
  }
  return [...groups.values()].map(({ entries: members }) => summarise(members, applied)).sort((a, b) => b.count - a.count || a.errorType.localeCompare(b.errorType) || a.kind.localeCompare(b.kind));
}

function summarise(members: readonly DlqEntry[], applied: ReadonlySet<string>): FailureGroup {
  const first = members[0] as DlqEntry;
  return {
    kind: first.kind,
    errorType: first.errorType,
    consumer: first.consumer,
    count: members.length,
    applied: members.filter((entry) => applied.has(entry.messageId)).length,
    distinct: new Set(members.map(identityOf)).size,
    firstSeen: members.map((entry) => entry.firstSeen).sort()[0] ?? first.firstSeen,
    lastSeen: members.map((entry) => entry.lastSeen).sort().at(-1) ?? first.lastSeen,
    example: exampleOf(first),
  };
}

/** What makes two DLQ messages the same failure. */
function identityOf(entry: DlqEntry): string {
  if (entry.eventId) return `event:${entry.eventId}`;
  if (entry.kind === EntryKind.WRAPPER) return `record:${entry.failure.source.arn}:${entry.failure.source.itemIdentifier}`;
  if (entry.kind === EntryKind.POINTER) return rangeIdentity(entry.range);
  if (entry.kind === EntryKind.ARCHIVED) return entry.failure ? rangeIdentity(entry.failure.range) : `object:${entry.object.key}`;
  return `message:${entry.message.MD5OfBody ?? entry.messageId}`;
}

function rangeIdentity(range: { streamArn: string; shardId: string; startSequenceNumber: string; endSequenceNumber: string }): string {
  return `range:${range.streamArn}:${range.shardId}:${range.startSequenceNumber}:${range.endSequenceNumber}`;
}

function exampleOf(entry: DlqEntry): FailureExample {
  const base = { messageId: entry.messageId, eventId: entry.eventId };
  switch (entry.kind) {
    case EntryKind.WRAPPER:
      return { ...base, ...wrapperExample(entry.failure) };
    case EntryKind.ATTRIBUTES:
      return { ...base, message: entry.context[DlqAttribute.ERROR_MESSAGE] ?? '', reason: entry.context[DlqAttribute.REASON], attempts: Number(entry.context[DlqAttribute.ATTEMPTS]) || undefined, original: excerpt(entry.message.Body ?? '') };
    case EntryKind.POINTER:
      return { ...base, message: `${entry.range.batchSize} records of ${entry.range.shardId} ${entry.range.startSequenceNumber}..${entry.range.endSequenceNumber}`, source: entry.range.streamArn, attempts: entry.pointer.requestContext.approximateInvokeCount };
    case EntryKind.BARE:
      return { ...base, message: 'moved by SQS after maxReceiveCount receives: no failure context', attempts: Number(entry.message.Attributes?.ApproximateReceiveCount) || undefined, source: entry.message.Attributes?.DeadLetterQueueSourceArn, original: excerpt(entry.message.Body ?? '') };
    case EntryKind.TARGET_FAILURE:
      return { ...base, message: `a target call the schedule gave up on: ${entry.errorMessage || '(no message)'}`, source: entry.schedule, original: excerpt(entry.message.Body ?? '') };
    case EntryKind.MALFORMED:
      // SQS's SenderId (the role and session that sent it) is the lead to whoever wrote it.
      return { ...base, message: describeMalformed(entry.problems, entry.claims), source: sentBy(entry.message.Attributes?.SenderId), original: excerpt(entry.message.Body ?? '') };
    case EntryKind.ARCHIVED:
      return { ...base, ...archivedExample(entry) };
  }
}

function sentBy(senderId: string | undefined): string | undefined {
  return senderId === undefined ? undefined : `sent by ${senderId}`;
}

function archivedExample(entry: ArchivedEntry): Omit<FailureExample, 'messageId'> {
  if (entry.failure === undefined) return { message: `s3://${entry.object.bucket}/${entry.object.key}: ${entry.problem}` };
  const { range, record, event } = entry.failure;
  const [first] = event.Records;
  return {
    message: `${event.Records.length} records of ${range.shardId} ${range.startSequenceNumber}..${range.endSequenceNumber}, kept whole in s3://${entry.object.bucket}`,
    source: range.streamArn,
    attempts: record.requestContext.approximateInvokeCount,
    original: first === undefined ? undefined : viewOfArchivedRecord(first).body,
  };
}

function archivedReport(entry: ArchivedEntry): ArchivedBatchReport {
  const base = { bucket: entry.object.bucket, key: entry.object.key, condition: entry.errorType, consumer: entry.consumer, failedAt: entry.firstSeen };
  if (entry.failure === undefined) return { ...base, records: [], problem: entry.problem };
  const { range, record, event } = entry.failure;
  return {
    ...base,
    streamArn: range.streamArn,
    shardId: range.shardId,
    startSequenceNumber: range.startSequenceNumber,
    endSequenceNumber: range.endSequenceNumber,
    attempts: record.requestContext.approximateInvokeCount,
    records: event.Records.map(viewOfArchivedRecord),
  };
}

function wrapperExample(failure: FailureEnvelope): Omit<FailureExample, 'messageId'> {
  const original = failure.original.encoding === 'base64' ? Buffer.from(failure.original.body, 'base64').toString('utf8') : failure.original.body;
  return {
    eventType: failure.eventType,
    message: failure.error.message,
    reason: failure.reason,
    attempts: failure.attempts,
    source: `${failure.source.kind} ${failure.source.arn} (${failure.source.itemIdentifier})`,
    stack: failure.error.stack?.split('\n').slice(0, STACK_LINES).join('\n'),
    original: excerpt(original),
  };
}

function excerpt(text: string): string {
  return text.length <= EXCERPT_CHARS ? text : `${text.slice(0, EXCERPT_CHARS)}…`;
}

async function rangeReport(context: DlqContext, entry: Extract<DlqEntry, { kind: 'pointer' }>, now: Date): Promise<RangeReport> {
  const { range } = entry;
  const read = await readRange(readerFor(context.clients, range.streamArn), range);
  const status = read.missing === 0 ? 'readable' : read.records.length > 0 ? 'partly-readable' : 'unreadable';
  return {
    messageId: entry.messageId,
    streamArn: range.streamArn,
    shardId: range.shardId,
    startSequenceNumber: range.startSequenceNumber,
    endSequenceNumber: range.endSequenceNumber,
    batchSize: range.batchSize,
    condition: entry.errorType,
    consumer: entry.consumer,
    firstArrival: range.approximateArrivalOfFirstRecord,
    lastArrival: range.approximateArrivalOfLastRecord,
    readable: read.records.length,
    missing: read.missing,
    status,
    reason: read.missing === 0 ? undefined : describeMissing(range, read, retentionHoursOf(context.topology, range.streamArn), now),
  };
}
