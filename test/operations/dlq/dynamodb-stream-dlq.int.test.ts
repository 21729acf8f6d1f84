/**
 * Triage and redrive of a DynamoDB Streams consumer's failure queue on DynamoDB Local. Nobody can
 * write to a table's stream, so redrive re-emits a change by touching the item, only while the
 * item still holds the record's new image; a change the item has moved past stays in the DLQ.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand } from '@aws-sdk/client-dynamodb-streams';
import { CreateTopicCommand } from '@aws-sdk/client-sns';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { createShipmentNotifier } from '../../../example/handlers/shipment-notifier';
import type { BatchHandler } from '../../../lambdas/runtime';
import { inspectQueue, redriveQueue, REDRIVE_MARKER_ATTRIBUTE, type DlqContext } from '../../../operations/dlq';
import { onFailureRecord } from '../../../aws/lambda/on-failure-record';
import { createQueue, receiveAll, subscribeQueueToTopic, uniqueName, type CreatedQueue } from '../../helpers/engines';
import { dynamoEvent, lambdaContext } from '../../helpers/events';
import { idempotencyTable, itemByPk, pkTable } from '../../helpers/fixtures';
import { readTableStream } from '../../helpers/streams';
import { contextOf, dlqTestClients, FAST_SWEEP, topologyOf, visible } from './support';

const FUNCTION_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:shipment-notifier';
const HOUR_MS = 3_600_000;

const { clients, streams } = dlqTestClients();

interface Shipments {
  readonly table: string;
  readonly streamArn: string;
  readonly dlq: CreatedQueue;
  readonly inbox: CreatedQueue;
  readonly notifier: BatchHandler;
  readonly context: DlqContext;
  /** What the stream held before any redrive. */
  readonly original: DynamoDBRecord[];
}

const order = (id: string, status: string, version: number) => ({ pk: `order#${id}`, orderId: id, status, version });

/**
 * o-1 and o-2 shipped, but the notifier gave up on their batch (a pointer); o-3 was PAID then
 * SHIPPED, and the pointer to its PAID record is superseded; a malformed item was sent to the DLQ
 * by the notifier itself (a wrapper); and a pointer names records long past retention.
 */
async function setUp(): Promise<Shipments> {
  const [orders, dlq, inbox, idempotency] = await Promise.all([pkTable(clients.dynamodb, 'orders', true), createQueue(clients.sqs, uniqueName('notifier-dlq')), createQueue(clients.sqs, uniqueName('inbox')), idempotencyTable(clients.dynamodb)]);
  const { TopicArn = '' } = await clients.sns.send(new CreateTopicCommand({ Name: uniqueName('notifications') }));
  await subscribeQueueToTopic(clients.sns, { topicArn: TopicArn, queueArn: inbox.arn, rawMessageDelivery: true });
  for (const item of [order('o-1', 'SHIPPED', 3), order('o-2', 'SHIPPED', 2), order('o-3', 'PAID', 1), { pk: 'order#bad', status: 'SHIPPED', version: 1 }, order('o-3', 'SHIPPED', 2)]) {
    await clients.dynamodb.send(new PutItemCommand({ TableName: orders.tableName, Item: marshall(item) }));
  }
  const streamArn = orders.streamArn ?? '';
  const original = await readTableStream(streams, streamArn);
  const notifier = createShipmentNotifier({ topicArn: TopicArn, idempotencyTable: idempotency, dlqUrl: dlq.url, clients });
  expect((await notifier(dynamoEvent(...original.slice(2)), lambdaContext())).batchItemFailures).toEqual([]);
  await sendPointer(dlq, streamArn, original.slice(0, 2));
  await sendPointer(dlq, streamArn, original.slice(2, 3));
  await sendPointer(dlq, streamArn, [beyond(original.at(-1), 1000n), beyond(original.at(-1), 1001n)]);
  const topology = topologyOf({ dlq, sources: [{ role: 'on-failure', arn: streamArn }], tables: [{ name: orders.tableName, arn: `arn:aws:dynamodb:us-east-1:000000000000:table/${orders.tableName}`, streamArn }] });
  return { table: orders.tableName, streamArn, dlq, inbox, notifier, context: contextOf(clients, streams, topology), original };
}

type RangeRecord = DynamoDBRecord | { sequenceNumber: string; arrivalMs: number };

async function sendPointer(dlq: CreatedQueue, streamArn: string, records: readonly RangeRecord[]): Promise<void> {
  const range = records.map((record) => ('sequenceNumber' in record ? record : { sequenceNumber: record.dynamodb?.SequenceNumber ?? '', arrivalMs: (record.dynamodb?.ApproximateCreationDateTime ?? 0) * 1000 }));
  const body = onFailureRecord({ kind: 'dynamodb-stream', condition: 'RetryAttemptsExhausted', functionArn: FUNCTION_ARN, streamArn, shardId: await shardOf(streamArn), records: range, approximateInvokeCount: 3 });
  await clients.sqs.send(new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: JSON.stringify(body) }));
}

