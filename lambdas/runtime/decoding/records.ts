import type { DynamoDBRecord, KinesisStreamRecord, SQSRecord } from 'aws-lambda';
import { decodeUtf8 } from '../events/envelope';

import { SourceKind, type OriginalRecord } from '../../../aws/dlq-format';

export { SourceKind } from '../../../aws/dlq-format';
export type { OriginalRecord } from '../../../aws/dlq-format';

/** One record of a batch, normalised across the three sources. */
export interface SourceRecord {
  readonly kind: SourceKind;
  /** What goes in `batchItemFailures`: messageId, kinesis.sequenceNumber or dynamodb.SequenceNumber. */
  readonly itemIdentifier: string;
  readonly sourceArn: string;
  /** SQS `ApproximateReceiveCount`; 1 for streams, where Lambda does not count. */
  readonly receiveCount: number;
  /** When the source first handed this record out (SQS), or when it entered the stream. */
  readonly firstSeenAt?: string;
  readonly receiptHandle?: string;
  /**
   * SQS: the message group. On a FIFO queue the queue keeps order within it; on a standard queue
   * it names a fair queue's tenant and orders nothing (order-groups.ts decides by the queue).
   */
  readonly messageGroupId?: string;
  readonly original: OriginalRecord;
  readonly raw: SQSRecord | KinesisStreamRecord | DynamoDBRecord;
}

/** Normalises an SQS record. */
export function fromSqsRecord(record: SQSRecord): SourceRecord {
  const firstReceived = Number(record.attributes?.ApproximateFirstReceiveTimestamp);
  return {
    kind: SourceKind.SQS,
    itemIdentifier: record.messageId,
    sourceArn: record.eventSourceARN,
    receiveCount: Math.max(1, Number(record.attributes?.ApproximateReceiveCount) || 1),
    firstSeenAt: Number.isFinite(firstReceived) && firstReceived > 0 ? new Date(firstReceived).toISOString() : undefined,
    receiptHandle: record.receiptHandle,
    messageGroupId: record.attributes?.MessageGroupId || undefined,
    original: {
      body: record.body,
      encoding: 'utf8',
      attributes: { ...record.attributes } as Record<string, string>,
      messageAttributes: record.messageAttributes,
    },
    raw: record,
  };
}

/** Normalises a Kinesis record; its data stays base64 until the body is read. */
export function fromKinesisRecord(record: KinesisStreamRecord): SourceRecord {
  const arrived = record.kinesis.approximateArrivalTimestamp;
  return {
    kind: SourceKind.KINESIS,
    itemIdentifier: record.kinesis.sequenceNumber,
    sourceArn: record.eventSourceARN,
    receiveCount: 1,
    firstSeenAt: arrived ? new Date(arrived * 1000).toISOString() : undefined,
    original: {
      body: record.kinesis.data,
      encoding: 'base64',
      attributes: { partitionKey: record.kinesis.partitionKey, eventID: record.eventID },
    },
    raw: record,
  };
}

/** Normalises a DynamoDB Streams record. */
export function fromDynamoDbRecord(record: DynamoDBRecord): SourceRecord {
  const sequenceNumber = record.dynamodb?.SequenceNumber;
  if (!sequenceNumber) throw new TypeError('DynamoDB stream record has no dynamodb.SequenceNumber');
  const created = record.dynamodb?.ApproximateCreationDateTime;
  return {
    kind: SourceKind.DYNAMODB_STREAM,
    itemIdentifier: sequenceNumber,
    sourceArn: record.eventSourceARN ?? '',
    receiveCount: 1,
    firstSeenAt: created ? new Date(created * 1000).toISOString() : undefined,
    original: {
      body: JSON.stringify(record.dynamodb),
      encoding: 'utf8',
      attributes: { eventName: record.eventName ?? '', eventID: record.eventID ?? '' },
    },
    raw: record,
  };
}

/** The record's payload as text: SQS bodies as they are, Kinesis data decoded as strict UTF-8. */
export function bodyText(record: SourceRecord): string {
  if (record.original.encoding === 'utf8') return record.original.body;
  return decodeUtf8(Buffer.from(record.original.body, 'base64'));
}
