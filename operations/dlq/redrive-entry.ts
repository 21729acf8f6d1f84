/**
 * Redrives one DLQ message to where it came from, by kind: our wrappers and the attribute fallback
 * to the source their context or the stack names, Lambda's on-failure pointers by reading their
 * range back from the stream, bare messages to the queue SQS moved them from, and an archive
 * object's batch from the records it holds (the stream is not read: they may be past its retention). Writes nothing in a
 * dry run; reads (queue URLs, stream ranges, table items) happen either way, so that a dry run
 * reports what a real run would do.
 *
 * Returns an outcome for what concerns this message alone (its source cannot be found, its
 * records are gone); throws when a service call fails, which the caller treats as a reason to stop.
 */
import type { Message } from '@aws-sdk/client-sqs';
import { SourceKind } from '../../lambdas/runtime';
import { type FailureEnvelope } from '../../aws/dlq-format';
import { streamNameOf } from '../../aws/streams/kinesis-reader';
import type { StreamBatchInfo } from '../../aws/lambda/on-failure-record';
import type { DynamoDBRecord, KinesisStreamRecord } from 'aws-lambda';
import { EntryKind, type ArchivedEntry, type DlqEntry } from './entry';
import { MalformedEntryError } from './errors';
import { putKinesisRecords, putOfKinesisRecord, putOfLambdaKinesisRecord, type KinesisPut } from './kinesis-republish';
import { messageFromAttributeFallback, messageFromBare, messageFromWrapper, queueUrlOf, sendToQueue } from './sqs-republish';
import { describeMissing, isTableStreamArn, readerFor, readRange, retentionHoursOf } from './stream-range';
import { changeOfOriginal, changeOfStreamRecord, reemitChange, tableNameOfStreamArn, type TableChange } from './table-reemit';
import type { DlqContext, DlqInfo } from './types';

/** What became of one message; only `redriven` leaves the DLQ. */
export type EntryOutcome =
  | { readonly status: 'redriven'; readonly target: string; readonly records: number; readonly note?: string }
  | { readonly status: 'skipped'; readonly reason: string; readonly target?: string; readonly records?: number }
  | { readonly status: 'past-retention'; readonly target: string; readonly records: number; readonly missing: number; readonly reason: string }
  | { readonly status: 'failed'; readonly reason: string };

export interface EntryRedrive extends DlqContext {
  readonly dlq: DlqInfo;
  readonly dryRun: boolean;
  readonly now: () => Date;
}

export async function redriveEntry(entry: DlqEntry, context: EntryRedrive): Promise<EntryOutcome> {
  try {
    return await dispatch(entry, context);
  } catch (error) {
    if (error instanceof MalformedEntryError) return { status: 'failed', reason: error.message };
    throw error;
  }
}

function dispatch(entry: DlqEntry, context: EntryRedrive): Promise<EntryOutcome> {
  switch (entry.kind) {
    case EntryKind.WRAPPER:
      return redriveWrapper(entry.failure, entry.message, context);
    case EntryKind.ATTRIBUTES:
      return redriveAttributeFallback(entry.message, entry.eventId, context);
    case EntryKind.POINTER:
      return redrivePointer(entry.range, context);
    case EntryKind.BARE:
      return redriveBare(entry.message, context);
    case EntryKind.ARCHIVED:
      return redriveArchived(entry, context);
  }
}

function redriveWrapper(failure: FailureEnvelope, message: Message, context: EntryRedrive): Promise<EntryOutcome> {
  switch (failure.source.kind) {
    case SourceKind.SQS:
      return toQueue(failure.source.arn, messageFromWrapper(failure), message, context, failure.original.attributes?.MessageGroupId);
    case SourceKind.KINESIS: {
      const partitionKey = failure.original.attributes?.partitionKey || failure.eventId || (message.MessageId ?? 'redrive');
      return toKinesis(failure.source.arn, [{ data: Buffer.from(failure.original.body, 'base64'), partitionKey }], context);
    }
    case SourceKind.DYNAMODB_STREAM:
      return toTable(failure.source.arn, [changeOfOriginal(failure.original)], context);
  }
}

/** The fallback keeps the original body but not the source: the stack's relation names it. */
async function redriveAttributeFallback(message: Message, eventId: string | undefined, context: EntryRedrive): Promise<EntryOutcome> {
  const [source, ...others] = context.dlq.sources;
  if (!source || others.length > 0) return { status: 'failed', reason: `the context attributes name no source, and the DLQ has ${context.dlq.sources.length} sources` };
  if (source.role === 'redrive') return toQueue(source.arn, messageFromAttributeFallback(message), message, context);
  const body = message.Body ?? '';
  if (isTableStreamArn(source.arn)) return toTable(source.arn, [changeOfOriginal({ body, encoding: 'utf8' })], context);
  const outcome = await toKinesis(source.arn, [{ data: Buffer.from(body, 'base64'), partitionKey: eventId ?? message.MessageId ?? 'redrive' }], context);
  return outcome.status === 'redriven' ? { ...outcome, note: 'the original partition key was not kept: republished under the event id' } : outcome;
}

