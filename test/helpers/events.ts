/**
 * Builders of realistic Lambda events, so that tests read as scenarios:
 * `sqsEvent(sqsRecord(pageView('home')), sqsRecord('not json'))`.
 */
import { randomUUID } from 'node:crypto';
import type { AttributeValue, DynamoDBRecord, DynamoDBStreamEvent, KinesisStreamEvent, KinesisStreamRecord, SQSEvent, SQSRecord } from 'aws-lambda';
import { marshall } from '@aws-sdk/util-dynamodb';
import { createEnvelope, type Envelope } from '../../lambdas/runtime';
import { invocationContext } from '../../tools/bench/invocation-context';

export const TEST_QUEUE_ARN = 'arn:aws:sqs:us-east-1:000000000000:page-views';
export const TEST_STREAM_ARN = 'arn:aws:kinesis:us-east-1:000000000000:stream/orders';
export const TEST_TABLE_STREAM_ARN = 'arn:aws:dynamodb:us-east-1:000000000000:table/orders/stream/2026-01-01T00:00:00.000';

/** A `page.viewed` envelope; the same (pageId, viewId) always gives the same event id. */
export function pageView(pageId: string, viewId: string = randomUUID(), occurredAt = '2026-11-30T10:00:00.000Z'): Envelope {
  return createEnvelope({ type: 'page.viewed', businessKey: `${pageId}:${viewId}`, source: 'test', payload: { pageId }, occurredAt });
}

/** An `order.status-changed` envelope for one version of an order. */
export function orderStatus(orderId: string, status: string, version: number): Envelope {
  return createEnvelope({ type: 'order.status-changed', businessKey: `${orderId}:${version}`, source: 'test', payload: { orderId, status, version }, occurredAt: '2026-11-30T10:00:00.000Z' });
}

export interface SqsRecordOptions {
  readonly messageId?: string;
  readonly receiveCount?: number;
  readonly queueArn?: string;
  readonly receiptHandle?: string;
  /** SQS FIFO: the record's message group (give a `queueArn` ending in `.fifo` too). */
  readonly messageGroupId?: string;
}

/** An SQS record; an object body is serialised, a string body is sent as it is. */
export function sqsRecord(body: unknown, options: SqsRecordOptions = {}): SQSRecord {
  const messageId = options.messageId ?? randomUUID();
  return {
    messageId,
    receiptHandle: options.receiptHandle ?? `handle-${messageId}`,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    attributes: {
      ApproximateReceiveCount: String(options.receiveCount ?? 1),
      SentTimestamp: '1764496800000',
      SenderId: 'TEST',
      ApproximateFirstReceiveTimestamp: '1764496800000',
      ...(options.messageGroupId !== undefined && { MessageGroupId: options.messageGroupId }),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: options.queueArn ?? TEST_QUEUE_ARN,
    awsRegion: 'us-east-1',
  };
}

export function sqsEvent(...records: SQSRecord[]): SQSEvent {
  return { Records: records };
}

let sequence = 49_000_000_000_000_000_000_000_000_000_000_000_000_000_000n;

/** A Kinesis record; `data` is a string (UTF-8 encoded), raw bytes, or an object (JSON). */
export function kinesisRecord(data: unknown, options: { sequenceNumber?: string; partitionKey?: string } = {}): KinesisStreamRecord {
  sequence += 1n;
  const bytes = data instanceof Uint8Array ? Buffer.from(data) : Buffer.from(typeof data === 'string' ? data : JSON.stringify(data), 'utf8');
  const sequenceNumber = options.sequenceNumber ?? sequence.toString();
  return {
    kinesis: {
      kinesisSchemaVersion: '1.0',
      partitionKey: options.partitionKey ?? 'pk',
      sequenceNumber,
      data: bytes.toString('base64'),
      approximateArrivalTimestamp: 1_764_496_800,
    },
    eventSource: 'aws:kinesis',
    eventVersion: '1.0',
    eventID: `shardId-000000000000:${sequenceNumber}`,
    eventName: 'aws:kinesis:record',
    invokeIdentityArn: 'arn:aws:iam::000000000000:role/test',
    awsRegion: 'us-east-1',
    eventSourceARN: TEST_STREAM_ARN,
  };
}

export function kinesisEvent(...records: KinesisStreamRecord[]): KinesisStreamEvent {
  return { Records: records };
}

export interface DynamoRecordOptions {
  readonly eventName?: 'INSERT' | 'MODIFY' | 'REMOVE';
  readonly newImage?: Record<string, unknown>;
  readonly oldImage?: Record<string, unknown>;
  readonly keys?: Record<string, unknown>;
  readonly sequenceNumber?: string;
  readonly eventID?: string;
}

/** A DynamoDB Streams record with NEW_AND_OLD_IMAGES, its images marshalled from plain values. */
export function dynamoRecord(options: DynamoRecordOptions): DynamoDBRecord {
  const image = (value?: Record<string, unknown>) => (value ? (marshall(value) as Record<string, AttributeValue>) : undefined);
  return dynamoStreamRecord({
    ...options,
    keys: image(options.keys ?? { pk: String((options.newImage ?? options.oldImage)?.pk ?? 'unknown') }),
    newImage: image(options.newImage),
    oldImage: image(options.oldImage),
  });
}

/** The images of a stream record as DynamoDB writes them: attribute values, numbers as text. */
export interface DynamoImages {
  readonly keys?: Record<string, AttributeValue>;
  readonly newImage?: Record<string, AttributeValue>;
  readonly oldImage?: Record<string, AttributeValue>;
}

/**
 * A DynamoDB Streams record as Lambda delivers it (the shape of the example event in the Lambda
 * developer guide, "Using AWS Lambda with Amazon DynamoDB"), its images given as attribute values:
 * `{ price: { N: '0.1234567890123456789012345678901234567' } }` holds text that no JavaScript
 * value need hold, as a table's item can.
 */
export function dynamoStreamRecord(options: Omit<DynamoRecordOptions, keyof DynamoImages> & DynamoImages): DynamoDBRecord {
  sequence += 1n;
  return {
    eventID: options.eventID ?? randomUUID().replace(/-/g, ''),
    eventName: options.eventName ?? 'MODIFY',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'us-east-1',
    dynamodb: {
      ApproximateCreationDateTime: 1_764_496_800,
      Keys: options.keys ?? { pk: options.newImage?.pk ?? options.oldImage?.pk ?? { S: 'unknown' } },
      NewImage: options.newImage,
      OldImage: options.oldImage,
      SequenceNumber: options.sequenceNumber ?? sequence.toString(),
      SizeBytes: 100,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
    eventSourceARN: TEST_TABLE_STREAM_ARN,
  };
}

export function dynamoEvent(...records: DynamoDBRecord[]): DynamoDBStreamEvent {
  return { Records: records };
}

/** A Lambda context with `timeoutMs` left, as the runtime hands a function (the bench's, with the tests' memory and log stream). */
export function lambdaContext(functionName = 'test-function', timeoutMs = 30_000): import('aws-lambda').Context {
  return { ...invocationContext(functionName, timeoutMs), memoryLimitInMB: '256', logStreamName: 'test' };
}

/** The Lambda context of one invocation among several of `functionName` at once, told apart by its request id. */
export function requestContext(functionName: string, awsRequestId: string): import('aws-lambda').Context {
  return { ...lambdaContext(functionName), awsRequestId };
}
