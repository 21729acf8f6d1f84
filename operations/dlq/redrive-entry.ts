/**
 * Redrives one DLQ message to where it came from, by kind: our wrappers and the attribute fallback
 * to the source their context or the stack names, Lambda's on-failure pointers by reading their
 * range back from the stream, bare messages to the queue SQS moved them from, and an archive
 * object's batch from the records it holds (the stream is not read: they may be past its
 * retention). A queue gets the message again, a Kinesis stream the record; a table's stream cannot
 * be written, so its records go straight to the consumer that failed on them (stream-reinvoke.ts).
 * Writes nothing in a dry run; reads (queue URLs, stream ranges) happen either way, so that a dry
 * run reports what a real run would do.
 *
 * Before anything is written, each republish is held to the dedup window (dedup-window.ts): a copy
 * that could be processed after an applied copy's dedup record expired stays in the DLQ, unless
 * the operator allows it. A copy republished to a queue carries the time of the event's first copy
 * (`eoFirstSentAt`), so the check of a later cycle counts from there.
 *
 * Every write goes to a source of the DLQ being drained, and nowhere else (redrive-targets.ts):
 * the target a message names is only looked up among them. A message naming anything else is
 * `refused`, and stays in the DLQ.
 *
 * Returns an outcome for what concerns this message alone (its source cannot be found, its target
 * is not a source of the DLQ, its records are gone, it is past the dedup window); throws when a
 * service call fails, which the caller treats as a reason to stop (a refusal for lack of a
 * permission as a PermissionDeniedError, which names it).
 */
import type { Message } from '@aws-sdk/client-sqs';
import { SourceKind } from '../../lambdas/runtime';
import { type FailureEnvelope } from '../../aws/dlq-format';
import type { StreamBatchInfo } from '../../aws/lambda/on-failure-record';
import type { DynamoDBRecord, KinesisStreamRecord } from 'aws-lambda';
import { isFifoQueue } from '../../aws/sqs/fifo';
import { copyTimeOfAttributes, copyTimeOfBare, copyTimeOfRange, copyTimeOfWrapper, type CopyTime } from './copy-time';
import type { CopyDelivery, DedupWindows, WindowCheck } from './dedup-window';
import { describeMalformed, EntryKind, type ArchivedEntry, type DlqEntry } from './entry';
import { MalformedEntryError, TargetNotASourceError } from './errors';
import { putKinesisRecords, putOfKinesisRecord, putOfLambdaKinesisRecord, type KinesisPut } from './kinesis-republish';
import { arnScopeOf, functionArn, needing } from './permissions';
import { sourceQueue, sourceTarget, TargetKind, type KinesisTarget } from './redrive-targets';
import { messageFromAttributeFallback, messageFromBare, messageFromWrapper, sendToQueue, withFirstSent } from './sqs-republish';
import { describeMissing, isTableStreamArn, readerFor, readRange, retentionHoursOf } from './stream-range';
import { SQS_LIMITS } from '../../aws/limits';
import { recordOfOriginal, reinvoke, streamConsumerOf, type FailedBy } from './stream-reinvoke';
import type { DlqContext, DlqInfo } from './types';

/** What became of one message; only `redriven` leaves the DLQ. */
export type EntryOutcome =
  | { readonly status: 'redriven'; readonly target: string; readonly records: number; readonly note?: string }
  | { readonly status: 'skipped'; readonly reason: string; readonly target?: string; readonly records?: number }
  | { readonly status: 'past-retention'; readonly target: string; readonly records: number; readonly missing: number; readonly reason: string }
  /** Nothing was written: `target` is where the copy would have gone. */
  | { readonly status: 'past-dedup-window'; readonly target: string; readonly reason: string }
  /** Nothing was written: `target` is the ARN the message names, which is not a source of the DLQ. */
  | { readonly status: 'refused'; readonly target: string; readonly reason: string }
  | { readonly status: 'failed'; readonly reason: string };

export interface EntryRedrive extends DlqContext {
  readonly dlq: DlqInfo;
  readonly dryRun: boolean;
  readonly now: () => Date;
  /** The run's dedup window checks. */
  readonly windows: DedupWindows;
  /** Redrive a copy past the dedup window all the same (with a note). */
  readonly allowPastDedupWindow: boolean;
  /** The table stream records this run sent to their consumer (stream ARN and sequence number): none goes twice. */
  readonly invoked: Set<string>;
}

