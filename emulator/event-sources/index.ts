export { SqsMapping, SQS_MAPPING_DEFAULTS, validateSqsMappingConfig } from './sqs-mapping';
export { holdSecondsFor } from './held-batch';
export { StreamMapping } from './stream-mapping';
export { STREAM_MAPPING_DEFAULTS, validateStreamMappingConfig } from './stream-mapping-config';
export { kinesisReader, streamNameOf, KINESIS_MAX_RECORDS_PER_READ } from '../../aws/streams/kinesis-reader';
export { dynamoDbStreamReader, DYNAMODB_STREAM_MAX_RECORDS_PER_READ } from '../../aws/streams/dynamodb-stream-reader';
export { onFailureRecord, streamBatchInfoOf, isStreamOnFailureRecord } from '../../aws/lambda/on-failure-record';
export { invocationOutcome } from './invocation-outcome';
export { untilQuiet } from './drain';
export { compareSequenceNumbers } from '../../aws/streams/stream-reader';
export { dynamoLambdaRecord, kinesisLambdaRecord, sqsLambdaRecord } from '../../aws/lambda/event-records';
export { MappingConfigError, MappingError } from './errors';
export type { SqsMappingConfig, SqsMappingStats } from './sqs-mapping';
export type { OnFailureArchive, StreamMappingClients, StreamMappingConfig, StreamMappingStats } from './stream-mapping-config';
export type { KinesisReaderOptions } from '../../aws/streams/kinesis-reader';
export type { DynamoDbStreamReaderOptions } from '../../aws/streams/dynamodb-stream-reader';
export type {
  DynamoDbStreamOnFailureRecord,
  KinesisOnFailureRecord,
  OnFailureCondition,
  OnFailureInput,
  StreamBatchInfo,
  StreamOnFailureRecord,
} from '../../aws/lambda/on-failure-record';
export type { InvocationOutcome } from './invocation-outcome';
export type { Quiescent, UntilQuietOptions } from './drain';
export type { ShardDescription, StreamKind, StreamPosition, StreamRead, StreamReader, StreamRecord } from '../../aws/streams/stream-reader';
export type { MappingLog } from './polling';
