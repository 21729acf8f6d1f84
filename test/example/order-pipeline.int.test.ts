/**
 * order-projection (Kinesis) and shipment-notifier (DynamoDB Streams) against kinesalite,
 * DynamoDB Local and fauxqs. Records are read back from the engines, so sequence numbers and
 * stream images are real. Failures of PutItem and of SNS Publish are injected with SDK middleware.
 */
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { CreateTopicCommand } from '@aws-sdk/client-sns';
import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { createOrderProjection, orderKey } from '../../example/handlers/order-projection';
import { createShipmentNotifier, notificationIdFor } from '../../example/handlers/shipment-notifier';
import { outgoingMessage, publishToKinesis } from '../../lambdas/runtime';
import { destroyClients, type LocalClients } from '../../emulator/engines';
import { dynamoEvent, kinesisEvent, lambdaContext, orderStatus } from '../helpers/events';
import { createQueue, createStream, receiveAll, subscribeQueueToTopic, testClients, uniqueName } from '../helpers/engines';
import { dlqFailures, idempotencyTable, itemByPk, pkTable } from '../helpers/fixtures';
import { injectFaults, serviceError } from '../helpers/sdk';
import { readKinesis, readTableStream, tableStreamsClient } from '../helpers/streams';

const noWait = { sleep: async () => undefined, maxAttempts: 2 };

let clients: LocalClients;
let streams: DynamoDBStreamsClient;
beforeAll(() => {
  clients = testClients();
  streams = tableStreamsClient();
});
afterAll(() => {
  destroyClients(clients);
  streams.destroy();
});

async function ordersSetUp(dynamodb = clients.dynamodb) {
  const [orders, stream, dlq] = await Promise.all([
    pkTable(clients.dynamodb, 'orders', true),
    createStream(clients.kinesis, uniqueName('orders'), 1),
    createQueue(clients.sqs, uniqueName('order-projection-dlq')),
  ]);
  const handler = createOrderProjection({ ordersTable: orders.tableName, dlqUrl: dlq.url, clients: { ...clients, dynamodb }, retry: noWait });
  return { handler, orders, stream, dlq };
}

async function publishOrders(streamName: string, events: ReturnType<typeof orderStatus>[]) {
  await publishToKinesis(clients.kinesis, streamName, events.map((event) => outgoingMessage(event, String(event.payload.orderId))));
  return readKinesis(clients.kinesis, streamName);
}

test('the projection never moves an order back to an older version', async () => {
  const { handler, orders, stream } = await ordersSetUp();
  const records = await publishOrders(stream.streamName, [
    orderStatus('o-1', 'CREATED', 1),
    orderStatus('o-1', 'SHIPPED', 3),
    orderStatus('o-1', 'PAID', 2),
    orderStatus('o-1', 'SHIPPED', 3),
    orderStatus('o-1', 'CREATED', 1),
  ]);
  expect((await handler(kinesisEvent(...records))).batchItemFailures).toEqual([]);
  await handler(kinesisEvent(...records));
  expect(await itemByPk(clients.dynamodb, orders.tableName, orderKey('o-1'))).toMatchObject({ status: 'SHIPPED', version: 3 });
});

test('Kinesis failures are reported by sequence number, from the first failed record on', async () => {
  const failing = testClients().dynamodb;
  injectFaults(failing, { commandName: 'PutItemCommand', when: (input) => JSON.stringify(input.Item).includes('o-bad'), error: () => serviceError('ServiceUnavailable', 503) });
  const { handler, stream, dlq } = await ordersSetUp(failing);
  const records = await publishOrders(stream.streamName, [orderStatus('o-a', 'CREATED', 1), orderStatus('o-bad', 'CREATED', 1), orderStatus('o-c', 'CREATED', 1)]);
  const sequenceNumbers = records.map((record) => record.kinesis.sequenceNumber);
  const response = await handler(kinesisEvent(...records));
  // Lambda resumes the shard at the lowest reported number; later records are not attempted.
  expect(response.batchItemFailures).toEqual(sequenceNumbers.slice(1).map((itemIdentifier) => ({ itemIdentifier })));
  expect(await dlqFailures(clients.sqs, dlq.url, 1, 300)).toHaveLength(0);
  destroyClients({ ...clients, dynamodb: failing });
});