function redriveBare(message: Message, context: EntryRedrive): Promise<EntryOutcome> {
  const redriveSources = context.dlq.sources.filter((source) => source.role === 'redrive');
  const sourceArn = message.Attributes?.DeadLetterQueueSourceArn ?? (redriveSources.length === 1 ? redriveSources[0]?.arn : undefined);
  if (!sourceArn) return Promise.resolve({ status: 'failed', reason: `no source queue: the message names none and the DLQ has ${redriveSources.length} redrive sources` });
  return toQueue(sourceArn, messageFromBare(message), message, context);
}

async function redrivePointer(range: StreamBatchInfo, context: EntryRedrive): Promise<EntryOutcome> {
  const read = await readRange(readerFor(context.clients, range.streamArn), range);
  const outcome = isTableStreamArn(range.streamArn)
    ? await toTable(range.streamArn, read.records.map((record) => changeOfStreamRecord(record.lambdaRecord as DynamoDBRecord)), context)
    : await toKinesis(range.streamArn, read.records.map(putOfKinesisRecord), context);
  if (read.missing === 0 || outcome.status === 'failed') return outcome;
  const target = 'target' in outcome && outcome.target ? outcome.target : range.streamArn;
  return { status: 'past-retention', target, records: read.records.length, missing: read.missing, reason: describeMissing(range, read, retentionHoursOf(context.topology, range.streamArn), context.now()) };
}

/** Kinesis: the same data and partition key; a table's stream: each change re-emitted by the guarded touch. */
async function redriveArchived(entry: ArchivedEntry, context: EntryRedrive): Promise<EntryOutcome> {
  if (entry.failure === undefined) return { status: 'failed', reason: `s3://${entry.object.bucket}/${entry.object.key} is not a Lambda on-failure object: ${entry.problem}` };
  const { range, event } = entry.failure;
  if (isTableStreamArn(range.streamArn)) return toTable(range.streamArn, event.Records.map((record) => changeOfStreamRecord(record as DynamoDBRecord)), context);
  return toKinesis(range.streamArn, event.Records.map((record) => putOfLambdaKinesisRecord(record as KinesisStreamRecord)), context);
}

async function toQueue(sourceArn: string, body: ReturnType<typeof messageFromBare>, message: Message, context: EntryRedrive, groupId?: string): Promise<EntryOutcome> {
  let url: string;
  try {
    url = await queueUrlOf(context.clients.sqs, context.topology, sourceArn);
  } catch (error) {
    return { status: 'failed', reason: `source queue ${sourceArn} not found: ${(error as Error).message}` };
  }
  if (!context.dryRun) await sendToQueue(context.clients.sqs, url, body, message, groupId);
  return { status: 'redriven', target: url, records: 1 };
}

async function toKinesis(streamArn: string, puts: readonly KinesisPut[], context: EntryRedrive): Promise<EntryOutcome> {
  const streamName = kinesisStreamName(streamArn);
  if (!context.dryRun && puts.length > 0) await putKinesisRecords(context.clients.kinesis, streamName, puts);
  return { status: 'redriven', target: streamName, records: puts.length };
}

function kinesisStreamName(streamArn: string): string {
  try {
    return streamNameOf(streamArn);
  } catch (error) {
    throw new MalformedEntryError(`the source ${streamArn} is neither a queue, a Kinesis stream nor a table stream`, { cause: error });
  }
}

async function toTable(streamArn: string, changes: readonly TableChange[], context: EntryRedrive): Promise<EntryOutcome> {
  const tableName = tableNameOfStreamArn(streamArn);
  const now = context.now().toISOString();
  const blocked: string[] = [];
  let emitted = 0;
  for (const change of changes) {
    const outcome = await reemitChange(context.clients.dynamodb, tableName, change, { dryRun: context.dryRun, now });
    if ('reason' in outcome) blocked.push(`${change.sequenceNumber ?? 'record'}: ${outcome.reason}`);
    else emitted += 1;
  }
  if (blocked.length === 0) return { status: 'redriven', target: tableName, records: emitted };
  return { status: 'skipped', target: tableName, records: emitted, reason: `${blocked.length} of ${changes.length} changes cannot be re-emitted from the table (${blocked.join('; ')})` };
}
