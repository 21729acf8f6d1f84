/**
 * Which DLQ messages hold an event that was applied already: the dedup record `<consumer>#<eventId>`
 * of a consumer of its source exists, and the runtime writes that record in the same transaction as
 * the event's effects. Such a message pages on-call for nothing; a redrive of it changes nothing.
 *
 * A message SQS moved with no context (`MovedBySqs`) gets here when every receive after the one
 * that applied its event ended without a delete: an invocation that crashed, timed out or was
 * throttled, or a delete that carried a stale receipt handle, up to the queue's `maxReceiveCount`
 * (docs/operations.md, "Already applied"). A wrapper's event may have been applied by another copy.
 *
 * The event id is the wrapper's; for a bare message, its body read as the consumer reads it (its
 * envelope). A SQL consumer's dedup rows are read through the RDS Data API, as its runtime reads
 * them (sql-dedup-rows.ts). Only what is found is labelled: a message whose consumer names no dedup table, whose
 * body has no event id, or whose lookup failed says nothing either way. Stream pointers and archive
 * objects name ranges, not events, and are not looked up.
 */
import type { Message } from '@aws-sdk/client-sqs';
import { sqsLambdaRecord } from '../../aws/lambda/event-records';
import { decoderFor } from '../../lambdas/runtime/decoding/envelope-decoders';
import { messageOf } from '../../lambdas/runtime/core/errors';
import { readCommitted } from '../../lambdas/runtime/stores/dynamodb/known-duplicates';
import { fromSqsRecord } from '../../lambdas/runtime/decoding/records';
import { envelopeDecoder } from '../../lambdas/runtime/decoding/routes';
import { EntryKind, type DlqEntry } from './entry';
import { readSqlApplied } from './sql-dedup-rows';
import type { ConsumerWindow, DlqContext, DlqInfo, SqlDedupStore } from './types';

/** A DLQ message whose event a consumer applied already. */
export interface AppliedEvent {
  readonly messageId: string;
  readonly eventId: string;
  /** The consumer whose dedup record holds it. */
  readonly consumer: string;
  /** The table the record is in: DynamoDB's, or for a SQL consumer `SQL table <name> in database <database>`. */
  readonly table: string;
  readonly errorType: string;
}

/** What the lookup found. */
export interface AppliedCheck {
  /** The messages whose event is applied, in the order read. */
  readonly applied: readonly AppliedEvent[];
  /** Why some could not be looked up (a read that failed): those messages are not labelled. */
  readonly problems: readonly string[];
}

/** One message's event, to look up in one consumer's dedup records. */
interface Lookup {
  readonly entry: DlqEntry;
  readonly eventId: string;
  readonly window: ConsumerWindow;
}

/** Looks the events of these entries of `dlq` up in their consumers' dedup records: DynamoDB's, or a SQL consumer's rows through the Data API. */
export async function findApplied(context: DlqContext, dlq: DlqInfo, entries: readonly DlqEntry[]): Promise<AppliedCheck> {
  const lookups = entries.flatMap((entry) => lookupsOf(entry, dlq, context));
  const applied: AppliedEvent[] = [];
  const problems: string[] = [];
  for (const [, group] of groupBy(lookups, (lookup) => `${storeOf(lookup.window)}\u0000${lookup.window.consumer}`)) {
    const { window } = group[0] as Lookup;
    const table = storeOf(window);
    try {
      const found = await readApplied(context, window, group.map((lookup) => lookup.eventId));
      for (const { entry, eventId } of group) if (found.has(eventId)) applied.push({ messageId: entry.messageId, eventId, consumer: window.consumer, table, errorType: entry.errorType });
    } catch (error) {
      problems.push(`reading ${window.consumer}'s dedup records in ${table} failed: ${messageOf(error)}`);
    }
  }
  return { applied: uniqueByMessage(applied), problems };
}

/** Whether the window names dedup records to look in: a DynamoDB dedup table, or a SQL consumer's dedup rows. */
function keepsDedupRecords(window: ConsumerWindow): boolean {
  return window.dedupTable !== undefined || window.sqlDedup !== undefined;
}

/** The dedup records' table, as the inspection names it. */
function storeOf(window: ConsumerWindow): string {
  if (window.dedupTable !== undefined) return window.dedupTable;
  const sql = window.sqlDedup;
  return `SQL table ${sql?.table ?? '?'} in database ${sql?.database ?? `of ${sql?.functionName ?? '?'}`}`;
}

function readApplied(context: DlqContext, window: ConsumerWindow, eventIds: readonly string[]): Promise<Set<string>> {
  if (window.dedupTable !== undefined) return readCommitted(context.clients.dynamodb, { table: window.dedupTable, consumer: window.consumer }, eventIds);
  return readSqlApplied(context.clients, window.sqlDedup as SqlDedupStore, window.consumer, eventIds);
}

/** The consumers that may have applied the entry's event, each with the event id as it reads it. */
function lookupsOf(entry: DlqEntry, dlq: DlqInfo, context: DlqContext): Lookup[] {
  const windows = context.topology.consumerWindows.filter(keepsDedupRecords);
  switch (entry.kind) {
    case EntryKind.WRAPPER:
    case EntryKind.ATTRIBUTES: {
      const { eventId, consumer } = entry;
      const window = windows.find((candidate) => candidate.consumer === consumer);
      return eventId === undefined || window === undefined ? [] : [{ entry, eventId, window }];
    }
    case EntryKind.BARE: {
      const sourceArn = sourceOfBare(entry.message, dlq);
      return windows.filter((window) => window.sourceArn === sourceArn).flatMap((window) => withEventId(entry, window, context.clients.region));
    }
    default:
      return [];
  }
}

/** SQS names the queue it moved the message from; else the DLQ's only redrive source. */
function sourceOfBare(message: Message, dlq: DlqInfo): string | undefined {
  const redriveSources = dlq.sources.filter((source) => source.role === 'redrive');
  return message.Attributes?.DeadLetterQueueSourceArn ?? (redriveSources.length === 1 ? redriveSources[0]?.arn : undefined);
}

/** The bare message's event id as the consumer decodes its body; none when the body is not its envelope. */
function withEventId(entry: Extract<DlqEntry, { kind: 'bare' }>, window: Lookup['window'], region: string): Lookup[] {
  const decode = window.envelope ? decoderFor(window.envelope) : envelopeDecoder;
  try {
    const { eventId } = decode(fromSqsRecord(sqsLambdaRecord(entry.message, window.sourceArn, region)));
    return [{ entry, eventId, window }];
  } catch {
    return [];
  }
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(keyOf(item), [...(groups.get(keyOf(item)) ?? []), item]);
  return groups;
}

/** A message found applied by two consumers of its source is listed once, under the first. */
function uniqueByMessage(applied: readonly AppliedEvent[]): AppliedEvent[] {
  const byMessage = new Map<string, AppliedEvent>();
  for (const event of applied) if (!byMessage.has(event.messageId)) byMessage.set(event.messageId, event);
  return [...byMessage.values()];
}
