/**
 * The bad-input catalogue (docs/reliability.md, "Bad inputs"): the stream consumers' rows.
 * Kinesis data that is not an envelope goes to the DLQ byte for byte while the shard moves on, and
 * a DynamoDB Streams REMOVE record is not poison.
 */
import { DeleteItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { PutRecordsCommand } from '@aws-sdk/client-kinesis';
import { CreateTopicCommand } from '@aws-sdk/client-sns';
import { createOrderProjection, orderKey } from '../../example/handlers/order-projection';
import { createShipmentNotifier } from '../../example/handlers/shipment-notifier';
import { destroyClients, type LocalClients } from '../../emulator/engines';
import { dynamoEvent, kinesisEvent, lambdaContext, orderStatus } from '../helpers/events';
import { createQueue, createStream, receiveAll, subscribeQueueToTopic, testClients, uniqueName, type CreatedStream } from '../helpers/engines';
import { idempotencyTable, itemByPk, pkTable } from '../helpers/fixtures';
import { countRequests } from '../helpers/sdk';
import { readKinesis, readTableStream, tableStreamsClient } from '../helpers/streams';
import { KINESIS_POISON } from './bad-input-cases';
import { badInputHelpers, noWait, observabilitySpies } from './bad-input-setup';

let clients: LocalClients;
beforeAll(() => {
  clients = testClients();
});
afterAll(() => destroyClients(clients));
afterEach(() => jest.restoreAllMocks());
const { dlqContents } = badInputHelpers(() => clients);

describe('order-projection (Kinesis), data that is not an envelope', () => {
  let ordersTable: string;
  let stream: CreatedStream;
  beforeAll(async () => {
    const [orders, created] = await Promise.all([pkTable(clients.dynamodb, 'orders'), createStream(clients.kinesis, uniqueName('orders'), 1)]);
    ordersTable = orders.tableName;
    stream = created;
  });

  /** Writes [good, ...middle, good] to the stream under a fresh partition key and hands the projection what kinesalite returns. */
  async function projectBetweenGoodOrders(...middle: Buffer[]) {
    const dlq = await createQueue(clients.sqs, uniqueName('order-projection-dlq'));
    const handler = createOrderProjection({ ordersTable, dlqUrl: dlq.url, clients, retry: noWait });
    const key = uniqueName('row');
    const orderIds = [`${key}-a`, `${key}-b`];
    const good = [orderStatus(`${key}-a`, 'CREATED', 1), orderStatus(`${key}-b`, 'PAID', 2)];
    const data = [Buffer.from(JSON.stringify(good[0])), ...middle, Buffer.from(JSON.stringify(good[1]))];
    await clients.kinesis.send(new PutRecordsCommand({ StreamName: stream.streamName, Records: data.map((Data) => ({ Data, PartitionKey: key })) }));
    const records = (await readKinesis(clients.kinesis, stream.streamName)).filter((record) => record.kinesis.partitionKey === key);
    expect(records).toHaveLength(data.length);
    const response = await handler(kinesisEvent(...records));
    const applied = await Promise.all(orderIds.map((orderId) => itemByPk(clients.dynamodb, ordersTable, orderKey(orderId))));
    return { dlq, records, response, applied: applied.map((item) => item?.status) };
  }

  test.each(KINESIS_POISON)('$kind: InvalidEnvelopeError $problem, its exact bytes in the DLQ, the shard moves on', async ({ data, problem }) => {
    const { dlq, records, response, applied } = await projectBetweenGoodOrders(data);
    expect(response.batchItemFailures).toEqual([]);
    expect(applied).toEqual(['CREATED', 'PAID']);
    const [failure, ...others] = await dlqContents(dlq.url);
    expect(others).toEqual([]);
    expect(failure).toMatchObject({
      consumer: 'order-projection',
      reason: 'permanent',
      error: { name: 'InvalidEnvelopeError', kind: 'permanent', details: { problem } },
      source: { kind: 'kinesis', itemIdentifier: records[1]?.kinesis.sequenceNumber },
      original: { encoding: 'base64' },
    });
    expect(failure?.error.message).toMatch(problem === 'not-utf8' ? /^record data is not valid UTF-8$/ : /^body is not JSON: /);
    expect(Buffer.from(failure?.original.body ?? '', 'base64').equals(data)).toBe(true);
  });

  test('an order payload schema violation names the field', async () => {
    const wrong = { ...orderStatus('o-wrong', 'PAID', 2), payload: { orderId: 'o-wrong', status: 'PAID', version: '2' } };
    const { dlq, response, applied } = await projectBetweenGoodOrders(Buffer.from(JSON.stringify(wrong)));
    expect(response.batchItemFailures).toEqual([]);
    expect(applied).toEqual(['CREATED', 'PAID']);
    const [failure] = await dlqContents(dlq.url);
    expect(failure).toMatchObject({ eventId: wrong.eventId, error: { name: 'SchemaViolationError', details: { issues: ['version: Invalid input: expected number, received string'] } } });
    expect(failure?.error.message).toContain('version');
  });

  test('a UTF-8 byte order mark before the JSON is not poison: the strict decoder drops it', async () => {
    const marked = orderStatus('o-bom', 'SHIPPED', 4);
    const { dlq, response, applied } = await projectBetweenGoodOrders(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(marked))]));
    expect(response.batchItemFailures).toEqual([]);
    expect(applied).toEqual(['CREATED', 'PAID']);
    expect(await itemByPk(clients.dynamodb, ordersTable, orderKey('o-bom'))).toMatchObject({ status: 'SHIPPED', version: 4 });
    expect(await dlqContents(dlq.url)).toEqual([]);
  });

  test('a duplicate eventId with another payload is flagged within a batch; across batches the version guard decides, unflagged', async () => {
    const spies = observabilitySpies();
    const created = orderStatus('o-conflict', 'CREATED', 1);
    const rewritten = orderStatus('o-conflict', 'PAID', 1);
    expect(rewritten.eventId).toBe(created.eventId);
    const { response } = await projectBetweenGoodOrders(Buffer.from(JSON.stringify(created)), Buffer.from(JSON.stringify(rewritten)));
    expect(response.batchItemFailures).toEqual([]);
    expect(spies.conflicts()).toBe(1);
    await projectBetweenGoodOrders(Buffer.from(JSON.stringify(rewritten)));
    expect(spies.conflicts()).toBe(1);
    expect(await itemByPk(clients.dynamodb, ordersTable, orderKey('o-conflict'))).toMatchObject({ status: 'CREATED', version: 1 });
  });

  test('poison data over 768 KiB fits no DLQ message once base64-encoded: reported from there on, nothing after it applied, so the mapping retries it and then gives up to its on-failure destination', async () => {
    const { dlq, records, response, applied } = await projectBetweenGoodOrders(Buffer.alloc(800 * 1024, 0xff));
    expect(response.batchItemFailures).toEqual(records.slice(1).map((record) => ({ itemIdentifier: record.kinesis.sequenceNumber })));
    // The record after it comes back from the checkpoint; applying it now would apply it twice.
    expect(applied).toEqual(['CREATED', undefined]);
    expect(await dlqContents(dlq.url)).toEqual([]);
  });
});

