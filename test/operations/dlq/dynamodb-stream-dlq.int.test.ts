/**
 * Triage and redrive of a DynamoDB Streams consumer's failure queue on DynamoDB Local. Nobody can
 * write to a table's stream, so a redrive hands each failed change back to the stack's consumer
 * that failed on it, with the original record (its eventID, kind and images), as its mapping first
 * delivered it: the consumer dedups it by whatever key it first saw, the table is not touched, and
 * no other consumer of the stream sees it again (issue 25, items 3 and 4). The Lambda client is
 * the in-process one of ./support (the Invoke API's fake); the consumer and its engines are real.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand } from '@aws-sdk/client-dynamodb-streams';
import { CreateTopicCommand } from '@aws-sdk/client-sns';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { createShipmentNotifier } from '../../../example/handlers/shipment-notifier';
import type { BatchHandler } from '../../../lambdas/runtime';
import { inspectQueue, redriveQueue, type DlqContext } from '../../../operations/dlq';
import { onFailureRecord } from '../../../aws/lambda/on-failure-record';
import { createQueue, receiveAll, subscribeQueueToTopic, uniqueName, type CreatedQueue } from '../../helpers/engines';
import { dynamoEvent, lambdaContext } from '../../helpers/events';
import { idempotencyTable, itemByPk, pkTable } from '../../helpers/fixtures';
import { readTableStream } from '../../helpers/streams';
import { contextOf, dlqTestClients, FAST_SWEEP, inProcessLambda, topologyOf, visible } from './support';

const FUNCTION_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:shipment-notifier';
const HOUR_MS = 3_600_000;

const { clients, streams } = dlqTestClients();

interface Shipments {
  readonly table: string;
  readonly streamArn: string;
  readonly dlq: CreatedQueue;
  readonly inbox: CreatedQueue;
  readonly notifier: BatchHandler;
  readonly lambda: ReturnType<typeof inProcessLambda>;
  readonly context: DlqContext;
  /** What the stream held before any redrive. */
  readonly original: DynamoDBRecord[];
}

const order = (id: string, status: string, version: number) => ({ pk: `order#${id}`, orderId: id, status, version });

/**
 * o-1 and o-2 shipped (their INSERTs), but the notifier gave up on their batch (a pointer); o-3 was
 * PAID then SHIPPED, and a pointer names its PAID INSERT, which the item has moved past; a
 * malformed item was sent to the DLQ by the notifier itself (a wrapper); and a pointer names
 * records long past retention.
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
  const consumerFunctions = [{ functionName: 'shipment-notifier', consumer: 'shipment-notifier', sourceArn: streamArn }];
  const topology = topologyOf({ dlq, sources: [{ role: 'on-failure', arn: streamArn }], tables: [{ name: orders.tableName, arn: `arn:aws:dynamodb:us-east-1:000000000000:table/${orders.tableName}`, streamArn }], consumerFunctions });
  const lambda = inProcessLambda({ 'shipment-notifier': notifier });
  return { table: orders.tableName, streamArn, dlq, inbox, notifier, lambda, context: contextOf(clients, streams, topology, clients.sqs, lambda), original };
}

type RangeRecord = DynamoDBRecord | { sequenceNumber: string; arrivalMs: number };

async function sendPointer(dlq: CreatedQueue, streamArn: string, records: readonly RangeRecord[], functionArn = FUNCTION_ARN): Promise<void> {
  const range = records.map((record) => ('sequenceNumber' in record ? record : { sequenceNumber: record.dynamodb?.SequenceNumber ?? '', arrivalMs: (record.dynamodb?.ApproximateCreationDateTime ?? 0) * 1000 }));
  const body = onFailureRecord({ kind: 'dynamodb-stream', condition: 'RetryAttemptsExhausted', functionArn, streamArn, shardId: await shardOf(streamArn), records: range, approximateInvokeCount: 3 });
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

const seen = (records: readonly DynamoDBRecord[]) => records.map((record) => [record.eventID, record.eventName, record.dynamodb?.SequenceNumber]);

test('redrive hands each change to the consumer that failed on it, as the stream first gave it; records past retention stay', async () => {
  const setup = await setUp();
  const result = await redrive(setup);

  expect(result).toMatchObject({ redriven: 3, pastRetention: 1, failed: 0, records: 4 });
  const delivered = setup.lambda.invocations.flatMap((invocation) => invocation.event.Records);
  expect(setup.lambda.invocations.every((invocation) => invocation.functionName === 'shipment-notifier')).toBe(true);
  // The same eventID (the default dedup key), the same kind (an INSERT stays an INSERT), the same sequence number.
  expect(seen(delivered).sort()).toEqual(seen([...setup.original.slice(0, 3), setup.original[3] as DynamoDBRecord]).sort());
  // The table is not touched: no new stream record, for this consumer or any other.
  expect(await readTableStream(streams, setup.streamArn)).toHaveLength(setup.original.length);
  expect(await itemByPk(clients.dynamodb, setup.table, 'order#o-1')).toEqual(order('o-1', 'SHIPPED', 3));
  // The malformed item failed again, permanently: the notifier sent it back with its context; the expired range stays.
  expect(await visible(clients.sqs, setup.dlq.url)).toBe(2);
});

test('each shipped order is notified once, however often its change is redriven or delivered', async () => {
  const setup = await setUp();
  await redrive(setup);
  const delivered = setup.lambda.invocations.flatMap((invocation) => invocation.event.Records);
  await setup.notifier(dynamoEvent(...delivered), lambdaContext());
  await setup.notifier(dynamoEvent(...setup.original), lambdaContext());
  expect(await notifications(setup.inbox)).toEqual(['o-1', 'o-2', 'o-3']);
});

test('a run sends a record to its consumer once, when two messages name it', async () => {
  const setup = await setUp();
  await sendPointer(setup.dlq, setup.streamArn, setup.original.slice(0, 1));
  const result = await redrive(setup);
  expect(result).toMatchObject({ redriven: 4, pastRetention: 1 });
  const delivered = setup.lambda.invocations.flatMap((invocation) => invocation.event.Records);
  expect(delivered.filter((record) => record.dynamodb?.SequenceNumber === setup.original[0]?.dynamodb?.SequenceNumber)).toHaveLength(1);
});

test('a pointer that names a function the stack does not wire to the stream is not redriven: nothing is invoked', async () => {
  const setup = await setUp();
  const dlq = await createQueue(clients.sqs, uniqueName('notifier-dlq'));
  await sendPointer(dlq, setup.streamArn, setup.original.slice(0, 1), 'arn:aws:lambda:us-east-1:000000000000:function:payments');
  const result = await redriveQueue({ ...setup.context, queue: dlq.url, topology: { ...setup.context.topology, deadLetterQueues: [{ name: 'x', url: dlq.url, arn: dlq.arn, sources: [{ role: 'on-failure', arn: setup.streamArn }] }] } }, { sweep: FAST_SWEEP });
  expect(result).toMatchObject({ redriven: 0, failed: 1 });
  expect(result.details[0]?.reason).toMatch(/payments is not the one consumer of .* nothing is invoked/);
  expect(setup.lambda.invocations).toEqual([]);
});

test('--dry-run reads the ranges, and invokes and deletes nothing', async () => {
  const setup = await setUp();
  expect(await redrive(setup, { dryRun: true })).toMatchObject({ dryRun: true, redriven: 3, pastRetention: 1, records: 4 });
  expect(setup.lambda.invocations).toEqual([]);
  expect(await visible(clients.sqs, setup.dlq.url)).toBe(4);
});
