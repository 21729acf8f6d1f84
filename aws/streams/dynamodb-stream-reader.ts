import {
  DescribeStreamCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type DynamoDBStreamsClient,
  type GetShardIteratorInput,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import { dynamoLambdaRecord } from '../lambda/event-records';
import type { ShardDescription, StreamPosition, StreamRead, StreamReader } from './stream-reader';

/** DynamoDB Streams' GetRecords returns at most this many records. */
export const DYNAMODB_STREAM_MAX_RECORDS_PER_READ = 1_000;

/** Which table stream to read. */
export interface DynamoDbStreamReaderOptions {
  readonly streams: DynamoDBStreamsClient;
  readonly streamArn: string;
  readonly region: string;
}

/**
 * A {@link StreamReader} for a DynamoDB table's stream. DynamoDB Local rounds
 * `ApproximateCreationDateTime` down to the minute (AWS: to the second), so record ages read
 * from it are overstated by up to 59 s.
 */
export function dynamoDbStreamReader(options: DynamoDbStreamReaderOptions): StreamReader {
  const { streams, streamArn, region } = options;
  return {
    kind: 'dynamodb-stream',
    streamArn,
    maxRecordsPerRead: DYNAMODB_STREAM_MAX_RECORDS_PER_READ,
    listShards: (signal) => listTableStreamShards(streams, streamArn, signal),
    async iterator(shardId, position, signal) {
      const input = { StreamArn: streamArn, ShardId: shardId, ...iteratorType(position) };
      const { ShardIterator } = await streams.send(new GetShardIteratorCommand(input), { abortSignal: signal });
      if (ShardIterator === undefined) throw new Error(`GetShardIterator for ${streamArn}/${shardId} returned no iterator`);
      return ShardIterator;
    },
    async read(_shardId, iterator, limit, signal): Promise<StreamRead> {
      const { Records = [], NextShardIterator } = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: limit }), { abortSignal: signal });
      const records = Records.map((record) => ({
        sequenceNumber: record.dynamodb?.SequenceNumber ?? '',
        arrivalMs: record.dynamodb?.ApproximateCreationDateTime?.getTime() ?? Date.now(),
        lambdaRecord: dynamoLambdaRecord(record, streamArn, region),
      }));
      return { records, nextIterator: NextShardIterator ?? undefined };
    },
  };
}

async function listTableStreamShards(streams: DynamoDBStreamsClient, streamArn: string, signal?: AbortSignal): Promise<ShardDescription[]> {
  const shards: Shard[] = [];
  let exclusiveStartShardId: string | undefined;
  do {
    const { StreamDescription } = await streams.send(
      new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: exclusiveStartShardId }),
      { abortSignal: signal },
    );
    shards.push(...(StreamDescription?.Shards ?? []));
    exclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
  } while (exclusiveStartShardId !== undefined);
  return shards.map((shard) => ({ shardId: shard.ShardId ?? '', parentShardId: shard.ParentShardId }));
}

function iteratorType(position: StreamPosition): Pick<GetShardIteratorInput, 'ShardIteratorType' | 'SequenceNumber'> {
  if (position.type === 'AT_TIMESTAMP') throw new Error('DynamoDB Streams has no AT_TIMESTAMP iterator: read from TRIM_HORIZON and skip the older records');
  if (!('sequenceNumber' in position)) return { ShardIteratorType: position.type };
  return { ShardIteratorType: position.type, SequenceNumber: position.sequenceNumber };
}
