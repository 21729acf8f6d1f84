/**
 * Resources for one consumer under test, created on the shared local engines with unique names.
 */
import { GetItemCommand, ScanCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { isFailureEnvelope, type FailureEnvelope } from '../../aws/dlq-format';
import { LOCAL_REGION } from '../../emulator/engines';
import { sqsLambdaRecord } from '../../aws/lambda/event-records';
import { createQueue, createTable, receiveAll, uniqueName, type CreatedQueue } from './engines';

/** The idempotency table: key `id`, TTL `expiration`. */
export async function idempotencyTable(dynamodb: DynamoDBClient): Promise<string> {
  const table = await createTable(dynamodb, { name: uniqueName('idempotency'), partitionKey: 'id', ttlAttribute: 'expiration' });
  return table.tableName;
}

/** A table keyed `pk`, like the counters and orders tables. */
export async function pkTable(dynamodb: DynamoDBClient, prefix: string, stream = false): Promise<{ tableName: string; streamArn?: string }> {
  return createTable(dynamodb, { name: uniqueName(prefix), partitionKey: 'pk', stream });
}

/** A source queue with its DLQ, wired by a redrive policy as the constructs wire them. */
export async function queueWithDlq(sqs: SQSClient, prefix: string, maxReceiveCount = 6): Promise<{ queue: CreatedQueue; dlq: CreatedQueue }> {
  const dlq = await createQueue(sqs, uniqueName(`${prefix}-dlq`));
  const queue = await createQueue(sqs, uniqueName(prefix), {
    VisibilityTimeout: '30',
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount }),
  });
  return { queue, dlq };
}

/** Receives up to `max` messages from a real queue and shapes them as Lambda's SQS records. */
export async function receiveAsLambdaRecords(sqs: SQSClient, queue: CreatedQueue, max: number, waitMs = 3_000): Promise<SQSRecord[]> {
  const messages = await receiveAll(sqs, queue.url, { max, waitMs, deleteMessages: false });
  return messages.map((message) => sqsLambdaRecord(message, queue.arn, LOCAL_REGION));
}

/** Reads every DLQ message and parses our failure wrappers. */
export async function dlqFailures(sqs: SQSClient, dlqUrl: string, max = 10, waitMs = 1_500): Promise<FailureEnvelope[]> {
  const messages = await receiveAll(sqs, dlqUrl, { max, waitMs });
  return messages.map((message) => {
    const body: unknown = JSON.parse(message.Body ?? '');
    if (!isFailureEnvelope(body)) throw new Error(`DLQ message is not a failure wrapper: ${message.Body}`);
    return body;
  });
}

/** The `views` of every counter item, by key. */
export async function countersOf(dynamodb: DynamoDBClient, table: string): Promise<Record<string, number>> {
  const { Items = [] } = await dynamodb.send(new ScanCommand({ TableName: table, ConsistentRead: true }));
  return Object.fromEntries(Items.map((item) => unmarshall(item)).map((item) => [item.pk as string, item.views as number]));
}

/** One item by `pk`, unmarshalled. */
export async function itemByPk(dynamodb: DynamoDBClient, table: string, pk: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await dynamodb.send(new GetItemCommand({ TableName: table, Key: { pk: { S: pk } }, ConsistentRead: true }));
  return Item && unmarshall(Item);
}
