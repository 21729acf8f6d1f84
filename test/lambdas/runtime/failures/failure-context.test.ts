/**
 * The DLQ wrapper (`effectively-once/failure`, version 1): everything triage needs travels with
 * the failed record, so that nobody starts by reproducing the failure.
 */
import { classifyError } from '../../../../lambdas/runtime/core/classify';
import {
  EnvelopeProblem,
  FailureKind,
  InvalidEnvelopeError,
  PermanentError,
  RetriesExhaustedError,
  SchemaViolationError,
  UnknownEventTypeError,
} from '../../../../lambdas/runtime/core/errors';
import { describeFailure, type FailureDescription } from '../../../../lambdas/runtime/failures/failure-context';
import { DlqReason, FAILURE_FORMAT, FAILURE_FORMAT_VERSION, isFailureEnvelope } from '../../../../aws/dlq-format';
import { fromDynamoDbRecord, fromKinesisRecord, fromSqsRecord, SourceKind } from '../../../../lambdas/runtime/decoding/records';
import { dynamoRecord, kinesisRecord, pageView, sqsRecord, TEST_QUEUE_ARN, TEST_STREAM_ARN, TEST_TABLE_STREAM_ARN } from '../../../helpers/events';

const NOW = new Date('2026-11-30T12:34:56.789Z');
/** ApproximateFirstReceiveTimestamp of the records sqsRecord builds. */
const FIRST_RECEIVED = new Date(1_764_496_800_000).toISOString();

function describeSqs(overrides: Partial<FailureDescription> & { body?: unknown; receiveCount?: number } = {}) {
  const { body = pageView('home', 'v-1'), receiveCount = 1, ...rest } = overrides;
  const record = fromSqsRecord(sqsRecord(body, { messageId: 'msg-1', receiveCount }));
  return describeFailure({ consumer: 'page-view-counter', reason: DlqReason.PERMANENT, error: new PermanentError('bad'), record, now: NOW, ...rest });
}