/** The operator's flag that redrives past the dedup window. */
export const ALLOW_PAST_DEDUP_WINDOW_FLAG = '--allow-past-dedup-window';

/** Why a schedule's failed target call stays: it has no source to go back to, and the schedule runs it again on its own. */
export const SCHEDULE_CALL_NOT_REDRIVEN =
  "a target call the schedule gave up on: it has no source to go back to, and the schedule's next run does its work (SqlEffectDatabase's expiry deletes the rows this call would have); read it with `eo dlq inspect`, fix the cause, then purge the queue";

export async function redriveEntry(entry: DlqEntry, context: EntryRedrive): Promise<EntryOutcome> {
  try {
    return await dispatch(entry, context);
  } catch (error) {
    if (error instanceof TargetNotASourceError) return { status: 'refused', target: error.target, reason: withSender(error.message, entry) };
    if (error instanceof MalformedEntryError) return { status: 'failed', reason: error.message };
    throw error;
  }
}

/** Who sent a refused message to the DLQ (SQS's `SenderId`: an access key id, or a role id and session), for the triage. */
function withSender(reason: string, entry: DlqEntry): string {
  const sender = entry.kind === EntryKind.ARCHIVED ? undefined : entry.message.Attributes?.SenderId;
  return sender ? `${reason}; sent to the DLQ by ${sender}` : reason;
}

function dispatch(entry: DlqEntry, context: EntryRedrive): Promise<EntryOutcome> {
  switch (entry.kind) {
    case EntryKind.WRAPPER:
      return redriveWrapper(entry.failure, entry.message, context);
    case EntryKind.ATTRIBUTES:
      return redriveAttributeFallback(entry, context);
    case EntryKind.POINTER:
      return redrivePointer(entry.range, { functionArn: entry.pointer.requestContext.functionArn }, context);
    case EntryKind.BARE:
      return redriveBare(entry.message, context);
    case EntryKind.TARGET_FAILURE:
      return Promise.resolve({ status: 'failed', reason: SCHEDULE_CALL_NOT_REDRIVEN });
    case EntryKind.MALFORMED:
      return Promise.resolve({ status: 'failed', reason: describeMalformed(entry.problems, entry.claims) });
    case EntryKind.ARCHIVED:
      return redriveArchived(entry, context);
  }
}

function redriveWrapper(failure: FailureEnvelope, message: Message, context: EntryRedrive): Promise<EntryOutcome> {
  const copy = copyTimeOfWrapper(failure);
  switch (failure.source.kind) {
    case SourceKind.SQS:
      return toQueue(failure.source.arn, messageFromWrapper(failure), { message, copy, groupId: failure.original.attributes?.MessageGroupId }, context);
    case SourceKind.KINESIS: {
      const partitionKey = failure.original.attributes?.partitionKey || failure.eventId || (message.MessageId ?? 'redrive');
      return toKinesis(failure.source.arn, [{ data: Buffer.from(failure.original.body, 'base64'), partitionKey }], copy, context);
    }
    case SourceKind.DYNAMODB_STREAM:
      return toConsumer(failure.source.arn, [recordOfOriginal(failure.original, failure.source.arn, context.topology.region)], copy, { consumer: failure.consumer }, context);
  }
}

/** The fallback keeps the original body but not the source: the stack's relation names it. */
async function redriveAttributeFallback(entry: Extract<DlqEntry, { kind: typeof EntryKind.ATTRIBUTES }>, context: EntryRedrive): Promise<EntryOutcome> {
  const { message, eventId } = entry;
  const [source, ...others] = context.dlq.sources;
  if (!source || others.length > 0) return { status: 'failed', reason: `the context attributes name no source, and the DLQ has ${context.dlq.sources.length} sources` };
  const copy = copyTimeOfAttributes(entry.context, message);
  if (source.role === 'redrive') return toQueue(source.arn, messageFromAttributeFallback(message), { message, copy }, context);
  const body = message.Body ?? '';
  // The fallback keeps the record's `dynamodb` part, not its eventID: the event id the runtime decoded stands in (for the default decoder, they are one).
  if (isTableStreamArn(source.arn)) return toConsumer(source.arn, [recordOfOriginal({ body, encoding: 'utf8', attributes: { eventID: eventId ?? '' } }, source.arn, context.topology.region)], copy, { consumer: entry.consumer }, context);
  const outcome = await toKinesis(source.arn, [{ data: Buffer.from(body, 'base64'), partitionKey: eventId ?? message.MessageId ?? 'redrive' }], copy, context);
  return outcome.status === 'redriven' ? { ...outcome, note: joinNotes('the original partition key was not kept: republished under the event id', outcome.note) } : outcome;
}

