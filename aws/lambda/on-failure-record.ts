/**
 * The message a Kinesis or DynamoDB Streams mapping sends to its on-failure destination when it
 * gives up on a range of records. It holds metadata only, never the records: whoever redrives
 * must read them back from the stream by shard and sequence numbers.
 */
import { randomUUID } from 'node:crypto';
import { isCount, isRecord, isString, isTime, oneOf, optional, problemsOf, type FieldRule } from '../field-rules';
import type { StreamKind } from '../streams/stream-reader';

/** Why the mapping gave up on the records. */
export type OnFailureCondition = 'RetryAttemptsExhausted' | 'RecordAgeExceeded';

/** The range of records given up on, as `KinesisBatchInfo` or `DDBStreamBatchInfo`. */
export interface StreamBatchInfo {
  readonly shardId: string;
  readonly startSequenceNumber: string;
  readonly endSequenceNumber: string;
  /** ISO-8601. */
  readonly approximateArrivalOfFirstRecord: string;
  /** ISO-8601. */
  readonly approximateArrivalOfLastRecord: string;
  readonly batchSize: number;
  readonly streamArn: string;
}

interface OnFailureEnvelope {
  readonly requestContext: {
    readonly requestId: string;
    readonly functionArn: string;
    readonly condition: OnFailureCondition;
    readonly approximateInvokeCount: number;
  };
  readonly responseContext: {
    readonly statusCode: number;
    readonly executedVersion: string;
    readonly functionError: string;
  };
  readonly version: '1.0';
  /** ISO-8601. */
  readonly timestamp: string;
}

/** An on-failure message from a Kinesis mapping. */
export type KinesisOnFailureRecord = OnFailureEnvelope & { readonly KinesisBatchInfo: StreamBatchInfo };

/** An on-failure message from a DynamoDB Streams mapping. */
export type DynamoDbStreamOnFailureRecord = OnFailureEnvelope & { readonly DDBStreamBatchInfo: StreamBatchInfo };

/** The body of an on-failure message, as Lambda sends it to an SQS destination. */
export type StreamOnFailureRecord = KinesisOnFailureRecord | DynamoDbStreamOnFailureRecord;

/** What {@link onFailureRecord} needs to describe the records given up on. */
export interface OnFailureInput {
  readonly kind: StreamKind;
  readonly condition: OnFailureCondition;
  readonly functionArn: string;
  readonly streamArn: string;
  readonly shardId: string;
  /** The range given up on, in shard order; at least one record. */
  readonly records: readonly { readonly sequenceNumber: string; readonly arrivalMs: number }[];
  /** Invocations of this range so far (0 when it expired before any). */
  readonly approximateInvokeCount: number;
  /** @default - now */
  readonly now?: Date;
  /** @default - a random UUID */
  readonly requestId?: string;
}

/**
 * Builds the on-failure message for a range of records.
 *
 * @example
 * const body = JSON.stringify(onFailureRecord({ kind: 'kinesis', condition: 'RetryAttemptsExhausted', ... }));
 */
export function onFailureRecord(input: OnFailureInput): StreamOnFailureRecord {
  const envelope: OnFailureEnvelope = {
    requestContext: {
      requestId: input.requestId ?? randomUUID(),
      functionArn: input.functionArn,
      condition: input.condition,
      approximateInvokeCount: input.approximateInvokeCount,
    },
    responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
    version: '1.0',
    timestamp: (input.now ?? new Date()).toISOString(),
  };
  const info = batchInfo(input);
  return input.kind === 'kinesis' ? { ...envelope, KinesisBatchInfo: info } : { ...envelope, DDBStreamBatchInfo: info };
}