async function shardOf(streamArn: string): Promise<string> {
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  return StreamDescription?.Shards?.[0]?.ShardId ?? '';
}

/** A sequence number past the shard's tip, zero-padded as DynamoDB Local writes them, that arrived 30 h ago. */
function beyond(record: DynamoDBRecord | undefined, by: bigint): { sequenceNumber: string; arrivalMs: number } {
  const last = record?.dynamodb?.SequenceNumber ?? '0';
  return { sequenceNumber: (BigInt(last) + by).toString().padStart(last.length, '0'), arrivalMs: Date.now() - 30 * HOUR_MS };
}

async function notifications(inbox: CreatedQueue): Promise<string[]> {
  const messages = await receiveAll(clients.sqs, inbox.url, { max: 10, waitMs: 1_000 });
  return messages.map((message) => String((JSON.parse(message.Body ?? '{}') as { orderId: string }).orderId)).sort();
}

const redrive = (setup: Shipments, options: Parameters<typeof redriveQueue>[1] = {}) => redriveQueue({ ...setup.context, queue: setup.dlq.url }, { sweep: FAST_SWEEP, ...options });

test('inspect shows the wrapper and each range, with what the stream still holds', async () => {
  const setup = await setUp();
  const inspection = await inspectQueue({ ...setup.context, queue: setup.dlq.url }, { sweep: FAST_SWEEP });

  expect(inspection.groups.map((group) => [group.kind, group.errorType, group.consumer, group.count])).toEqual([
    ['pointer', 'RetryAttemptsExhausted', 'shipment-notifier', 3],
    ['wrapper', 'SchemaViolationError', 'shipment-notifier', 1],
  ]);
  expect(inspection.ranges.map((range) => [range.batchSize, range.readable, range.status]).sort()).toEqual([[1, 1, 'readable'], [2, 0, 'unreadable'], [2, 2, 'readable']]);
  expect(inspection.ranges.find((range) => range.status === 'unreadable')?.reason).toMatch(/past the stream's 24 h retention/);
});

test('redrive re-emits the changes the items still hold; superseded and expired ones stay, with the reason', async () => {
  const setup = await setUp();
  const result = await redrive(setup);

  expect(result).toMatchObject({ redriven: 2, skipped: 1, pastRetention: 1, failed: 0, records: 3 });
  expect(result.details.find((detail) => detail.status === 'skipped')?.reason).toMatch(/the item has changed since/);
  const emitted = (await readTableStream(streams, setup.streamArn)).slice(setup.original.length);
  expect(emitted.map((record) => [record.eventName, record.dynamodb?.Keys?.pk?.S]).sort()).toEqual([['MODIFY', 'order#bad'], ['MODIFY', 'order#o-1'], ['MODIFY', 'order#o-2']]);
  expect(emitted.every((record) => record.dynamodb?.NewImage?.[REDRIVE_MARKER_ATTRIBUTE]?.S)).toBe(true);
  expect(await itemByPk(clients.dynamodb, setup.table, 'order#o-1')).toMatchObject(order('o-1', 'SHIPPED', 3));
  expect(await itemByPk(clients.dynamodb, setup.table, 'order#o-3')).not.toHaveProperty(REDRIVE_MARKER_ATTRIBUTE);
  expect(await visible(clients.sqs, setup.dlq.url)).toBe(2);
});

test('the re-emitted changes notify each shipped order once, however often they are delivered', async () => {
  const setup = await setUp();
  await redrive(setup);
  const emitted = (await readTableStream(streams, setup.streamArn)).slice(setup.original.length);
  await setup.notifier(dynamoEvent(...emitted), lambdaContext());
  await setup.notifier(dynamoEvent(...emitted), lambdaContext());
  expect(await notifications(setup.inbox)).toEqual(['o-1', 'o-2', 'o-3']);
});

test('--dry-run reads the items and the ranges, and writes nothing', async () => {
  const setup = await setUp();
  expect(await redrive(setup, { dryRun: true })).toMatchObject({ dryRun: true, redriven: 2, skipped: 1, pastRetention: 1, records: 3 });
  expect(await readTableStream(streams, setup.streamArn)).toHaveLength(setup.original.length);
  expect(await itemByPk(clients.dynamodb, setup.table, 'order#o-1')).not.toHaveProperty(REDRIVE_MARKER_ATTRIBUTE);
  expect(await visible(clients.sqs, setup.dlq.url)).toBe(4);
});
