/**
 * Which source a batch came from (lambdas/runtime/decoding/event-source.ts): each record's
 * `eventSource`, as Lambda's example events carry it, and the errors for batches the consumer
 * must not decode.
 */
import { ConfigurationError } from '../../../../lambdas/runtime/core/errors';
import { batchRecords, batchSourceKind, requireSourceKind } from '../../../../lambdas/runtime/decoding/event-source';
import { SourceKind } from '../../../../lambdas/runtime/decoding/records';
import { dynamoEvent, dynamoRecord, kinesisEvent, kinesisRecord, pageView, sqsEvent, sqsRecord } from '../../../helpers/events';

test("each source's records name it", () => {
  expect(batchSourceKind(sqsEvent(sqsRecord(pageView('a'))).Records)).toBe(SourceKind.SQS);
  expect(batchSourceKind(kinesisEvent(kinesisRecord(pageView('a'))).Records)).toBe(SourceKind.KINESIS);
  expect(batchSourceKind(dynamoEvent(dynamoRecord({ newImage: { pk: 'p' } })).Records)).toBe(SourceKind.DYNAMODB_STREAM);
});

test('an empty batch, or records that name no source, name none', () => {
  expect(batchSourceKind([])).toBeUndefined();
  expect(batchSourceKind([{ body: '{}' }])).toBeUndefined();
  expect(batchRecords({})).toEqual([]);
  expect(batchRecords(null)).toEqual([]);
  expect(() => batchRecords({ Records: 'not a list' })).toThrow(new TypeError("the event's Records is string, not a list: the event is no batch of an event source mapping"));
});

test('a source the runtime does not consume, or two sources in one batch, are configuration errors', () => {
  expect(() => batchSourceKind([{ eventSource: 'aws:s3' }])).toThrow(new ConfigurationError('a record\'s eventSource is "aws:s3": the runtime consumes aws:sqs, aws:kinesis, aws:dynamodb batches'));
  expect(() => batchSourceKind([{ eventSource: 'aws:sqs' }, { eventSource: 'aws:kinesis' }])).toThrow(/one batch holds records of two sources \(sqs and kinesis\)/);
});

test('a consumer refuses a batch of another source and names the fix; its own, or one that names none, passes', () => {
  expect(() => requireSourceKind(SourceKind.KINESIS, dynamoEvent(dynamoRecord({ newImage: { pk: 'p' } })).Records)).toThrow(/decodes kinesis records, but the batch came from dynamodb-stream: set the handler's source to SourceKind.DYNAMODB_STREAM/);
  expect(() => requireSourceKind(SourceKind.KINESIS, kinesisEvent(kinesisRecord(pageView('a'))).Records)).not.toThrow();
  expect(() => requireSourceKind(SourceKind.SQS, [{ body: '{}' }])).not.toThrow();
});
