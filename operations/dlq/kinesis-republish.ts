/**
 * Puts records back on a Kinesis stream with the same data, byte for byte, and the same partition
 * key (so the same shard while the stream is not resharded). Consumers see them as new records at
 * the tip: every consumer of the stream, not only the one that failed, which is safe because each
 * deduplicates on the envelope's `eventId` or upserts by version.
 */
import { setTimeout as wait } from 'node:timers/promises';
import { PutRecordsCommand, type KinesisClient } from '@aws-sdk/client-kinesis';
import type { KinesisStreamRecord } from 'aws-lambda';
import { fullJitterDelay, type Sleep } from '../../lambdas/runtime/backoff';
import type { StreamRecord } from '../../aws/streams/stream-reader';
import { MalformedEntryError } from './errors';

const PUT_RECORDS_LIMIT = 500;
/** Attempts per chunk; each resends only the records the previous one did not accept. */
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
 * Puts every record; throws when some are still refused after {@link PUT_ATTEMPTS} attempts (those
 * before were accepted: a retry of the whole redrive puts them twice, which consumers absorb).
 */
export async function putKinesisRecords(kinesis: KinesisClient, streamName: string, records: readonly KinesisPut[], sleep: Sleep = (ms) => wait(ms)): Promise<void> {
  for (let start = 0; start < records.length; start += PUT_RECORDS_LIMIT) {
    await putChunk(kinesis, streamName, records.slice(start, start + PUT_RECORDS_LIMIT), sleep);
  }
}

async function putChunk(kinesis: KinesisClient, streamName: string, chunk: readonly KinesisPut[], sleep: Sleep): Promise<void> {
  let pending = chunk;
  for (let attempt = 0; attempt < PUT_ATTEMPTS; attempt += 1) {
    if (attempt > 0) await sleep(fullJitterDelay(attempt - 1, { baseMs: 100, capMs: 2_000 }));
    const result = await kinesis.send(new PutRecordsCommand({ StreamName: streamName, Records: pending.map((put) => ({ Data: put.data, PartitionKey: put.partitionKey })) }));
    pending = pending.filter((_, index) => result.Records?.[index]?.ErrorCode);
    if (pending.length === 0) return;
  }
  throw new Error(`Kinesis refused ${pending.length} of ${chunk.length} records to ${streamName} after ${PUT_ATTEMPTS} attempts`);
}
