/**
 * When reading a pointer's range back stops: at the range's end; at the shard's tip, which
 * Kinesis tells by `MillisBehindLatest` 0 on a page that is not full; without that value
 * (DynamoDB Streams), after a few empty pages; and at a guard, with the reason. A scripted reader
 * plays the stream, so every case is exact.
 */
import type { StreamReader, StreamRecord } from '../../../aws/streams/stream-reader';
import { readRange, RANGE_READ_DEFAULTS, type LaggingStreamRead } from '../../../operations/dlq';

const SHARD = 'shardId-000000000000';

function record(sequenceNumber: number): StreamRecord {
  return { sequenceNumber: String(sequenceNumber), arrivalMs: 0, lambdaRecord: { kinesis: { sequenceNumber: String(sequenceNumber) } } as never };
}

/** Pages of records by sequence number, each with the lag the stream reports for it. */
type Page = { readonly records: readonly number[]; readonly lag?: number };

/** A reader that returns `pages` in order, then empty pages (with `tailLag`), and counts its reads. */
function scripted(pages: readonly Page[], options: { readonly tailLag?: number; readonly maxRecordsPerRead?: number } = {}): StreamReader & { reads: number } {
  const reader = {
    kind: 'kinesis' as const,
    streamArn: 'arn:aws:kinesis:eu-west-1:123456789012:stream/orders',
    maxRecordsPerRead: options.maxRecordsPerRead ?? 10_000,
    reads: 0,
    listShards: async () => [{ shardId: SHARD }],
    iterator: async () => 'iterator-0',
    read: async (): Promise<LaggingStreamRead> => {
      const page = pages[reader.reads] ?? { records: [], lag: options.tailLag };
      reader.reads += 1;
      return { records: page.records.map(record), nextIterator: `iterator-${reader.reads}`, millisBehindLatest: page.lag };
    },
  };
  return reader;
}

const range = (start: number, end: number, batchSize = end - start + 1) => ({ shardId: SHARD, startSequenceNumber: String(start), endSequenceNumber: String(end), batchSize, streamArn: 'arn:aws:kinesis:eu-west-1:123456789012:stream/orders', approximateArrivalOfFirstRecord: '', approximateArrivalOfLastRecord: '' });

test('stops at the range\'s end without reading further', async () => {
  const reader = scripted([{ records: [10, 11], lag: 5_000 }, { records: [12, 13], lag: 4_000 }]);
  const read = await readRange(reader, range(10, 12));
  expect(read.records.map((found) => found.sequenceNumber)).toEqual(['10', '11', '12']);
  expect(reader.reads).toBe(2);
});

test('stops at the tip when MillisBehindLatest is 0 on a page that is not full: the rest of the range never came', async () => {
  const reader = scripted([{ records: [10, 11], lag: 0 }], { tailLag: 0 });
  expect(await readRange(reader, range(10, 14))).toMatchObject({ missing: 3 });
  expect(reader.reads).toBe(1);
});

test('reads on through empty pages while the stream is behind its tip', async () => {
  const reader = scripted([{ records: [], lag: 9_000 }, { records: [], lag: 9_000 }, { records: [], lag: 9_000 }, { records: [], lag: 9_000 }, { records: [10, 11], lag: 0 }]);
  expect((await readRange(reader, range(10, 11))).records).toHaveLength(2);
  expect(reader.reads).toBe(5);
});

test('a full page at lag 0 is not taken as the tip (moto reports 0 for records put in the same millisecond)', async () => {
  const reader = scripted([{ records: [10, 11], lag: 0 }, { records: [12], lag: 0 }], { maxRecordsPerRead: 2, tailLag: 0 });
  expect((await readRange(reader, range(10, 12))).records).toHaveLength(3);
  expect(reader.reads).toBe(2);
});

test('without MillisBehindLatest (DynamoDB Streams), a few empty pages in a row end the read', async () => {
  const reader = scripted([{ records: [10] }, { records: [] }, { records: [11] }]);
  expect(await readRange(reader, range(10, 13))).toMatchObject({ missing: 2 });
  expect(reader.reads).toBe(3 + RANGE_READ_DEFAULTS.maxEmptyReads);
});

test('a stream that never reaches its tip is read at most maxReads times, and the read says so', async () => {
  const reader = scripted([], { tailLag: 1_000 });
  const read = await readRange(reader, range(10, 11), { maxReads: 7 });
  expect(reader.reads).toBe(7);
  expect(read).toMatchObject({ missing: 2, unreadable: expect.stringMatching(/stopped after 7 reads of shardId-000000000000/) });
});
