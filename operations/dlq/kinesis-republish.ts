/**
 * Puts records back on a Kinesis stream with the same data, byte for byte, and the same partition
 * key (so the same shard while the stream is not resharded). Consumers see them as new records at
 * the tip: every consumer of the stream, not only the one that failed, which is safe because each
 * deduplicates on the envelope's `eventId` or upserts by version.
 */
import { setTimeout as wait } from 'node:timers/promises';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { KinesisStreamRecord } from 'aws-lambda';
import type { Sleep } from '../../lambdas/runtime/core/backoff';
import { PublishError } from '../../lambdas/runtime/core/errors';
import { putRecordsInOrder } from '../../lambdas/runtime/producing/producer';
import type { StreamRecord } from '../../aws/streams/stream-reader';
import { MalformedEntryError } from './errors';

/** Attempts per record; each resend goes only to the records a request did not accept. */
const PUT_ATTEMPTS = 5;

export interface KinesisPut {
  readonly data: Uint8Array;
  readonly partitionKey: string;
}

/** The record a Lambda-shaped Kinesis record read back from the stream came from. */
export function putOfKinesisRecord(record: StreamRecord): KinesisPut {
  return putOfLambdaKinesisRecord(record.lambdaRecord as KinesisStreamRecord);
}

/**
 * The put that made a Kinesis record as Lambda hands it over (an invocation event's record).
 * @throws MalformedEntryError when it has no `kinesis.data` and `kinesis.partitionKey`
 */
export function putOfLambdaKinesisRecord(record: KinesisStreamRecord): KinesisPut {
  const kinesis = (record as Partial<KinesisStreamRecord> | undefined)?.kinesis;
  if (typeof kinesis?.data !== 'string' || typeof kinesis.partitionKey !== 'string') throw new MalformedEntryError('a record of the batch is not a Kinesis record (no kinesis.data and kinesis.partitionKey)');
  return { data: Buffer.from(kinesis.data, 'base64'), partitionKey: kinesis.partitionKey };
}

/**
 * Puts every record with the producer's `putRecordsInOrder`: 500 to a request, resending those
 * Kinesis did not accept, in order per partition key. A record goes out only once every earlier
 * record of its key was accepted (a resend would otherwise land after a later record of its key,
 * which the consumers then apply first), so `n` records of one key take `n` requests.
 *
 * @throws Error when some are still refused after {@link PUT_ATTEMPTS} attempts (those before were
 * accepted, and the later records of a refused one's key were not sent: a retry of the whole
 * redrive puts the accepted ones twice, which consumers absorb, and the rest in order); a request's
 * own permanent failure, or its transient one on the last attempt, as it is
 */
export async function putKinesisRecords(kinesis: KinesisClient, streamName: string, records: readonly KinesisPut[], sleep: Sleep = (ms) => wait(ms)): Promise<void> {
  const entries = records.map((put, position) => ({ Id: String(position), Data: put.data, PartitionKey: put.partitionKey }));
  const retry = { maxAttempts: PUT_ATTEMPTS, baseMs: 100, capMs: 2_000, sleep };
  try {
    await putRecordsInOrder(kinesis, streamName, entries, retry);
  } catch (error) {
    if (!(error instanceof PublishError)) throw error;
    throw new Error(`Kinesis refused records to ${streamName} after ${PUT_ATTEMPTS} attempts: ${error.failedIds.length} of ${records.length} not put`, { cause: error });
  }
}