function batchInfo(input: OnFailureInput): StreamBatchInfo {
  const first = input.records[0];
  const last = input.records[input.records.length - 1];
  if (first === undefined || last === undefined) throw new Error('An on-failure record needs at least one record');
  // DynamoDB Streams' creation times have whole seconds, and AWS prints them without millis.
  const time = (ms: number): string => (input.kind === 'kinesis' ? new Date(ms).toISOString() : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'));
  return {
    shardId: input.shardId,
    startSequenceNumber: first.sequenceNumber,
    endSequenceNumber: last.sequenceNumber,
    approximateArrivalOfFirstRecord: time(first.arrivalMs),
    approximateArrivalOfLastRecord: time(last.arrivalMs),
    batchSize: input.records.length,
    streamArn: input.streamArn,
  };
}

/** The batch info of an on-failure message, whichever source sent it. */
export function streamBatchInfoOf(record: StreamOnFailureRecord): StreamBatchInfo {
  return 'KinesisBatchInfo' in record ? record.KinesisBatchInfo : record.DDBStreamBatchInfo;
}

/** A body that claims to be an on-failure message, checked: the record, or each thing wrong with it. */
export type OnFailureRecordCheck =
  | { readonly record: StreamOnFailureRecord; readonly problems?: undefined }
  | { readonly record?: undefined; readonly problems: readonly string[] };

/** The batch info's two names: Kinesis's and DynamoDB Streams'. */
const BATCH_INFO_KEYS = ['KinesisBatchInfo', 'DDBStreamBatchInfo'] as const;

const isSequenceNumber = (value: unknown): boolean => isString(value) && /^\d{1,128}$/.test(value);
const isBatchSize = (value: unknown): boolean => isCount(value) && (value as number) >= 1;
const CONDITIONS: readonly OnFailureCondition[] = ['RetryAttemptsExhausted', 'RecordAgeExceeded'];

/** The layout as Lambda documents it, every field a redrive or `eo dlq inspect` reads; `responseContext` is only shown. */
const ENVELOPE_RULES: readonly FieldRule[] = [
  ['version', '"1.0"', (value) => value === '1.0'],
  ['timestamp', 'an ISO-8601 time', isTime],
  ['requestContext', 'an object', isRecord],
  ['requestContext.requestId', 'a string', isString],
  ['requestContext.functionArn', 'a string', isString],
  ['requestContext.condition', CONDITIONS.join(' or '), oneOf(CONDITIONS)],
  ['requestContext.approximateInvokeCount', 'a whole number', isCount],
  ['responseContext', 'an object', optional(isRecord)],
];

function batchInfoRules(key: (typeof BATCH_INFO_KEYS)[number]): FieldRule[] {
  return [
    [key, 'an object', isRecord],
    [`${key}.shardId`, 'a string', isString],
    [`${key}.startSequenceNumber`, 'a sequence number (digits)', isSequenceNumber],
    [`${key}.endSequenceNumber`, 'a sequence number (digits)', isSequenceNumber],
    [`${key}.approximateArrivalOfFirstRecord`, 'an ISO-8601 time', isTime],
    [`${key}.approximateArrivalOfLastRecord`, 'an ISO-8601 time', isTime],
    [`${key}.batchSize`, 'a whole number >= 1', isBatchSize],
    [`${key}.streamArn`, 'a string', isString],
  ];
}

/**
 * Checks a parsed message body against the whole on-failure layout. `undefined` when the body does
 * not claim to be one (it has neither `KinesisBatchInfo` nor `DDBStreamBatchInfo`): it is some
 * other kind of message. Otherwise the record, or its problems, each naming a field by its path:
 * anyone who can send to a queue can write a body that claims the layout, and a redrive must
 * neither crash on it nor act on half of it (a range with no end, a stream with no ARN).
 *
 * @example
 * checkStreamOnFailureRecord({ KinesisBatchInfo: {} })?.problems; // ['version is missing', ..., 'KinesisBatchInfo.shardId is missing', ...]
 */
export function checkStreamOnFailureRecord(value: unknown): OnFailureRecordCheck | undefined {
  if (!isRecord(value)) return undefined;
  const present = BATCH_INFO_KEYS.filter((key) => key in value);
  if (present.length === 0) return undefined;
  if (present.length > 1) return { problems: ['KinesisBatchInfo and DDBStreamBatchInfo are both present, expected one'] };
  const problems = problemsOf(value, [...ENVELOPE_RULES, ...batchInfoRules(present[0] as (typeof BATCH_INFO_KEYS)[number])]);
  return problems.length === 0 ? { record: value as unknown as StreamOnFailureRecord } : { problems };
}

/** True if `value` (a parsed message body) is a whole on-failure message from a stream mapping. */
export function isStreamOnFailureRecord(value: unknown): value is StreamOnFailureRecord {
  return checkStreamOnFailureRecord(value)?.record !== undefined;
}
