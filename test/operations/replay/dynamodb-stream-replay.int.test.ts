/**
 * `eo replay` on a DynamoDB Streams consumer with an external effect (the shipment notifier, an SNS
 * notification per shipped order, guarded by Powertools' idempotency record), on DynamoDB Local and
 * fauxqs: a replay of the window sends no notification again and counts the duplicates; a window
 * that reaches past the dedup TTL is refused before anything is read, and runs only when allowed.
 * The Lambda client is the in-process fake of the Invoke API (../dlq/support.ts).
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { CreateTopicCommand } from '@aws-sdk/client-sns';
import { marshall } from '@aws-sdk/util-dynamodb';
import { createShipmentNotifier } from '../../../example/handlers/shipment-notifier';
import { planReplay, ReplayRefusedError, runReplay } from '../../../operations/replay';
import type { DlqContext } from '../../../operations/dlq';
import { createQueue, receiveAll, subscribeQueueToTopic, uniqueName, type CreatedQueue } from '../../helpers/engines';
import { dynamoEvent, lambdaContext } from '../../helpers/events';
import { idempotencyTable, pkTable } from '../../helpers/fixtures';
import { readTableStream } from '../../helpers/streams';
import { contextOf, dlqTestClients, inProcessLambda, topologyOf, visible } from '../dlq/support';

const { clients, streams } = dlqTestClients();
const DEDUP_TTL_SECONDS = 3_600;

interface Shipments {
  readonly inbox: CreatedQueue;
  readonly dlq: CreatedQueue;
  readonly context: DlqContext;
}

const order = (id: string, status: string, version: number) => ({ pk: `order#${id}`, orderId: id, status, version });

/** Two orders shipped and one only paid, notified once as the mapping would; the inbox is then emptied. */
async function setUp(): Promise<Shipments> {
  const [orders, dlq, inbox, idempotency] = await Promise.all([pkTable(clients.dynamodb, 'orders', true), createQueue(clients.sqs, uniqueName('notifier-dlq')), createQueue(clients.sqs, uniqueName('inbox')), idempotencyTable(clients.dynamodb)]);
  const { TopicArn = '' } = await clients.sns.send(new CreateTopicCommand({ Name: uniqueName('notifications') }));
  await subscribeQueueToTopic(clients.sns, { topicArn: TopicArn, queueArn: inbox.arn, rawMessageDelivery: true });
  for (const item of [order('o-1', 'SHIPPED', 3), order('o-2', 'PAID', 2), order('o-3', 'SHIPPED', 2)]) {
    await clients.dynamodb.send(new PutItemCommand({ TableName: orders.tableName, Item: marshall(item) }));
  }
  const streamArn = orders.streamArn ?? '';
  const notifier = createShipmentNotifier({ topicArn: TopicArn, idempotencyTable: idempotency, dlqUrl: dlq.url, clients });
  expect((await notifier(dynamoEvent(...(await readTableStream(streams, streamArn))), lambdaContext())).batchItemFailures).toEqual([]);
  expect(await receiveAll(clients.sqs, inbox.url, { max: 10, waitMs: 500 })).toHaveLength(2);
  const tableArn = `arn:aws:dynamodb:us-east-1:000000000000:table/${orders.tableName}`;
  const topology = topologyOf({
    dlq,
    sources: [{ role: 'on-failure', arn: streamArn }],
    tables: [{ name: orders.tableName, arn: tableArn, streamArn }],
    consumerFunctions: [{ functionName: 'shipment-notifier', consumer: 'shipment-notifier', sourceArn: streamArn }],
    consumerWindows: [{ consumer: 'shipment-notifier', sourceArn: streamArn, dedupTtlSeconds: DEDUP_TTL_SECONDS, dedupTable: idempotency }],
  });
  return { inbox, dlq, context: contextOf(clients, streams, topology, clients.sqs, inProcessLambda({ 'shipment-notifier': notifier })) };
}

test('a replay sends no notification again: every shipped order is a duplicate, the paid one is skipped', async () => {
  const setup = await setUp();
  const nowMs = Date.now();
  // DynamoDB Local rounds ApproximateCreationDateTime down to the minute: start the window before it.
  const plan = planReplay(setup.context.topology, 'shipment-notifier', { fromMs: nowMs - 10 * 60_000, toMs: nowMs + 1 }, { nowMs });
  const summary = await runReplay(setup.context, plan);
  expect(summary.totals).toEqual({ records: 3, applied: 0, duplicates: 2, skipped: 1, permanent: 0, reported: 0 });
  expect(summary.complete).toBe(true);
  expect(await receiveAll(clients.sqs, setup.inbox.url, { max: 10, waitMs: 500 })).toEqual([]);
  expect(await visible(clients.sqs, setup.dlq.url)).toBe(0);
});

test('a window reaching past the dedup TTL is refused unless allowed, and the allowed plan says what it means', async () => {
  const setup = await setUp();
  const nowMs = Date.now();
  const window = { fromMs: nowMs - (DEDUP_TTL_SECONDS + 60) * 1000, toMs: nowMs };
  expect(() => planReplay(setup.context.topology, 'shipment-notifier', window, { nowMs })).toThrow(ReplayRefusedError);
  expect(() => planReplay(setup.context.topology, 'shipment-notifier', window, { nowMs })).toThrow(/past shipment-notifier's dedup TTL \(3600 s\): .* pass --allow-past-dedup-window/);
  const allowed = planReplay(setup.context.topology, 'shipment-notifier', window, { nowMs, allowPastDedupWindow: true });
  expect(allowed.pastDedupWindow).toMatch(/would apply them again/);
  expect(allowed.dedupTtlSeconds).toBe(DEDUP_TTL_SECONDS);
});
