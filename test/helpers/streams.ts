/**
 * Reads what the stream engines hold, shaped as Lambda's records, so that tests hand handlers the
 * records (and sequence numbers) the engines really produced.
 */
import { DynamoDBStreamsClient, DescribeStreamCommand as DescribeTableStream, GetRecordsCommand as GetTableStreamRecords, GetShardIteratorCommand as GetTableStreamIterator } from '@aws-sdk/client-dynamodb-streams';
import { DescribeStreamCommand, GetRecordsCommand, GetShardIteratorCommand, type KinesisClient } from '@aws-sdk/client-kinesis';
import type { DynamoDBRecord, KinesisStreamRecord } from 'aws-lambda';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../emulator/engines';
import { dynamoLambdaRecord, kinesisLambdaRecord } from '../../aws/lambda/event-records';
import { testEndpoints } from './engines';

/** Every record of every shard of a Kinesis stream, from the trim horizon, in shard order. */
export async function readKinesis(kinesis: KinesisClient, streamName: string): Promise<KinesisStreamRecord[]> {
  const { StreamDescription } = await kinesis.send(new DescribeStreamCommand({ StreamName: streamName }));
  const streamArn = StreamDescription?.StreamARN ?? '';
  const records: KinesisStreamRecord[] = [];
  for (const shard of StreamDescription?.Shards ?? []) {
    const { ShardIterator } = await kinesis.send(new GetShardIteratorCommand({ StreamName: streamName, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }));
    const { Records = [] } = await kinesis.send(new GetRecordsCommand({ ShardIterator }));
    records.push(...Records.map((record) => kinesisLambdaRecord(record, shard.ShardId ?? '', streamArn, LOCAL_REGION)));
  }
  return records;
}

/** A DynamoDB Streams client for DynamoDB Local. */
export function tableStreamsClient(): DynamoDBStreamsClient {
  return new DynamoDBStreamsClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: testEndpoints().dynamodb });
}

/** Every record of a table's stream, from the trim horizon. */
export async function readTableStream(streams: DynamoDBStreamsClient, streamArn: string): Promise<DynamoDBRecord[]> {
  const { StreamDescription } = await streams.send(new DescribeTableStream({ StreamArn: streamArn }));
  const records: DynamoDBRecord[] = [];
  for (const shard of StreamDescription?.Shards ?? []) {
    const { ShardIterator } = await streams.send(new GetTableStreamIterator({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }));
    const { Records = [] } = await streams.send(new GetTableStreamRecords({ ShardIterator }));
    records.push(...Records.map((record) => dynamoLambdaRecord(record, streamArn, LOCAL_REGION)));
  }
  return records;
}
