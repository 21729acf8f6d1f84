/**
 * The records of one shard that arrived within a replay's window, in shard order. Kinesis starts at
 * the window (`AT_TIMESTAMP`); DynamoDB Streams has no such iterator, so its shards are read from
 * their oldest record and the older ones skipped. A shard ends for the replay at its first record at
 * or past the window's end, at its end if it is closed, or at its tip if it is open, told as a
 * redrive's range read tells it (`atTip` in ../dlq/stream-range.ts: Kinesis's
 * `MillisBehindLatest`, a few empty pages in a row for DynamoDB Streams).
 */
import type { StreamReader, StreamRecord } from '../../aws/streams/stream-reader';
import { atTip, RANGE_READ_DEFAULTS } from '../dlq/stream-range';
import type { LaggingStreamRead } from '../dlq/kinesis-range-reader';
import type { ReplayWindow } from './window';

/** Yields the shard's records within the window, in order, a read at a time. */
export async function* windowRecords(reader: StreamReader, shardId: string, window: ReplayWindow): AsyncGenerator<StreamRecord[]> {
  const start = reader.kind === 'kinesis' ? ({ type: 'AT_TIMESTAMP', timestampMs: window.fromMs } as const) : ({ type: 'TRIM_HORIZON' } as const);
  const limit = Math.min(RANGE_READ_DEFAULTS.limit, reader.maxRecordsPerRead);
  let iterator: string | undefined = await reader.iterator(shardId, start);
  let emptyReads = 0;
  while (iterator !== undefined) {
    const read: LaggingStreamRead = await reader.read(shardId, iterator, limit);
    iterator = read.nextIterator;
    emptyReads = read.records.length === 0 ? emptyReads + 1 : 0;
    const inWindow = read.records.filter((record) => record.arrivalMs >= window.fromMs && record.arrivalMs < window.toMs);
    if (inWindow.length > 0) yield inWindow;
    if (read.records.some((record) => record.arrivalMs >= window.toMs) || atTip(read, limit, emptyReads)) return;
  }
}
