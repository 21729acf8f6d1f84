/**
 * Reads the records an on-failure pointer names back from the stream: an iterator
 * `AT_SEQUENCE_NUMBER` the range's start, then reads until past its end, or until the shard has
 * nothing more. What the stream no longer holds (past its retention, or a shard that is gone) is
 * counted as missing, never silently dropped.
 *
 * "Nothing more" is Kinesis's `MillisBehindLatest` reaching 0 on a page that was not full: a
 * Kinesis page can be empty with records further on, so empty pages alone prove nothing. (moto 5.2
 * reports the time between the last record returned and the shard's last record, so 0 also for
 * records put in the same millisecond; a full page is therefore never taken as the tip.)
 * DynamoDB Streams reports no such value: there a few empty pages in a row end the read, and a
 * closed shard ends it by giving no next iterator.
 */
import type { StreamBatchInfo } from '../../aws/lambda/on-failure-record';
import { compareSequenceNumbers, type StreamReader, type StreamRecord } from '../../aws/streams/stream-reader';
import { dynamoDbStreamReader } from '../../aws/streams/dynamodb-stream-reader';
import { kinesisRangeReader, type LaggingStreamRead } from './kinesis-range-reader';
import { needing } from './permissions';
import type { DlqClients, StackTopology } from './types';

/** Hours a DynamoDB stream keeps records (fixed by AWS); also Kinesis's default. */
export const DEFAULT_RETENTION_HOURS = 24;

/** Defaults shared by the code and its documentation. */
export const RANGE_READ_DEFAULTS = {
  /** Without `MillisBehindLatest` only: reads in a row that return nothing before the range is taken as read to the shard's tip. */
  maxEmptyReads: 3,
  /** Records asked for per read: a pointer's range is one batch (at most 10,000 records). */
  limit: 1_000,
  /** Reads of one range at most: a guard against a stream that never says it reached its tip. */
  maxReads: 1_000,
} as const;

export interface RangeReadOptions {
  /** @default 3 */
  readonly maxEmptyReads?: number;
  /** @default 1000 */
  readonly maxReads?: number;
}

/** Errors that mean "the stream no longer holds this position", as opposed to a failure to ask. */
const UNREADABLE_ERRORS = new Set(['TrimmedDataAccessException', 'InvalidArgumentException', 'ResourceNotFoundException', 'ValidationException']);

export interface RangeRead {
  /** The records of the range still in the stream, in shard order. */
  readonly records: readonly StreamRecord[];
  /** Records the pointer's batch size promises that the stream did not return. */
  readonly missing: number;
  /** Why the read stopped before the range's end or the shard's tip (the stream's own error, or the read guard). */
  readonly unreadable?: string;
}

/**
 * A reader for the stream an ARN names: Kinesis (`:stream/`) or a table's stream (`:table/.../stream/`).
 * A read AWS refuses for lack of a permission throws a PermissionDeniedError naming it.
 */
export function readerFor(clients: DlqClients, streamArn: string): StreamReader {
  return isTableStreamArn(streamArn)
    ? withPermissions(dynamoDbStreamReader({ streams: clients.dynamodbStreams, streamArn, region: clients.region }), 'dynamodb')
    : withPermissions(kinesisRangeReader({ kinesis: clients.kinesis, streamArn, region: clients.region }), 'kinesis');
}

function withPermissions(reader: StreamReader, service: 'kinesis' | 'dynamodb'): StreamReader {
  const on = (action: string) => ({ action: `${service}:${action}`, resource: reader.streamArn });
  return {
    ...reader,
    iterator: (...args) => needing(on('GetShardIterator'), () => reader.iterator(...args)),
    read: (...args) => needing(on('GetRecords'), () => reader.read(...args)),
  };
}

export function isTableStreamArn(arn: string): boolean {
  return /^arn:[^:]+:dynamodb:[^:]*:[^:]*:table\/[^/]+\/stream\//.test(arn);
}

