/**
 * Turns what the engines return (SQS messages, Kinesis records, DynamoDB stream records) into the
 * records Lambda's event source mappings hand a function, field for field.
 */
import type { _Record as StreamsRecord } from '@aws-sdk/client-dynamodb-streams';
import type { _Record as KinesisApiRecord } from '@aws-sdk/client-kinesis';
import type { Message } from '@aws-sdk/client-sqs';
import type { AttributeValue, DynamoDBRecord, KinesisStreamRecord, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { createHash } from 'node:crypto';

/** An SQS message, received with all system and message attributes, as Lambda delivers it. */
export function sqsLambdaRecord(message: Message, queueArn: string, region: string): SQSRecord {
  const body = message.Body ?? '';
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body,
    attributes: { ...(message.Attributes ?? {}) } as unknown as SQSRecord['attributes'],
    messageAttributes: lambdaMessageAttributes(message.MessageAttributes),
    md5OfBody: message.MD5OfBody ?? createHash('md5').update(body).digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
}

function lambdaMessageAttributes(attributes: Message['MessageAttributes']): SQSMessageAttributes {
  const converted: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(attributes ?? {})) {
    converted[name] = {
      dataType: value.DataType ?? 'String',
      stringValue: value.StringValue,
      binaryValue: value.BinaryValue ? Buffer.from(value.BinaryValue).toString('base64') : undefined,
      stringListValues: value.StringListValues ?? [],
      binaryListValues: (value.BinaryListValues ?? []).map((bytes) => Buffer.from(bytes).toString('base64')),
    };
  }
  return converted;
}

/** A Kinesis record read with GetRecords, as Lambda delivers it (data base64-encoded). */
export function kinesisLambdaRecord(record: KinesisApiRecord, shardId: string, streamArn: string, region: string): KinesisStreamRecord {
  const sequenceNumber = record.SequenceNumber ?? '';
  return {
    kinesis: {
      kinesisSchemaVersion: '1.0',
      partitionKey: record.PartitionKey ?? '',
      sequenceNumber,
      data: Buffer.from(record.Data ?? new Uint8Array()).toString('base64'),
      approximateArrivalTimestamp: (record.ApproximateArrivalTimestamp?.getTime() ?? Date.now()) / 1000,
    },
    eventSource: 'aws:kinesis',
    eventVersion: '1.0',
    eventID: `${shardId}:${sequenceNumber}`,
    eventName: 'aws:kinesis:record',
    invokeIdentityArn: 'arn:aws:iam::000000000000:role/local',
    awsRegion: region,
    eventSourceARN: streamArn,
  };
}

/** A DynamoDB Streams record read with GetRecords, as Lambda delivers it. */
export function dynamoLambdaRecord(record: StreamsRecord, streamArn: string, region: string): DynamoDBRecord {
  const change = record.dynamodb;
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: region,
    dynamodb: change && {
      ApproximateCreationDateTime: change.ApproximateCreationDateTime ? change.ApproximateCreationDateTime.getTime() / 1000 : undefined,
      Keys: change.Keys as Record<string, AttributeValue> | undefined,
      NewImage: change.NewImage as Record<string, AttributeValue> | undefined,
      OldImage: change.OldImage as Record<string, AttributeValue> | undefined,
      SequenceNumber: change.SequenceNumber,
      SizeBytes: change.SizeBytes,
      StreamViewType: change.StreamViewType,
    },
    eventSourceARN: streamArn,
  };
}