test('a poison Kinesis record goes to the DLQ with its bytes and the shard moves on', async () => {
  const { handler, stream, dlq, orders } = await ordersSetUp();
  await publishToKinesis(clients.kinesis, stream.streamName, [{ body: 'definitely not json', partitionKey: 'x' }, outgoingMessage(orderStatus('o-2', 'PAID', 2))]);
  const records = await readKinesis(clients.kinesis, stream.streamName);
  expect((await handler(kinesisEvent(...records))).batchItemFailures).toEqual([]);
  const [failure] = await dlqFailures(clients.sqs, dlq.url);
  expect(failure).toMatchObject({ consumer: 'order-projection', error: { name: 'InvalidEnvelopeError' }, source: { kind: 'kinesis', itemIdentifier: records[0]?.kinesis.sequenceNumber } });
  expect(Buffer.from(failure?.original.body ?? '', 'base64').toString()).toBe('definitely not json');
  expect(await itemByPk(clients.dynamodb, orders.tableName, orderKey('o-2'))).toMatchObject({ status: 'PAID' });
});

describe('shipment-notifier', () => {
  async function notifierSetUp(sns = clients.sns, retry: { maxAttempts: number; sleep?: () => Promise<void> } = noWait, dedupTtlSeconds?: number) {
    const projection = await ordersSetUp();
    const [idempotency, dlq, inbox] = await Promise.all([
      idempotencyTable(clients.dynamodb),
      createQueue(clients.sqs, uniqueName('shipment-notifier-dlq')),
      createQueue(clients.sqs, uniqueName('inbox')),
    ]);
    const { TopicArn = '' } = await clients.sns.send(new CreateTopicCommand({ Name: uniqueName('notifications') }));
    await subscribeQueueToTopic(clients.sns, { topicArn: TopicArn, queueArn: inbox.arn, rawMessageDelivery: true });
    const makeNotifier = () => createShipmentNotifier({ topicArn: TopicArn, idempotencyTable: idempotency, dlqUrl: dlq.url, clients: { ...clients, sns }, retry, dedupTtlSeconds });
    return { ...projection, notifier: makeNotifier(), makeNotifier, idempotency, inbox, notifierDlq: dlq };
  }

  async function streamRecords(streamArn: string | undefined) {
    return readTableStream(streams, streamArn ?? '');
  }

  test('a replayed stream record and a second SHIPPED write notify once', async () => {
    const { handler, stream, orders, notifier, inbox } = await notifierSetUp();
    const records = await publishOrders(stream.streamName, [orderStatus('o-9', 'CREATED', 1), orderStatus('o-9', 'SHIPPED', 2), orderStatus('o-9', 'SHIPPED', 3)]);
    await handler(kinesisEvent(...records));
    const changes = await streamRecords(orders.streamArn);
    expect(changes.map((change) => change.eventName)).toEqual(['INSERT', 'MODIFY', 'MODIFY']);
    expect((await notifier(dynamoEvent(...changes), lambdaContext())).batchItemFailures).toEqual([]);
    expect((await notifier(dynamoEvent(...changes), lambdaContext())).batchItemFailures).toEqual([]);
    const notifications = await receiveAll(clients.sqs, inbox.url, { max: 5, waitMs: 1_500 });
    expect(notifications.map((message) => JSON.parse(message.Body ?? '{}'))).toEqual([
      { notificationId: notificationIdFor('o-9'), orderId: 'o-9', status: 'SHIPPED', version: 2 },
    ]);
  });

  test('the function replaced by CloudFormation (a new generated name) replays the stream without notifying twice', async () => {
    const previousName = process.env.AWS_LAMBDA_FUNCTION_NAME;
    try {
      process.env.AWS_LAMBDA_FUNCTION_NAME = 'EffectivelyOnce-ShipmentNotifierFunction92495FFE-Old';
      const { handler, stream, orders, notifier, makeNotifier, inbox } = await notifierSetUp();
      await handler(kinesisEvent(...(await publishOrders(stream.streamName, [orderStatus('o-12', 'SHIPPED', 1)]))));
      const changes = await streamRecords(orders.streamArn);
      expect((await notifier(dynamoEvent(...changes), lambdaContext())).batchItemFailures).toEqual([]);
      process.env.AWS_LAMBDA_FUNCTION_NAME = 'EffectivelyOnce-ShipmentNotifierFunctionC0FFEE11-New';
      expect((await makeNotifier()(dynamoEvent(...changes), lambdaContext())).batchItemFailures).toEqual([]);
      expect(await receiveAll(clients.sqs, inbox.url, { max: 5, waitMs: 1_500 })).toHaveLength(1);
    } finally {
      if (previousName === undefined) delete process.env.AWS_LAMBDA_FUNCTION_NAME;
      else process.env.AWS_LAMBDA_FUNCTION_NAME = previousName;
    }
  });

  test('a sent notification is remembered for the consumer\'s validated dedup TTL (DEDUP_TTL_SECONDS), not 30 days', async () => {
    const twoDays = 2 * 24 * 3600;
    const { handler, stream, orders, notifier, idempotency } = await notifierSetUp(clients.sns, noWait, twoDays);
    await handler(kinesisEvent(...(await publishOrders(stream.streamName, [orderStatus('o-13', 'SHIPPED', 1)]))));
    await notifier(dynamoEvent(...(await streamRecords(orders.streamArn))), lambdaContext());
    const { Items = [] } = await clients.dynamodb.send(new ScanCommand({ TableName: idempotency, ConsistentRead: true }));
    const expiration = Number(Items[0]?.expiration?.N);
    expect(Math.abs(expiration - (Math.floor(Date.now() / 1000) + twoDays))).toBeLessThan(60);
  });

  test('a lock left by a crashed invocation is waited out within the time budget: the order is notified once, not failed', async () => {
    const { handler, stream, orders, notifier, idempotency, inbox } = await notifierSetUp(clients.sns, { maxAttempts: 2 });
    await handler(kinesisEvent(...(await publishOrders(stream.streamName, [orderStatus('o-11', 'SHIPPED', 1)]))));
    const changes = await streamRecords(orders.streamArn);
    const store = new DynamoDBPersistenceLayer({ tableName: idempotency, awsSdkV3Client: clients.dynamodb });
    store.configure({ config: new IdempotencyConfig({ eventKeyJmesPath: 'idempotencyKey' }), keyPrefix: 'shipment-notifier' });
    await store.saveInProgress({ idempotencyKey: notificationIdFor('o-11') }, 1_500);

    const started = Date.now();
    expect((await notifier(dynamoEvent(...changes), lambdaContext('notifier', 10_000))).batchItemFailures).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
    const notifications = await receiveAll(clients.sqs, inbox.url, { max: 5, waitMs: 1_500 });
    expect(notifications.map((message) => JSON.parse(message.Body ?? '{}').orderId)).toEqual(['o-11']);
  });

  test('DynamoDB Streams failures are reported by SequenceNumber', async () => {
    const failingSns = testClients().sns;
    injectFaults(failingSns, { commandName: 'PublishCommand', error: () => serviceError('InternalError', 500) });
    const { handler, stream, orders, notifier, inbox } = await notifierSetUp(failingSns);
    await handler(kinesisEvent(...(await publishOrders(stream.streamName, [orderStatus('o-5', 'CREATED', 1), orderStatus('o-5', 'SHIPPED', 2)]))));
    const changes = await streamRecords(orders.streamArn);
    const response = await notifier(dynamoEvent(...changes), lambdaContext());
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: changes[1]?.dynamodb?.SequenceNumber }]);
    expect(await receiveAll(clients.sqs, inbox.url, { max: 1, waitMs: 500 })).toHaveLength(0);
    destroyClients({ ...clients, sns: failingSns });
  });
});
