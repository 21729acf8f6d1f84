/**
 * Normalising SQS, Kinesis and DynamoDB Streams records: the identifier Lambda expects back, the
 * receive count, and the original kept byte for byte for redrive.
 */
import type { SQSRecord } from 'aws-lambda';
import { EnvelopeProblem, InvalidEnvelopeError } from '../../../../lambdas/runtime/core/errors';
import { bodyText, fromDynamoDbRecord, fromKinesisRecord, fromSqsRecord, SourceKind } from '../../../../lambdas/runtime/decoding/records';
import { dynamoRecord, kinesisRecord, pageView, sqsRecord, TEST_QUEUE_ARN, TEST_STREAM_ARN, TEST_TABLE_STREAM_ARN } from '../../../helpers/events';

describe('fromSqsRecord', () => {
  test('identifies the record by messageId and keeps what redrive and visibility need', () => {
    const raw = sqsRecord(pageView('home', 'v-1'), { messageId: 'm-1', receiveCount: 3, receiptHandle: 'rh-1' });
    const record = fromSqsRecord(raw);
    expect(record).toMatchObject({
      kind: SourceKind.SQS,
      itemIdentifier: 'm-1',
      sourceArn: TEST_QUEUE_ARN,
      receiveCount: 3,
      receiptHandle: 'rh-1',
      firstSeenAt: new Date(1_764_496_800_000).toISOString(),
      original: { body: raw.body, encoding: 'utf8', attributes: raw.attributes, messageAttributes: raw.messageAttributes },
    });
    expect(record.raw).toBe(raw);
  });

  test.each([
    ['missing', undefined],
    ['not a number', 'many'],
    ['zero', '0'],
  ])('a receive count that is %s counts as 1', (_label, value) => {
    const raw = sqsRecord('{}');
    const attributes = { ...raw.attributes, ApproximateReceiveCount: value } as SQSRecord['attributes'];
    expect(fromSqsRecord({ ...raw, attributes }).receiveCount).toBe(1);
  });

  test('without a first-receive timestamp there is no firstSeenAt', () => {
    const raw = sqsRecord('{}');
    const attributes = { ...raw.attributes, ApproximateFirstReceiveTimestamp: '' };
    expect(fromSqsRecord({ ...raw, attributes }).firstSeenAt).toBeUndefined();
  });

  test('the original attributes are a copy: later changes to the raw record do not leak into the DLQ context', () => {
    const raw = sqsRecord('{}', { receiveCount: 2 });
    const record = fromSqsRecord(raw);
    raw.attributes.ApproximateReceiveCount = '9';
    expect(record.original.attributes?.ApproximateReceiveCount).toBe('2');
  });
});

describe('fromKinesisRecord', () => {
  test('identifies the record by sequence number and keeps the data base64-encoded', () => {
    const raw = kinesisRecord(pageView('home', 'v-1'), { sequenceNumber: '4959', partitionKey: 'home' });
    const record = fromKinesisRecord(raw);
    expect(record).toMatchObject({
      kind: SourceKind.KINESIS,
      itemIdentifier: '4959',
      sourceArn: TEST_STREAM_ARN,
      receiveCount: 1,
      firstSeenAt: new Date(1_764_496_800_000).toISOString(),
      original: { body: raw.kinesis.data, encoding: 'base64', attributes: { partitionKey: 'home', eventID: raw.eventID } },
    });
    expect(record.receiptHandle).toBeUndefined();
  });
});

describe('fromDynamoDbRecord', () => {
  test('identifies the record by dynamodb.SequenceNumber and keeps the stream record as JSON', () => {
    const raw = dynamoRecord({ eventName: 'INSERT', newImage: { pk: 'order#1' }, sequenceNumber: '777', eventID: 'e-1' });
    const record = fromDynamoDbRecord(raw);
    expect(record).toMatchObject({
      kind: SourceKind.DYNAMODB_STREAM,
      itemIdentifier: '777',
      sourceArn: TEST_TABLE_STREAM_ARN,
      receiveCount: 1,
      original: { encoding: 'utf8', attributes: { eventName: 'INSERT', eventID: 'e-1' } },
    });
    expect(JSON.parse(record.original.body)).toEqual(raw.dynamodb);
  });

  test('a record without a sequence number cannot be reported back, so it is refused', () => {
    const raw = dynamoRecord({ newImage: { pk: 'x' } });
    delete raw.dynamodb?.SequenceNumber;
    expect(() => fromDynamoDbRecord(raw)).toThrow(/SequenceNumber/);
  });
});

describe('bodyText', () => {
  test('an SQS body is used as it is', () => {
    expect(bodyText(fromSqsRecord(sqsRecord('  raw body  ')))).toBe('  raw body  ');
  });

  test('Kinesis data is decoded from base64 as strict UTF-8', () => {
    expect(bodyText(fromKinesisRecord(kinesisRecord('héllo 東京')))).toBe('héllo 東京');
    let caught: unknown;
    try {
      bodyText(fromKinesisRecord(kinesisRecord(Buffer.from([0xc3, 0x28]))));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidEnvelopeError);
    expect((caught as InvalidEnvelopeError).problem).toBe(EnvelopeProblem.NOT_UTF8);
  });
});