/**
 * SQS names the queue it moved the message from; that must be a source queue of this DLQ (toQueue),
 * so a queue of another stack or account that names the DLQ in its redrive policy gets nothing back.
 */
function redriveBare(message: Message, context: EntryRedrive): Promise<EntryOutcome> {
  const redriveSources = context.dlq.sources.filter((source) => source.role === 'redrive');
  const sourceArn = message.Attributes?.DeadLetterQueueSourceArn ?? (redriveSources.length === 1 ? redriveSources[0]?.arn : undefined);
  if (!sourceArn) return Promise.resolve({ status: 'failed', reason: `no source queue: the message names none and the DLQ has ${redriveSources.length} redrive sources` });
  return toQueue(sourceArn, messageFromBare(message), { message, copy: copyTimeOfBare(message, isFifoQueue(context.dlq.url)) }, context);
}

async function redrivePointer(range: StreamBatchInfo, failedBy: FailedBy, context: EntryRedrive): Promise<EntryOutcome> {
  // Checked before the read too: a pointer cannot make the redrive read another stream either.
  sourceTarget(context.topology, context.dlq, range.streamArn, [TargetKind.KINESIS_STREAM, TargetKind.TABLE_STREAM]);
  const read = await readRange(readerFor(context.clients, range.streamArn), range);
  const copy = copyTimeOfRange(range, read.records.map((record) => record.arrivalMs));
  const outcome = isTableStreamArn(range.streamArn)
    ? await toConsumer(range.streamArn, read.records.map((record) => record.lambdaRecord as DynamoDBRecord), copy, failedBy, context)
    : await toKinesis(range.streamArn, read.records.map(putOfKinesisRecord), copy, context);
  // A held pointer says why it is held; once allowed, its missing records are reported as ever.
  if (read.missing === 0 || outcome.status === 'failed' || outcome.status === 'past-dedup-window') return outcome;
  const target = 'target' in outcome && outcome.target ? outcome.target : range.streamArn;
  return { status: 'past-retention', target, records: read.records.length, missing: read.missing, reason: describeMissing(range, read, retentionHoursOf(context.topology, range.streamArn), context.now()) };
}

/** Kinesis: the same data and partition key; a table's stream: the records, to the function that failed on them. */
async function redriveArchived(entry: ArchivedEntry, context: EntryRedrive): Promise<EntryOutcome> {
  if (entry.failure === undefined) return { status: 'failed', reason: `s3://${entry.object.bucket}/${entry.object.key} is not a Lambda on-failure object: ${entry.problem}` };
  const { range, event, record } = entry.failure;
  const copy = copyTimeOfRange(range);
  if (isTableStreamArn(range.streamArn)) return toConsumer(range.streamArn, event.Records as DynamoDBRecord[], copy, { functionArn: record.requestContext.functionArn }, context);
  return toKinesis(range.streamArn, event.Records.map((record) => putOfLambdaKinesisRecord(record as KinesisStreamRecord)), copy, context);
}

/** The DLQ message a copy for a queue comes from, and when the event's earliest copy entered its source. */
interface QueueCopy {
  readonly message: Message;
  readonly copy: CopyTime;
  readonly groupId?: string;
}

async function toQueue(sourceArn: string, body: ReturnType<typeof messageFromBare>, from: QueueCopy, context: EntryRedrive): Promise<EntryOutcome> {
  const { url } = sourceQueue(context.topology, context.dlq, sourceArn);
  const gate = await windowGate(sourceArn, from.copy, url, context);
  if ('held' in gate) return gate.held;
  const carried = withFirstSent(body, gate.check.firstSentAt, gate.check.limits.maxMessageBytes ?? SQS_LIMITS.maxMessageBytes);
  if (!context.dryRun) await needing({ action: 'sqs:SendMessage', resource: sourceArn }, () => sendToQueue(context.clients.sqs, url, carried.message, from.message, from.groupId));
  return redriven(url, 1, gate.note, carried.note);
}