describe('shipment-notifier (DynamoDB Streams)', () => {
  test('a REMOVE record is not poison: skipped, nothing sent, nothing in the DLQ', async () => {
    const streams = tableStreamsClient();
    const counted = testClients();
    const { sns } = counted;
    const publishes = countRequests(sns);
    const [orders, idempotency, dlq, inbox] = await Promise.all([
      pkTable(clients.dynamodb, 'orders', true),
      idempotencyTable(clients.dynamodb),
      createQueue(clients.sqs, uniqueName('notifier-dlq')),
      createQueue(clients.sqs, uniqueName('inbox')),
    ]);
    const { TopicArn = '' } = await clients.sns.send(new CreateTopicCommand({ Name: uniqueName('notifications') }));
    await subscribeQueueToTopic(clients.sns, { topicArn: TopicArn, queueArn: inbox.arn, rawMessageDelivery: true });
    const notifier = createShipmentNotifier({ topicArn: TopicArn, idempotencyTable: idempotency, dlqUrl: dlq.url, clients: { ...clients, sns }, retry: noWait });
    for (const [orderId, status] of [['r-1', 'SHIPPED'], ['r-2', 'CREATED']]) {
      const pk = `order#${orderId}`;
      await clients.dynamodb.send(new PutItemCommand({ TableName: orders.tableName, Item: { pk: { S: pk }, orderId: { S: orderId ?? '' }, status: { S: status ?? '' }, version: { N: '1' } } }));
      await clients.dynamodb.send(new DeleteItemCommand({ TableName: orders.tableName, Key: { pk: { S: pk } } }));
    }
    const changes = await readTableStream(streams, orders.streamArn ?? '');
    const removes = changes.filter((change) => change.eventName === 'REMOVE');
    expect(removes).toHaveLength(2);
    expect(removes[0]?.dynamodb?.NewImage).toBeUndefined();
    expect((await notifier(dynamoEvent(...removes), lambdaContext())).batchItemFailures).toEqual([]);
    expect(publishes.count('PublishCommand')).toBe(0);
    expect(await dlqContents(dlq.url)).toEqual([]);
    // The whole stream: one notification, for the INSERT of the shipped order; the REMOVEs add nothing.
    expect((await notifier(dynamoEvent(...changes), lambdaContext())).batchItemFailures).toEqual([]);
    const notifications = await receiveAll(clients.sqs, inbox.url, { max: 5, waitMs: 1_000 });
    expect(notifications.map((message) => JSON.parse(message.Body ?? '{}').orderId)).toEqual(['r-1']);
    expect(await itemByPk(clients.dynamodb, orders.tableName, 'order#r-1')).toBeUndefined();
    streams.destroy();
    destroyClients(counted);
  });
});
