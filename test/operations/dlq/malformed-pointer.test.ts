/**
 * A body that claims to be a stream mapping's on-failure record (it has `KinesisBatchInfo` or
 * `DDBStreamBatchInfo`) is checked against Lambda's whole layout, as a wrapper is against ours: a
 * partial one is a `malformed` entry that says what is wrong, never a pointer whose range a
 * redrive would read half of.
 */
import type { Message } from '@aws-sdk/client-sqs';
import { checkStreamOnFailureRecord, isStreamOnFailureRecord, onFailureRecord, type KinesisOnFailureRecord } from '../../../aws/lambda/on-failure-record';
import { entryOf, MALFORMED_POINTER_ERROR_TYPE } from '../../../operations/dlq';
import { describeMalformed } from '../../../operations/dlq/entry';

const STREAM_ARN = 'arn:aws:kinesis:us-east-1:000000000000:stream/orders';
const whole = onFailureRecord({
  kind: 'kinesis',
  condition: 'RetryAttemptsExhausted',
  functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:order-projection',
  streamArn: STREAM_ARN,
  shardId: 'shardId-000000000000',
  records: [{ sequenceNumber: '49600000000000000000000000000000000000000000000000000001', arrivalMs: Date.UTC(2026, 11, 1) }],
  approximateInvokeCount: 3,
}) as KinesisOnFailureRecord;

/** `value` without the named fields. */
function without<T extends object>(value: T, ...names: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([name]) => !names.includes(name)));
}

function message(body: unknown): Message {
  return { MessageId: 'm-1', ReceiptHandle: 'rh-1', Body: JSON.stringify(body), Attributes: { SentTimestamp: '1764583200000' } };
}

test('a whole on-failure record, as Lambda sends it, is a pointer', () => {
  const parsed: unknown = JSON.parse(JSON.stringify(whole));
  expect(checkStreamOnFailureRecord(parsed)).toEqual({ record: parsed });
  expect(isStreamOnFailureRecord(parsed)).toBe(true);
  expect(entryOf(message(whole))).toMatchObject({ kind: 'pointer', range: { streamArn: STREAM_ARN } });
});

test('a body that does not claim the layout is not checked against it', () => {
  expect(checkStreamOnFailureRecord({ eventId: 'e-1' })).toBeUndefined();
  expect(checkStreamOnFailureRecord('text')).toBeUndefined();
  expect(entryOf(message({ eventId: 'e-1' })).kind).toBe('bare');
});

test('the fields the old check let through (the range\'s end, the stream, the batch size, the times) are each named', () => {
  const info = without(whole.KinesisBatchInfo, 'endSequenceNumber', 'streamArn');
  const partial = { ...whole, KinesisBatchInfo: { ...info, batchSize: 0, approximateArrivalOfLastRecord: 'yesterday' } };
  expect(checkStreamOnFailureRecord(partial)?.problems).toEqual([
    'KinesisBatchInfo.endSequenceNumber is missing',
    'KinesisBatchInfo.approximateArrivalOfLastRecord is "yesterday", expected an ISO-8601 time',
    'KinesisBatchInfo.batchSize is 0, expected a whole number >= 1',
    'KinesisBatchInfo.streamArn is missing',
  ]);
});

test('the envelope is checked too, and a sequence number must be digits', () => {
  const partial = { ...without(whole, 'requestContext'), version: '2.0', KinesisBatchInfo: { ...whole.KinesisBatchInfo, startSequenceNumber: '1; DROP' } };
  expect(checkStreamOnFailureRecord(partial)?.problems).toEqual(['version is "2.0", expected "1.0"', 'requestContext is missing', 'KinesisBatchInfo.startSequenceNumber is "1; DROP", expected a sequence number (digits)']);
  expect(checkStreamOnFailureRecord({ ...whole, DDBStreamBatchInfo: whole.KinesisBatchInfo })?.problems).toEqual(['KinesisBatchInfo and DDBStreamBatchInfo are both present, expected one']);
});

test('a partial on-failure record is a malformed entry of its own error type, which a redrive leaves', () => {
  const entry = entryOf(message({ ...whole, KinesisBatchInfo: without(whole.KinesisBatchInfo, 'streamArn') }));
  expect(entry).toMatchObject({ kind: 'malformed', claims: 'pointer', errorType: MALFORMED_POINTER_ERROR_TYPE, problems: ['KinesisBatchInfo.streamArn is missing'] });
  expect(describeMalformed(['KinesisBatchInfo.streamArn is missing'], 'pointer')).toBe("claims to be a stream mapping's on-failure record but is not a valid one (KinesisBatchInfo.streamArn is missing): a redrive leaves it in the DLQ");
});