/** Reads the records of `range` (inclusive at both ends). */
export async function readRange(reader: StreamReader, range: StreamBatchInfo, options: RangeReadOptions = {}): Promise<RangeRead> {
  const found: StreamRecord[] = [];
  let stoppedShort: string | undefined;
  try {
    const first = await reader.iterator(range.shardId, { type: 'AT_SEQUENCE_NUMBER', sequenceNumber: range.startSequenceNumber });
    stoppedShort = await readInto(found, reader, range, first, options);
  } catch (error) {
    if (!isUnreadable(error)) throw error;
    stoppedShort = `${(error as Error).name}: ${(error as Error).message}`;
  }
  return { records: found, missing: Math.max(0, range.batchSize - found.length), ...(stoppedShort && { unreadable: stoppedShort }) };
}

/** Reads until the range's end or the shard's tip; returns why it stopped short of both, if it did. */
async function readInto(found: StreamRecord[], reader: StreamReader, range: StreamBatchInfo, first: string, options: RangeReadOptions): Promise<string | undefined> {
  const maxReads = options.maxReads ?? RANGE_READ_DEFAULTS.maxReads;
  const limit = Math.min(reader.maxRecordsPerRead, RANGE_READ_DEFAULTS.limit);
  let emptyReads = 0;
  for (let iterator: string | undefined = first, reads = 0; iterator !== undefined; reads += 1) {
    if (reads >= maxReads) return `stopped after ${maxReads} reads of ${range.shardId} without reaching the range's end or the shard's tip`;
    const read: LaggingStreamRead = await reader.read(range.shardId, iterator, limit);
    if (collectInRange(found, read.records, range)) return undefined;
    emptyReads = read.records.length === 0 ? emptyReads + 1 : 0;
    if (atTip(read, limit, emptyReads, options.maxEmptyReads ?? RANGE_READ_DEFAULTS.maxEmptyReads)) return undefined;
    iterator = read.nextIterator;
  }
  return undefined;
}

/**
 * True when nothing lies beyond this read (see the module's comment): Kinesis says so by
 * `MillisBehindLatest` 0 on a short page; DynamoDB Streams only by `maxEmptyReads` empty pages in a row.
 */
export function atTip(read: LaggingStreamRead, limit: number, emptyReads: number, maxEmptyReads: number = RANGE_READ_DEFAULTS.maxEmptyReads): boolean {
  if (read.millisBehindLatest === undefined) return emptyReads >= maxEmptyReads;
  return read.millisBehindLatest === 0 && read.records.length < limit;
}

/** Adds the records inside the range; true once the range's end is reached or passed. */
function collectInRange(found: StreamRecord[], records: readonly StreamRecord[], range: StreamBatchInfo): boolean {
  for (const record of records) {
    const toEnd = compareSequenceNumbers(record.sequenceNumber, range.endSequenceNumber);
    if (toEnd > 0) return true;
    if (compareSequenceNumbers(record.sequenceNumber, range.startSequenceNumber) >= 0) found.push(record);
    if (toEnd === 0) return true;
  }
  return false;
}

function isUnreadable(error: unknown): boolean {
  return error instanceof Error && UNREADABLE_ERRORS.has(error.name);
}

/** The retention of a stream of the stack: the template's for Kinesis, 24 h for a table's stream. */
export function retentionHoursOf(topology: StackTopology, streamArn: string): number {
  return topology.streams.find((stream) => stream.arn === streamArn)?.retentionHours ?? DEFAULT_RETENTION_HOURS;
}

/** Why records of a range are missing, in words an operator can act on. */
export function describeMissing(range: StreamBatchInfo, read: RangeRead, retentionHours: number, now: Date): string {
  const ageHours = (now.getTime() - Date.parse(range.approximateArrivalOfFirstRecord)) / 3_600_000;
  const why = ageHours > retentionHours ? `past the stream's ${retentionHours} h retention (the range arrived ${ageHours.toFixed(1)} h ago)` : (read.unreadable ?? 'not returned by the stream');
  return `${read.missing} of ${range.batchSize} records of ${range.shardId} ${range.startSequenceNumber}..${range.endSequenceNumber} are no longer readable: ${why}`;
}
