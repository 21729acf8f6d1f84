/**
 * A replay's third source: the failure archives (`onFailure: 's3'`) of the consumer's stream. Each
 * object keeps a batch its mapping gave up on whole, records included, for the DLQ's retention
 * (14 days), longer than a stream keeps them (a table stream: 24 hours). A record that arrived
 * within the window and that the stream no longer holds (older than the shard's oldest record) is
 * sent from its object, before the shard's records; one the stream still holds is sent from the
 * stream, once. Only the consumer's own batches
 * are taken (the object's function ARN): a batch another generation failed on is that one's. The
 * objects stay: a replay reads, a redrive (`eo dlq redrive`) removes.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { compareSequenceNumbers, streamRecordOf, type StreamRecord } from '../../aws/streams/stream-reader';
import { readArchive } from '../dlq/archive-objects';
import { functionNameOf } from '../dlq/entry';
import type { ReplayWindow } from './window';

const SEQUENCE_NUMBER = /^\d+$/;

/** The records to send from the archives, by shard, each shard's in sequence order. */
export interface ArchivedRecords {
  readonly shards: ReadonlyMap<string, readonly StreamRecord[]>;
  /** Objects of the consumer's read (its own batches); objects that are not on-failure records are skipped. */
  readonly objects: number;
  /** The archive listed more objects than one read takes (`ARCHIVE_DEFAULTS.limit`). */
  readonly truncated: boolean;
}

/** The records of `functionName`'s archived batches in `buckets` that arrived within `window`, each once. */
export async function archivedWindowRecords(s3: S3Client, buckets: readonly string[], functionName: string, window: ReplayWindow): Promise<ArchivedRecords> {
  const byShard = new Map<string, Map<string, StreamRecord>>();
  let objects = 0;
  let truncated = false;
  for (const bucket of buckets) {
    const archive = await readArchive(s3, bucket);
    truncated ||= archive.truncated;
    for (const entry of archive.entries) {
      if (entry.failure === undefined || functionNameOf(entry.failure.record.requestContext.functionArn) !== functionName) continue;
      objects += 1;
      const shard = byShard.get(entry.failure.range.shardId) ?? new Map<string, StreamRecord>();
      for (const record of entry.failure.event.Records.map(streamRecordOf)) {
        // A record without a decimal sequence number is no stream's: nothing to order it by, nor to send.
        if (!SEQUENCE_NUMBER.test(record.sequenceNumber)) continue;
        if (record.arrivalMs >= window.fromMs && record.arrivalMs < window.toMs) shard.set(record.sequenceNumber, record);
      }
      byShard.set(entry.failure.range.shardId, shard);
    }
  }
  const shards = new Map([...byShard].filter(([, records]) => records.size > 0).map(([shardId, records]) => [shardId, [...records.values()].sort(bySequence)]));
  return { shards, objects, truncated };
}

function bySequence(a: StreamRecord, b: StreamRecord): number {
  return compareSequenceNumbers(a.sequenceNumber, b.sequenceNumber);
}
