/**
 * The stream mapping against kinesalite: the shared stream behaviours, plus what only Kinesis
 * shows here (several shards, resharding).
 */
import { PutRecordsCommand, SplitShardCommand, type PutRecordsResultEntry } from '@aws-sdk/client-kinesis';
import type { KinesisStreamRecord } from 'aws-lambda';
import { destroyClients } from '../../../emulator/engines';
import { createStream, testClients, uniqueName } from '../../helpers/engines';
import { describeStreamMapping, mappingFor, settled, until, type StreamSource, type StreamUnderTest } from './stream-scenarios';
import { recordingFunction, returned, whileRunning } from './support';

const clients = testClients();
afterAll(() => destroyClients(clients));
const { kinesis, sqs } = clients;

const payloadOf = (record: KinesisStreamRecord): string => Buffer.from(record.kinesis.data, 'base64').toString('utf8');
const shardOf = (record: KinesisStreamRecord): string => record.eventID.split(':')[0] ?? '';

async function putRecords(streamName: string, records: readonly { payload: string; partitionKey: string }[]): Promise<PutRecordsResultEntry[]> {
  const { Records = [], FailedRecordCount } = await kinesis.send(
    new PutRecordsCommand({ StreamName: streamName, Records: records.map(({ payload, partitionKey }) => ({ Data: Buffer.from(payload), PartitionKey: partitionKey })) }),
  );
  if (FailedRecordCount) throw new Error(`${FailedRecordCount} records were not put`);
  return Records;
}

async function kinesisStream(shards = 1): Promise<StreamUnderTest<KinesisStreamRecord>> {
  const { streamName, streamArn } = await createStream(kinesis, uniqueName('mapped'), shards);
  return {
    kind: 'kinesis',
    streamArn,
    streamName,
    put: async (payloads) => void (await putRecords(streamName, payloads.map((payload) => ({ payload, partitionKey: 'one-key' })))),
    payloadOf,
    sequenceNumberOf: (record) => record.kinesis.sequenceNumber,
  };
}

const source: StreamSource<KinesisStreamRecord> = { name: 'Kinesis', clients: () => ({ kinesis, sqs }), create: () => kinesisStream() };

describeStreamMapping(source);

describe('Kinesis mapping with several shards', () => {
  test('each shard is delivered in order, with one batch in flight per shard', async () => {
    const stream = await kinesisStream(2);
    const records = Array.from({ length: 40 }, (_, index) => ({ payload: `p${index}`, partitionKey: `key-${index % 8}` }));
    const put = [...(await putRecords(stream.streamName ?? '', records.slice(0, 20))), ...(await putRecords(stream.streamName ?? '', records.slice(20)))];
    const inFlight = new Map<string, number>();
    let mostInFlightOnOneShard = 0;
    const fn = recordingFunction<KinesisStreamRecord>();
    const invoke = async (event: unknown) => {
      const shard = shardOf((event as { Records: KinesisStreamRecord[] }).Records[0]!);
      inFlight.set(shard, (inFlight.get(shard) ?? 0) + 1);
      mostInFlightOnOneShard = Math.max(mostInFlightOnOneShard, inFlight.get(shard) ?? 0);
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));
      inFlight.set(shard, (inFlight.get(shard) ?? 1) - 1);
      return fn.invoke(event);
    };
    const mapping = mappingFor(stream, { ...fn, invoke }, { kinesis, sqs }, { batchSize: 3 });
    await whileRunning(mapping, () => until(() => mapping.stats.deliveries === records.length, 'every record'));

    const shards = [...new Set(put.map((entry) => entry.ShardId ?? ''))];
    expect(shards).toHaveLength(2);
    for (const shard of shards) {
      const delivered = fn.batches.flat().filter((record) => shardOf(record) === shard).map((record) => record.kinesis.sequenceNumber);
      const written = put.filter((entry) => entry.ShardId === shard).map((entry) => entry.SequenceNumber);
      expect(delivered).toEqual(written);
    }
    expect(mostInFlightOnOneShard).toBe(1);
  });

  test('shards made by a split are picked up, after their parent is read to its end', async () => {
    const stream = await kinesisStream(1);
    const fn = recordingFunction<KinesisStreamRecord>(() => returned());
    const mapping = mappingFor(stream, fn, { kinesis, sqs });
    await whileRunning(mapping, async () => {
      await stream.put(['before-split']);
      await until(() => fn.batches.length === 1, 'the first record');
      await kinesis.send(new SplitShardCommand({ StreamName: stream.streamName, ShardToSplit: mapping.shardIds[0], NewStartingHashKey: (2n ** 127n).toString() }));
      await until(() => mapping.shardIds.length === 3, 'the child shards to be polled');
      await stream.put(['after-split']);
      await until(() => fn.batches.length === 2, 'the record on a child shard');
      await settled(mapping);
    });
    expect(fn.batches.map((batch) => batch.map(payloadOf))).toEqual([['before-split'], ['after-split']]);
    expect(new Set(fn.batches.map((batch) => shardOf(batch[0]!))).size).toBe(2);
  });
});