describe('describeFailure', () => {
  test('builds the documented wrapper for a poison SQS message', () => {
    const body = '{"eventId": 42}';
    const failure = describeSqs({
      body,
      error: new InvalidEnvelopeError(EnvelopeProblem.WRONG_TYPE, 'eventId must be a string (got a number)', { field: 'eventId' }),
    });

    expect(failure).toMatchObject({
      format: FAILURE_FORMAT,
      version: FAILURE_FORMAT_VERSION,
      consumer: 'page-view-counter',
      reason: 'permanent',
      error: {
        name: 'InvalidEnvelopeError',
        message: 'eventId must be a string (got a number)',
        kind: FailureKind.PERMANENT,
        details: { problem: 'wrong-type', field: 'eventId' },
      },
      attempts: 1,
      firstFailureAt: NOW.toISOString(),
      lastFailureAt: NOW.toISOString(),
      source: { kind: SourceKind.SQS, arn: TEST_QUEUE_ARN, itemIdentifier: 'msg-1' },
      original: { body, encoding: 'utf8' },
    });
    expect(failure.eventId).toBeUndefined();
    expect(FAILURE_FORMAT).toBe('effectively-once/failure');
    expect(FAILURE_FORMAT_VERSION).toBe(1);
  });

  test('keeps the original SQS body byte for byte, with its attributes and message attributes', () => {
    const body = '  {"weird":   "spacing", "ü": "\\u00fc"}\n';
    const raw = sqsRecord(body, { receiveCount: 2 });
    raw.messageAttributes = { traceparent: { dataType: 'String', stringValue: '00-abc-def-01' } };
    const failure = describeFailure({ consumer: 'c', reason: DlqReason.PERMANENT, error: new Error('x'), record: fromSqsRecord(raw), now: NOW });
    expect(failure.original.body).toBe(body);
    expect(failure.original.attributes).toMatchObject({ ApproximateReceiveCount: '2', SentTimestamp: '1764496800000' });
    expect(failure.original.messageAttributes).toEqual(raw.messageAttributes);
  });

  test('names the event when the body yielded one', () => {
    const envelope = pageView('home', 'v-1');
    const failure = describeSqs({ eventId: envelope.eventId, eventType: envelope.type, error: new UnknownEventTypeError('page.viewed', ['order.created']) });
    expect(failure.eventId).toBe(envelope.eventId);
    expect(failure.eventType).toBe('page.viewed');
  });

  test('a schema violation carries the event type and every issue', () => {
    const failure = describeSqs({ error: new SchemaViolationError('page.viewed', ['pageId: Required', 'page.id: Expected string']) });
    expect(failure.error.details).toEqual({ eventType: 'page.viewed', issues: ['pageId: Required', 'page.id: Expected string'] });
  });

  test('an unknown event type carries the type and the types this consumer knows', () => {
    const failure = describeSqs({ error: new UnknownEventTypeError('page.clicked', ['page.viewed', 'page.left']) });
    expect(failure.error.details).toEqual({ eventType: 'page.clicked', knownTypes: ['page.viewed', 'page.left'] });
    expect(failure.error.message).toContain('page.viewed, page.left');
  });

  test('a wrapped error names its cause', () => {
    const cause = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    const failure = describeSqs({ reason: DlqReason.LAST_ATTEMPT, receiveCount: 5, error: new RetriesExhaustedError(3, cause) });
    expect(failure.error).toMatchObject({ name: 'RetriesExhaustedError', kind: FailureKind.TRANSIENT, details: { cause: 'ThrottlingException: Rate exceeded' } });
    expect(failure.reason).toBe('last-attempt');
  });

  test('a plain error without a cause has no details', () => {
    expect(describeSqs({ error: new TypeError('x is undefined') }).error.details).toBeUndefined();
  });

  test('the kind is the classifier\'s', () => {
    const errors = [new PermanentError('p'), Object.assign(new Error('t'), { name: 'ThrottlingException' }), new Error('plain')];
    for (const error of errors) expect(describeSqs({ error }).error.kind).toBe(classifyError(error));
  });

  test('carries a stack excerpt of at most 12 lines that starts with the error and shows where it was thrown', () => {
    function deepInHandlerCode(depth: number): Error {
      return depth === 0 ? new Error('failed deep inside') : deepInHandlerCode(depth - 1);
    }
    const error = deepInHandlerCode(30);
    const { stack } = describeSqs({ error }).error;
    expect(stack?.split('\n').length).toBe(12);
    expect(stack?.split('\n')[0]).toBe('Error: failed deep inside');
    expect(stack).toContain('deepInHandlerCode');
  });

  test('counts attempts from the receive count', () => {
    expect(describeSqs({ receiveCount: 4 }).attempts).toBe(4);
  });

  test('on a first delivery, the first and last failure are now', () => {
    const failure = describeSqs({ receiveCount: 1 });
    expect(failure.firstFailureAt).toBe(NOW.toISOString());
    expect(failure.lastFailureAt).toBe(NOW.toISOString());
  });

  test('on a redelivery, the first failure dates from the first receive and the last is now', () => {
    const failure = describeSqs({ receiveCount: 3 });
    expect(failure.firstFailureAt).toBe(FIRST_RECEIVED);
    expect(failure.lastFailureAt).toBe(NOW.toISOString());
    expect(Date.parse(failure.firstFailureAt)).toBeLessThanOrEqual(Date.parse(failure.lastFailureAt));
  });

  test('a Kinesis record keeps its data base64-encoded, with its partition key, and names its sequence number', () => {
    const raw = kinesisRecord(Buffer.from([0xff, 0xfe, 0x00]), { sequenceNumber: '4960001', partitionKey: 'order-42' });
    const failure = describeFailure({ consumer: 'order-projection', reason: DlqReason.PERMANENT, error: new Error('x'), record: fromKinesisRecord(raw), now: NOW });
    expect(failure.source).toEqual({ kind: SourceKind.KINESIS, arn: TEST_STREAM_ARN, itemIdentifier: '4960001' });
    expect(failure.original).toMatchObject({ encoding: 'base64', body: raw.kinesis.data, attributes: { partitionKey: 'order-42' } });
    expect(Buffer.from(failure.original.body, 'base64')).toEqual(Buffer.from([0xff, 0xfe, 0x00]));
  });

  test('a DynamoDB stream record keeps the stream record as JSON and names its sequence number', () => {
    const raw = dynamoRecord({ eventName: 'MODIFY', newImage: { pk: 'order#1', status: 'SHIPPED' }, sequenceNumber: '111' });
    const failure = describeFailure({ consumer: 'shipment-notifier', reason: DlqReason.PERMANENT, error: new Error('x'), record: fromDynamoDbRecord(raw), now: NOW });
    expect(failure.source).toEqual({ kind: SourceKind.DYNAMODB_STREAM, arn: TEST_TABLE_STREAM_ARN, itemIdentifier: '111' });
    expect(JSON.parse(failure.original.body)).toEqual(raw.dynamodb);
    expect(failure.original.attributes).toEqual({ eventName: 'MODIFY', eventID: raw.eventID });
  });

  test('a thrown string becomes the message', () => {
    const failure = describeSqs({ error: 'connection lost' });
    expect(failure.error).toMatchObject({ name: 'Error', message: 'connection lost', kind: FailureKind.TRANSIENT });
  });

  test('a thrown non-Error object keeps its name and message"]', () => {
    const failure = describeSqs({ error: { name: 'ThrottlingException', message: 'Rate exceeded' } });
    expect(failure.error.message).toContain('Rate exceeded');
    expect(failure.error.name).toBe('ThrottlingException');
  });

  test('survives a JSON round trip unchanged, as it does through SQS', () => {
    const failure = describeSqs({ error: new SchemaViolationError('page.viewed', ['pageId: Required']) });
    expect(JSON.parse(JSON.stringify(failure))).toEqual(failure);
    expect(isFailureEnvelope(JSON.parse(JSON.stringify(failure)))).toBe(true);
  });
});

describe('isFailureEnvelope', () => {
  test('recognises our wrapper', () => {
    expect(isFailureEnvelope(describeSqs())).toBe(true);
  });

  test.each<[string, unknown]>([
    ['null', null],
    ['undefined', undefined],
    ['a string', 'effectively-once/failure'],
    ['a number', 1],
    ['an array', [{ format: FAILURE_FORMAT }]],
    ['an envelope that SQS moved to the DLQ itself', pageView('home', 'v-1')],
    ['Lambda\'s on-failure metadata for a stream', { requestContext: { condition: 'RetryAttemptsExhausted' }, KinesisBatchInfo: { shardId: 'shardId-000000000000' } }],
    ['another format', { format: 'effectively-once/failure-attributes', version: 1 }],
  ])('rejects %s', (_label, value) => {
    expect(isFailureEnvelope(value)).toBe(false);
  });
});
