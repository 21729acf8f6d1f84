/**
 * The records of one shard that arrived within a replay's window, in shard order. Kinesis starts at
 * the window (`AT_TIMESTAMP`); DynamoDB Streams has no such iterator, so its shards are read from
 * their oldest record and the older ones skipped. A shard ends for the replay at its first record at
 * or past the window's end, at its end if it is closed, or after a few empty reads in a row if it is
 * open (GetRecords answers empty at the tip, and now and then before it on a sparse shard).
 */
import type { StreamReader, StreamRecord } from '../../aws/streams/stream-reader';
import type { ReplayWindow } from './window';

/** Empty reads in a row after which an open shard counts as read to its tip. */
export const EMPTY_READS_AT_TIP = 3;

/** The most records one read asks for: a replay goes a batch at a time, so there is no use for more. */
const READ_LIMIT = 1_000;

/** Yields the shard's records within the window, in order, a read at a time. */
export async function* windowRecords(reader: StreamReader, shardId: string, window: ReplayWindow): AsyncGenerator<StreamRecord[]> {
  const start = reader.kind === 'kinesis' ? ({ type: 'AT_TIMESTAMP', timestampMs: window.fromMs } as const) : ({ type: 'TRIM_HORIZON' } as const);
  let iterator: string | undefined = await reader.iterator(shardId, start);
  let empty = 0;
  while (iterator !== undefined && empty < EMPTY_READS_AT_TIP) {
    const read = await reader.read(shardId, iterator, Math.min(READ_LIMIT, reader.maxRecordsPerRead));
    iterator = read.nextIterator;
    empty = read.records.length === 0 ? empty + 1 : 0;
    const inWindow = read.records.filter((record) => record.arrivalMs >= window.fromMs && record.arrivalMs < window.toMs);
    if (inWindow.length > 0) yield inWindow;
    if (read.records.some((record) => record.arrivalMs >= window.toMs)) return;
  }
}