async function toKinesis(streamArn: string, puts: readonly KinesisPut[], copy: CopyTime, context: EntryRedrive): Promise<EntryOutcome> {
  const { streamName } = sourceTarget(context.topology, context.dlq, streamArn, [TargetKind.KINESIS_STREAM]) as KinesisTarget;
  if (puts.length === 0) return redriven(streamName, 0);
  const gate = await windowGate(streamArn, copy, streamName, context);
  if ('held' in gate) return gate.held;
  if (!context.dryRun) await needing({ action: 'kinesis:PutRecords', resource: streamArn }, () => putKinesisRecords(context.clients.kinesis, streamName, puts));
  return redriven(streamName, puts.length, gate.note);
}

function redriven(target: string, records: number, ...notes: (string | undefined)[]): EntryOutcome {
  const note = joinNotes(...notes);
  return { status: 'redriven', target, records, ...(note && { note }) };
}

function joinNotes(...notes: (string | undefined)[]): string | undefined {
  return notes.filter(Boolean).join('; ') || undefined;
}

/** A copy past the dedup window is held, or (allowed) goes with a note. */
type Gate = { readonly held: EntryOutcome } | { readonly check: WindowCheck; readonly note?: string };

async function windowGate(sourceArn: string, copy: CopyTime, target: string, context: EntryRedrive, delivery?: CopyDelivery): Promise<Gate> {
  const check = await context.windows.check(sourceArn, copy, delivery);
  if (check.problem === undefined) return { check };
  if (context.allowPastDedupWindow) return { check, note: `past the dedup window, redriven on ${ALLOW_PAST_DEDUP_WINDOW_FLAG}: ${check.problem}` };
  return { held: { status: 'past-dedup-window', target, reason: `${check.problem}. Left in the DLQ: check the event's effect, then redrive it with ${ALLOW_PAST_DEDUP_WINDOW_FLAG} or delete it` } };
}

/**
 * A table stream's records, to the stack's function that failed on them, as its mapping first
 * delivered them. A record this run already sent goes no second time (ranges and wrappers may name
 * the same one); one the function fails on again keeps the message in the DLQ, with what follows it.
 */
async function toConsumer(streamArn: string, records: readonly DynamoDBRecord[], copy: CopyTime, failedBy: FailedBy, context: EntryRedrive): Promise<EntryOutcome> {
  sourceTarget(context.topology, context.dlq, streamArn, [TargetKind.TABLE_STREAM]);
  const consumer = streamConsumerOf(context.topology, streamArn, failedBy);
  const fresh = records.filter((record) => !context.invoked.has(invokedKey(streamArn, record)));
  const target = `function ${consumer.functionName}`;
  if (fresh.length === 0) return redriven(target, 0, records.length > 0 ? 'every record was sent to its consumer earlier in this run' : undefined);
  const gate = await windowGate(streamArn, copy, target, context, { processedWithinMs: 0, consumer: consumer.consumer });
  if ('held' in gate) return gate.held;
  if (context.dryRun) return redriven(target, fresh.length, gate.note);
  for (const record of fresh) context.invoked.add(invokedKey(streamArn, record));
  const invoke = { action: 'lambda:InvokeFunction', resource: functionArn(arnScopeOf(context.topology), consumer.functionName) };
  const { done, failed } = await needing(invoke, () => reinvoke(context.clients.lambda, consumer, fresh));
  if (failed === undefined) return redriven(target, done, gate.note);
  return { status: 'skipped', target, records: done, reason: `${consumer.functionName} took ${done} of ${fresh.length} records, then failed on ${failed.sequenceNumber}: ${failed.reason}; it and the records after it stay for a later redrive` };
}

function invokedKey(streamArn: string, record: DynamoDBRecord): string {
  return `${streamArn}\n${record.dynamodb?.SequenceNumber ?? record.eventID ?? ''}`;
}
