/**
 * The message a Kinesis or DynamoDB Streams mapping sends to its on-failure destination when it
 * gives up on a range of records. It holds metadata only, never the records: whoever redrives
 * must read them back from the stream by shard and sequence numbers.
 */
import { randomUUID } from 'node:crypto';
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

/** True if `value` (a parsed message body) looks like an on-failure message from a stream mapping. */
export function isStreamOnFailureRecord(value: unknown): value is StreamOnFailureRecord {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  const info = candidate.KinesisBatchInfo ?? candidate.DDBStreamBatchInfo;
  const context = candidate.requestContext as Record<string, unknown> | undefined;
  return (
    candidate.version === '1.0' &&
    typeof context?.functionArn === 'string' &&
    typeof info === 'object' &&
    info !== null &&
    typeof (info as Record<string, unknown>).startSequenceNumber === 'string' &&
    typeof (info as Record<string, unknown>).shardId === 'string'
  );
}
