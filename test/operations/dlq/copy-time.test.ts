/**
 * When each kind of DLQ entry says its event's earliest copy entered the source (copy-time.ts),
 * and the copy a redrive sends to a queue carrying that time (sqs-republish.ts `withFirstSent`).
 * Pure: built from the records the runtime and Lambda write.
 */
import type { Message } from '@aws-sdk/client-sqs';
import { DlqReason } from '../../../aws/dlq-format';
import { FIRST_SENT_ATTRIBUTE } from '../../../aws/first-sent';
import { onFailureRecord, streamBatchInfoOf } from '../../../aws/lambda/on-failure-record';
import { SQS_LIMITS } from '../../../aws/limits';
import { describeFailure } from '../../../lambdas/runtime/failures/failure-context';
import { fromKinesisRecord, fromSqsRecord } from '../../../lambdas/runtime/decoding/records';
import { copyTimeOfAttributes, copyTimeOfBare, copyTimeOfRange, copyTimeOfWrapper } from '../../../operations/dlq/copy-time';
import { withFirstSent } from '../../../operations/dlq/sqs-republish';
import { kinesisRecord, sqsRecord } from '../../helpers/events';

const SENT = 1_764_496_800_000;
const FAILED_AT = new Date('2026-12-10T08:00:00.000Z');
const FIRST = '2025-11-01T08:00:00.000Z';
const carrying = (at: string) => ({ [FIRST_SENT_ATTRIBUTE]: { dataType: 'String', stringValue: at, stringListValues: [], binaryListValues: [] } });

function wrapperOf(record: ReturnType<typeof fromSqsRecord>) {
  return describeFailure({ consumer: 'c', reason: DlqReason.PERMANENT, error: new Error('e'), record, now: FAILED_AT });
}

function dlqMessage(attributes: Record<string, string>, messageAttributes: Message['MessageAttributes'] = {}): Message {
  return { MessageId: 'm-1', Body: '{}', Attributes: attributes, MessageAttributes: messageAttributes };
}

describe('the time a DLQ entry counts its dedup window from', () => {
  test('a wrapper of an SQS record: the record\'s SentTimestamp', () => {
    expect(copyTimeOfWrapper(wrapperOf(fromSqsRecord(sqsRecord('x'))))).toEqual({ at: SENT, basis: 'the event\'s first copy was sent', countBack: false });
  });

  test('a wrapper of a redriven copy: the first-sent time the copy carried, not its own', () => {
    const record = fromSqsRecord({ ...sqsRecord('x'), messageAttributes: carrying(FIRST) });
    expect(copyTimeOfWrapper(wrapperOf(record)).at).toBe(Date.parse(FIRST));
  });

  test('a wrapper of a Kinesis record: its first failure, to be counted back by the stream\'s retention', () => {
    expect(copyTimeOfWrapper(wrapperOf(fromKinesisRecord(kinesisRecord('x'))))).toEqual({ at: FAILED_AT.getTime(), basis: 'it first failed', countBack: true });
  });

  test('the attribute fallback: its eo-first-sent-at, else its failure, counted back', () => {
    expect(copyTimeOfAttributes({ 'eo-first-sent-at': FIRST, 'eo-failed-at': FAILED_AT.toISOString() }, dlqMessage({}))).toMatchObject({ at: Date.parse(FIRST), countBack: false });
    expect(copyTimeOfAttributes({ 'eo-failed-at': FAILED_AT.toISOString() }, dlqMessage({}))).toMatchObject({ at: FAILED_AT.getTime(), countBack: true });
  });

  test.each<[string, boolean, boolean]>([
    ['a standard queue keeps the original SentTimestamp when SQS moves a message', false, false],
    ['a FIFO queue resets it: counted back', true, true],
  ])('a message SQS moved: %s', (_, fifo, countBack) => {
    expect(copyTimeOfBare(dlqMessage({ SentTimestamp: String(SENT) }), fifo)).toMatchObject({ at: SENT, countBack });
  });

  test('a message SQS moved that a redrive had sent: the time it carries, FIFO or not', () => {
    const moved = dlqMessage({ SentTimestamp: String(SENT) }, { [FIRST_SENT_ATTRIBUTE]: { DataType: 'String', StringValue: FIRST } });
    expect(copyTimeOfBare(moved, true)).toMatchObject({ at: Date.parse(FIRST), countBack: false });
  });

  test('a pointer: the arrival of its range\'s first record, or an earlier one read back', () => {
    const range = streamBatchInfoOf(onFailureRecord({ kind: 'kinesis', condition: 'RetryAttemptsExhausted', functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:f', streamArn: 'arn:aws:kinesis:us-east-1:000000000000:stream/s', shardId: 'shardId-000000000000', records: [{ sequenceNumber: '1', arrivalMs: SENT }, { sequenceNumber: '2', arrivalMs: SENT + 5 }], approximateInvokeCount: 3 }));
    expect(copyTimeOfRange(range)).toMatchObject({ at: SENT, countBack: false });
    expect(copyTimeOfRange(range, [SENT + 5, SENT - 7])).toMatchObject({ at: SENT - 7 });
  });
});

describe('the copy a redrive sends to a queue carries the first-sent time', () => {
  const body = { MessageBody: '{"eventId":"e-1"}', MessageAttributes: { eventId: { DataType: 'String', StringValue: 'e-1' } } };

  test('beside the original attributes, replacing a time it carried before', () => {
    const copy = withFirstSent({ ...body, MessageAttributes: { ...body.MessageAttributes, [FIRST_SENT_ATTRIBUTE]: { DataType: 'String', StringValue: '2026-01-01T00:00:00.000Z' } } }, Date.parse(FIRST), SQS_LIMITS.maxMessageBytes);
    expect(copy).toEqual({ message: { MessageBody: body.MessageBody, MessageAttributes: { eventId: body.MessageAttributes.eventId, [FIRST_SENT_ATTRIBUTE]: { DataType: 'String', StringValue: FIRST } } } });
  });

  test('not when the copy has SQS\'s 10 attributes already: it goes as it was, with a note', () => {
    const ten = Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`a${index}`, { DataType: 'String', StringValue: 'v' }]));
    const copy = withFirstSent({ MessageBody: 'x', MessageAttributes: ten }, Date.parse(FIRST), SQS_LIMITS.maxMessageBytes);
    expect(copy.message.MessageAttributes).toBe(ten);
    expect(copy.note).toMatch(/does not carry when the event was first sent \(it has SQS's 10 message attributes already\)/);
  });

  test('not when the attribute would take the copy past the queue\'s maximum message size', () => {
    const copy = withFirstSent({ MessageBody: 'x'.repeat(1_000) }, Date.parse(FIRST), 1_030);
    expect(copy.message.MessageAttributes).toBeUndefined();
    expect(copy.note).toMatch(/past the queue's 1030 bytes/);
  });
});
