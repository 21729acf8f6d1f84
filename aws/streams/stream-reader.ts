/**
 * What a stream mapping needs from a stream, whichever service holds it: its shards, an iterator
 * at a position, and records read from an iterator, already shaped as Lambda delivers them.
 */
import type { DynamoDBRecord, KinesisStreamRecord } from 'aws-lambda';

/** The stream sources a stream mapping reads. */
export type StreamKind = 'kinesis' | 'dynamodb-stream';

/** Where in a shard to start reading. */
export type StreamPosition =
  | { readonly type: 'TRIM_HORIZON' | 'LATEST' }
  | { readonly type: 'AT_SEQUENCE_NUMBER' | 'AFTER_SEQUENCE_NUMBER'; readonly sequenceNumber: string }
  /** Kinesis only: the first record that arrived at or after this time (epoch ms). DynamoDB Streams has no such iterator. */
  | { readonly type: 'AT_TIMESTAMP'; readonly timestampMs: number };

/** One shard of a stream. */
export interface ShardDescription {
  readonly shardId: string;
  /** Set for a shard made by a split or merge (or a DynamoDB shard rollover). */
  readonly parentShardId?: string;
}

/** A record as Lambda hands it to a function, with what the mapping needs to know about it. */
export interface StreamRecord {
  readonly sequenceNumber: string;
  /** Kinesis: approximate arrival; DynamoDB Streams: approximate creation time (epoch ms). */
  readonly arrivalMs: number;
  readonly lambdaRecord: KinesisStreamRecord | DynamoDBRecord;
}

/** One read from a shard. */
export interface StreamRead {
  readonly records: readonly StreamRecord[];
  /** Where to read next; undefined once the shard is closed and read to its end. */
  readonly nextIterator: string | undefined;
}

/** Reads one stream. */
export interface StreamReader {
  readonly kind: StreamKind;
  readonly streamArn: string;
  /** The most records one read may return. */
  readonly maxRecordsPerRead: number;
  listShards(signal?: AbortSignal): Promise<ShardDescription[]>;
  iterator(shardId: string, position: StreamPosition, signal?: AbortSignal): Promise<string>;
  read(shardId: string, iterator: string, limit: number, signal?: AbortSignal): Promise<StreamRead>;
}

/** The identifier a partial batch response names a stream record by. */
export function itemIdentifier(record: StreamRecord): string {
  return record.sequenceNumber;
}

/**
 * Orders two sequence numbers. Both services use decimal strings that grow along a shard;
 * DynamoDB Local pads them with zeros, Kinesis does not, so compare them as numbers.
 */
export function compareSequenceNumbers(a: string, b: string): number {
  const difference = BigInt(a) - BigInt(b);
  return difference === 0n ? 0 : difference < 0n ? -1 : 1;
}

/**
 * A record as Lambda hands it (in an invocation event, or built from a read), with its sequence
 * number and arrival time: Lambda's records state the time in seconds (Kinesis's
 * `approximateArrivalTimestamp`, a table stream's `ApproximateCreationDateTime`).
 */
export function streamRecordOf(lambdaRecord: KinesisStreamRecord | DynamoDBRecord): StreamRecord {
  if ('kinesis' in lambdaRecord && lambdaRecord.kinesis) return { sequenceNumber: lambdaRecord.kinesis.sequenceNumber, arrivalMs: lambdaRecord.kinesis.approximateArrivalTimestamp * 1000, lambdaRecord };
  const change = (lambdaRecord as DynamoDBRecord).dynamodb;
  return { sequenceNumber: change?.SequenceNumber ?? '', arrivalMs: (change?.ApproximateCreationDateTime ?? 0) * 1000, lambdaRecord };
}
