/**
 * A Kinesis reader for reading a range back that also says how far each read is from the shard's
 * tip (`MillisBehindLatest`). On AWS a `GetRecords` page can be empty while records lie further
 * on, so only that value tells "nothing more" from "nothing here".
 */
import { GetRecordsCommand } from '@aws-sdk/client-kinesis';
import { kinesisReader, type KinesisReaderOptions } from '../../aws/streams/kinesis-reader';
import { kinesisLambdaRecord } from '../../aws/lambda/event-records';
import { streamRecordOf, type StreamRead, type StreamReader } from '../../aws/streams/stream-reader';

/** A read, with the service's distance from the shard's tip when it reports one. */
export interface LaggingStreamRead extends StreamRead {
  /** `MillisBehindLatest`; undefined when the service gives none (DynamoDB Streams). */
  readonly millisBehindLatest?: number;
}

/** {@link kinesisReader}, whose reads also carry `MillisBehindLatest`. */
export function kinesisRangeReader(options: KinesisReaderOptions): StreamReader {
  const { kinesis, streamArn, region } = options;
  return {
    ...kinesisReader(options),
    async read(shardId, iterator, limit, signal): Promise<LaggingStreamRead> {
      const { Records = [], NextShardIterator, MillisBehindLatest } = await kinesis.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: limit }), { abortSignal: signal });
      const records = Records.map((record) => streamRecordOf(kinesisLambdaRecord(record, shardId, streamArn, region)));
      return { records, nextIterator: NextShardIterator, millisBehindLatest: MillisBehindLatest };
    },
  };
}
