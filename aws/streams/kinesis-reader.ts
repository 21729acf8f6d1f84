import {
  GetRecordsCommand,
  GetShardIteratorCommand,
  ListShardsCommand,
  type GetShardIteratorInput,
  type KinesisClient,
  type Shard,
} from '@aws-sdk/client-kinesis';
import { kinesisLambdaRecord } from '../lambda/event-records';
import { streamRecordOf, type ShardDescription, type StreamPosition, type StreamRead, type StreamReader } from './stream-reader';

/** GetRecords returns at most this many records. */
export const KINESIS_MAX_RECORDS_PER_READ = 10_000;

/** Which Kinesis stream to read. */
export interface KinesisReaderOptions {
  readonly kinesis: KinesisClient;
  readonly streamArn: string;
  /** @default - the name in `streamArn` */
  readonly streamName?: string;
  readonly region: string;
}

/**
 * A {@link StreamReader} for a Kinesis stream. It addresses the stream by name, not ARN:
 * kinesalite does not accept `StreamARN`.
 */
export function kinesisReader(options: KinesisReaderOptions): StreamReader {
  const { kinesis, streamArn, region } = options;
  const streamName = options.streamName ?? streamNameOf(streamArn);
  return {
    kind: 'kinesis',
    streamArn,
    maxRecordsPerRead: KINESIS_MAX_RECORDS_PER_READ,
    listShards: (signal) => listKinesisShards(kinesis, streamName, signal),
    async iterator(shardId, position, signal) {
      const { ShardIterator } = await kinesis.send(new GetShardIteratorCommand({ StreamName: streamName, ShardId: shardId, ...iteratorType(position) }), { abortSignal: signal });
      if (ShardIterator === undefined) throw new Error(`GetShardIterator for ${streamName}/${shardId} returned no iterator`);
      return ShardIterator;
    },
    async read(shardId, iterator, limit, signal): Promise<StreamRead> {
      const { Records = [], NextShardIterator } = await kinesis.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: limit }), { abortSignal: signal });
      const records = Records.map((record) => streamRecordOf(kinesisLambdaRecord(record, shardId, streamArn, region)));
      return { records, nextIterator: NextShardIterator };
    },
  };
}

async function listKinesisShards(kinesis: KinesisClient, streamName: string, signal?: AbortSignal): Promise<ShardDescription[]> {
  const shards: Shard[] = [];
  let nextToken: string | undefined;
  do {
    // With a NextToken, ListShards refuses the stream name.
    const input = nextToken === undefined ? { StreamName: streamName } : { NextToken: nextToken };
    const page = await kinesis.send(new ListShardsCommand(input), { abortSignal: signal });
    shards.push(...(page.Shards ?? []));
    nextToken = page.NextToken;
  } while (nextToken !== undefined);
  return shards.map((shard) => ({ shardId: shard.ShardId ?? '', parentShardId: shard.ParentShardId }));
}

function iteratorType(position: StreamPosition): Pick<GetShardIteratorInput, 'ShardIteratorType' | 'StartingSequenceNumber' | 'Timestamp'> {
  if (position.type === 'AT_TIMESTAMP') return { ShardIteratorType: 'AT_TIMESTAMP', Timestamp: new Date(position.timestampMs) };
  if (!('sequenceNumber' in position)) return { ShardIteratorType: position.type };
  return { ShardIteratorType: position.type, StartingSequenceNumber: position.sequenceNumber };
}

/** `arn:aws:kinesis:<region>:<account>:stream/<name>` -> `<name>`. */
export function streamNameOf(streamArn: string): string {
  const name = /:stream\/([^/]+)$/.exec(streamArn)?.[1];
  if (name === undefined) throw new Error(`Not a Kinesis stream ARN: ${streamArn}`);
  return name;
}
