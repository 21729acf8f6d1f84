/** The on-failure message, field for field as AWS documents it for each stream source. */
import { isStreamOnFailureRecord, onFailureRecord, type OnFailureInput } from '../../../aws/lambda/on-failure-record';

const input: OnFailureInput = {
  kind: 'kinesis',
  condition: 'RetryAttemptsExhausted',
  functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:f',
  streamArn: 'arn:aws:kinesis:us-east-1:000000000000:stream/s',
  shardId: 'shardId-000000000001',
  records: [
    { sequenceNumber: '100', arrivalMs: Date.parse('2026-11-30T10:00:01.250Z') },
    { sequenceNumber: '105', arrivalMs: Date.parse('2026-11-30T10:00:02.500Z') },
  ],
  approximateInvokeCount: 4,
  now: new Date('2026-11-30T10:00:05.000Z'),
  requestId: 'request-1',
};

test('a Kinesis mapping sends KinesisBatchInfo', () => {
  expect(onFailureRecord(input)).toEqual({
    requestContext: { requestId: 'request-1', functionArn: input.functionArn, condition: 'RetryAttemptsExhausted', approximateInvokeCount: 4 },
    responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
    version: '1.0',
    timestamp: '2026-11-30T10:00:05.000Z',
    KinesisBatchInfo: {
      shardId: 'shardId-000000000001',
      startSequenceNumber: '100',
      endSequenceNumber: '105',
      approximateArrivalOfFirstRecord: '2026-11-30T10:00:01.250Z',
      approximateArrivalOfLastRecord: '2026-11-30T10:00:02.500Z',
      batchSize: 2,
      streamArn: input.streamArn,
    },
  });
});

test('a DynamoDB Streams mapping sends DDBStreamBatchInfo, with times in whole seconds', () => {
  const record = onFailureRecord({ ...input, kind: 'dynamodb-stream', condition: 'RecordAgeExceeded' });
  expect(record).not.toHaveProperty('KinesisBatchInfo');
  expect(record).toMatchObject({
    requestContext: { condition: 'RecordAgeExceeded' },
    DDBStreamBatchInfo: { approximateArrivalOfFirstRecord: '2026-11-30T10:00:01Z', approximateArrivalOfLastRecord: '2026-11-30T10:00:02Z', batchSize: 2 },
  });
});

test('the DLQ tooling can recognise a parsed on-failure message', () => {
  expect(isStreamOnFailureRecord(JSON.parse(JSON.stringify(onFailureRecord(input))))).toBe(true);
  expect(isStreamOnFailureRecord({ eventId: 'e-1', payload: {} })).toBe(false);
});
