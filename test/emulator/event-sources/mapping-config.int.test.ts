/** Settings that Lambda's API would refuse are refused, naming the setting and the value. */
import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsMapping, type SqsMappingConfig } from '../../../emulator/event-sources/sqs-mapping';
import { StreamMapping } from '../../../emulator/event-sources/stream-mapping';
import type { StreamMappingConfig } from '../../../emulator/event-sources/stream-mapping-config';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { returned } from './support';

const invoke = async () => returned();
const sqs = new SQSClient({ region: 'us-east-1' });
const kinesis = new KinesisClient({ region: 'us-east-1' });
afterAll(() => {
  sqs.destroy();
  kinesis.destroy();
});

const sqsConfig: SqsMappingConfig = {
  queueUrl: 'http://127.0.0.1:1/000000000000/q',
  queueArn: 'arn:aws:sqs:us-east-1:000000000000:q',
  region: 'us-east-1',
  batchSize: 10,
  maximumBatchingWindowSeconds: 0,
  reportBatchItemFailures: true,
  visibilityTimeoutSeconds: 30,
  invoke,
  sqs,
};

const streamConfig: StreamMappingConfig = {
  kind: 'kinesis',
  streamArn: 'arn:aws:kinesis:us-east-1:000000000000:stream/s',
  region: 'us-east-1',
  functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:f',
  batchSize: 100,
  bisectBatchOnFunctionError: true,
  maximumRetryAttempts: 3,
  maximumRecordAgeSeconds: 3600,
  reportBatchItemFailures: true,
  startingPosition: 'TRIM_HORIZON',
  invoke,
  clients: { kinesis, sqs },
};

test.each([
  { change: { batchSize: 0 }, message: 'batchSize must be 1..10000 (given 0)' },
  { change: { batchSize: 11 }, message: 'batchSize must be 1..10 without a batching window (given 11)' },
  { change: { maximumBatchingWindowSeconds: 301 }, message: 'maximumBatchingWindowSeconds must be 0..300 (given 301)' },
  { change: { concurrency: 0 }, message: 'concurrency must be 1..1000 (given 0)' },
  // A hold shorter than the queue's own timeout would make a held batch reappear sooner, not later.
  { change: { keepHeldInvisible: true, holdSeconds: 29 }, message: 'holdSeconds must be 30..43200 (given 29)' },
  { change: { keepHeldInvisible: true, holdSeconds: 43_201 }, message: 'holdSeconds must be 30..43200 (given 43201)' },
])('an SQS mapping refuses it: $message', ({ change, message }) => {
  expect(() => new SqsMapping({ ...sqsConfig, ...change })).toThrow(message);
});

test.each([
  { change: { batchSize: 10_001 }, message: 'batchSize must be 1..10000 (given 10001)' },
  { change: { maximumRetryAttempts: -2 }, message: 'maximumRetryAttempts must be -1 or 0..10000 (given -2)' },
  { change: { maximumRecordAgeSeconds: 604_801 }, message: 'maximumRecordAgeSeconds must be -1 or 0..604800 (given 604801)' },
  { change: { onFailureQueueUrl: 'http://q', clients: { kinesis } }, message: 'clients.sqs is required with an onFailureQueueUrl' },
  {
    change: { onFailureQueueUrl: 'http://q', onFailureArchive: { mappingUuid: 'u', write: async () => undefined } },
    message: 'a mapping has one on-failure destination: an onFailureQueueUrl or an onFailureArchive, not both',
  },
  { change: { kind: 'dynamodb-stream' as const }, message: 'clients.dynamodbStreams is required' },
])('a stream mapping refuses it: $message', ({ change, message }) => {
  expect(() => new StreamMapping({ ...streamConfig, ...change })).toThrow(message);
});

test.each([-1, 0, 10_000])('a stream mapping accepts %d retry attempts', (maximumRetryAttempts) => {
  expect(() => new StreamMapping({ ...streamConfig, maximumRetryAttempts })).not.toThrow();
});
