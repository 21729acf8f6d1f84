/**
 * The bad-input catalogue (docs/reliability.md, "Bad inputs"), one test per row, against fauxqs,
 * DynamoDB Local and kinesalite. Each poison travels through a real queue or stream between good
 * events; the DLQ must hold it with a context that names what is wrong, the good events must be
 * committed, and nothing else may be lost.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DeleteItemCommand, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { PutRecordsCommand } from '@aws-sdk/client-kinesis';
import { CreateTopicCommand } from '@aws-sdk/client-sns';
import { ChangeMessageVisibilityCommand, ReceiveMessageCommand, SendMessageCommand, type Message, type MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { createOrderProjection, orderKey } from '../../example/handlers/order-projection';
import { createPageViewCounter, type PageViewCounterConfig } from '../../example/handlers/page-view-counter';
import { createShipmentNotifier } from '../../example/handlers/shipment-notifier';
import { createEnvelope, outgoingMessage, publishToSqs, type BatchHandler, type OutgoingMessage } from '../../lambdas/runtime';
import { ATTRIBUTE_CONTEXT_FORMAT, isFailureEnvelope, type FailureEnvelope } from '../../aws/dlq-format';
import { dedupKey } from '../../lambdas/runtime/dedup-record';
import { MetricName } from '../../lambdas/runtime/observability';
import { destroyClients, type LocalClients } from '../../emulator/engines';
import { dynamoEvent, kinesisEvent, lambdaContext, orderStatus, pageView, sqsEvent } from '../helpers/events';
import { createQueue, createStream, receiveAll, subscribeQueueToTopic, testClients, uniqueName, type CreatedQueue, type CreatedStream } from '../helpers/engines';
import { countersOf, idempotencyTable, itemByPk, pkTable, receiveAsLambdaRecords } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import { countRequests } from '../helpers/sdk';
import { readKinesis, readTableStream, tableStreamsClient } from '../helpers/streams';
import { BAD_ENVELOPE_FIELDS, BAD_EVENT_IDS, KINESIS_POISON, NOT_AN_ENVELOPE, pageViewBody, SCHEMA_VIOLATIONS, type PoisonCase } from './bad-input-cases';

/** SQS's limit on a message: the body plus every attribute's name, type and value. */
const SQS_LIMIT_BYTES = 1_048_576;
const noWait = { sleep: async () => undefined, maxAttempts: 3 };

let clients: LocalClients;
beforeAll(() => {
  clients = testClients();
});
afterAll(() => destroyClients(clients));
afterEach(() => jest.restoreAllMocks());

/** Every consumer's metrics and error log lines (Powertools is silenced in tests, but still called). */
function observabilitySpies() {
  const metrics = jest.spyOn(Metrics.prototype, 'addMetric');
  const errors = jest.spyOn(Logger.prototype, 'error');
  return {
    conflicts: () => metrics.mock.calls.filter(([name]) => name === MetricName.CONFLICTING_DUPLICATES).reduce((sum, [, , value]) => sum + value, 0),
    errors: () => errors.mock.calls,
  };
}

interface CounterSetup {
  readonly handler: BatchHandler;
  readonly countersTable: string;
  readonly idempotencyTable: string;
  readonly queue: CreatedQueue;
  readonly dlq: CreatedQueue;
}

/** Fresh tables and queues for a page-view-counter, whose DLQ is also the queue's redrive target. */
async function counterSetUp(overrides: Partial<PageViewCounterConfig> = {}, maxReceiveCount = 6): Promise<CounterSetup> {
  const dlq = await createQueue(clients.sqs, uniqueName('bad-inputs-dlq'));
  const [idempotency, counters, queue] = await Promise.all([
    idempotencyTable(clients.dynamodb),
    pkTable(clients.dynamodb, 'counters'),
    createQueue(clients.sqs, uniqueName('bad-inputs'), { VisibilityTimeout: '30', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount }) }),
  ]);
  const config = { countersTable: counters.tableName, idempotencyTable: idempotency, dlqUrl: dlq.url, sourceQueueUrl: queue.url, maxAttempts: 5, clients, retry: noWait };
  return { handler: createPageViewCounter({ ...config, ...overrides }), countersTable: counters.tableName, idempotencyTable: idempotency, queue, dlq };
}

/** Sends the messages through the real queue and hands the consumer all of them in one batch, as Lambda would. */
async function deliver(setup: CounterSetup, messages: readonly OutgoingMessage[]) {
  await publishToSqs(clients.sqs, setup.queue.url, messages);
  return deliverQueued(setup, messages.length);
}

async function deliverQueued(setup: CounterSetup, count: number) {
  const records = await receiveAsLambdaRecords(clients.sqs, setup.queue, count);
  expect(records).toHaveLength(count);
  return { records, response: await setup.handler(sqsEvent(...records)) };
}

/** What a queue holds now, received once each. The handler awaited its DLQ sends, so one sweep of short polls finds them all. */
async function sweep(queueUrl: string): Promise<Message[]> {
  const received: Message[] = [];
  for (;;) {
    const { Messages = [] } = await clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, MessageAttributeNames: ['All'] }));
    if (Messages.length === 0) return received;
    received.push(...Messages);
  }
}

/** The DLQ's failure wrappers; anything else there fails the test. */
async function dlqContents(queueUrl: string): Promise<FailureEnvelope[]> {
  return (await sweep(queueUrl)).map((message) => {
    const body: unknown = JSON.parse(message.Body ?? '');
    if (!isFailureEnvelope(body)) throw new Error(`DLQ message is not a failure wrapper: ${message.Body?.slice(0, 200)}`);
    return body;
  });
}

function recordWithBody(records: readonly SQSRecord[], body: string): SQSRecord {
  const found = records.find((record) => record.body === body);
  if (!found) throw new Error(`no record with body ${body.slice(0, 80)}`);
  return found;
}

const twoGoodViews = () => [pageView('good', 'a'), pageView('good', 'b')];
const TWO_COUNTED = { 'page#good': 2, 'day#2026-11-30': 2 };

describe.each([
  ['a body that is not an envelope', NOT_AN_ENVELOPE],
  ['an unusable eventId', BAD_EVENT_IDS],
  ['a bad envelope field', BAD_ENVELOPE_FIELDS],
  ['a payload schema violation', SCHEMA_VIOLATIONS],
])('page-view-counter, %s', (_group, cases) => {
  test.each(cases)('$kind: $name in the DLQ with its context, the good events counted', async (poisonCase: PoisonCase) => {
    const setup = await counterSetUp();
    const [first, second] = twoGoodViews();
    const { records, response } = await deliver(setup, [outgoingMessage(first!), { body: poisonCase.body }, outgoingMessage(second!)]);
    expect(response.batchItemFailures).toEqual([]);
    expect(await countersOf(clients.dynamodb, setup.countersTable)).toEqual(TWO_COUNTED);
    const [failure, ...others] = await dlqContents(setup.dlq.url);
    expect(others).toEqual([]);
    expect(failure).toMatchObject({
      consumer: 'page-view-counter',
      reason: 'permanent',
      attempts: 1,
      error: { name: poisonCase.name, kind: 'permanent', details: poisonCase.details },
      source: { kind: 'sqs', arn: setup.queue.arn, itemIdentifier: recordWithBody(records, poisonCase.body).messageId },
      original: { body: poisonCase.body, encoding: 'utf8' },
    });
    expect(failure?.error.message).toMatch(poisonCase.message);
    expect(failure?.error.stack).toContain(poisonCase.name);
    // An envelope that parsed carries its event id into the context, so triage can search by it.
    if (poisonCase.name !== 'InvalidEnvelopeError') expect(failure?.eventId).toBe(JSON.parse(poisonCase.body).eventId);
  });
});

describe('page-view-counter, the eventId size limit', () => {
  test('an eventId of 256 visible ASCII characters is counted; its dedup key is far below the 2048-byte key limit', async () => {
    const setup = await counterSetUp();
    const eventId = `${'e'.repeat(255)}~`;
    const body = pageViewBody({ eventId, payload: { pageId: 'longest-id' } });
    const { response } = await deliver(setup, [{ body }]);
    expect(response.batchItemFailures).toEqual([]);
    expect(await countersOf(clients.dynamodb, setup.countersTable)).toEqual({ 'page#longest-id': 1, 'day#2026-11-30': 1 });
    const key = dedupKey('page-view-counter', eventId);
    expect(Buffer.byteLength(key)).toBe(274);
    const { Item } = await clients.dynamodb.send(new GetItemCommand({ TableName: setup.idempotencyTable, Key: { id: { S: key } }, ConsistentRead: true }));
    expect(Item?.id?.S).toBe(key);
  });

  test('DynamoDB refuses a partition key over 2048 bytes, the limit the eventId limit keeps us under', async () => {
    const table = await idempotencyTable(clients.dynamodb);
    const put = (id: string) => clients.dynamodb.send(new PutItemCommand({ TableName: table, Item: { id: { S: id } } }));
    await expect(put('k'.repeat(2048))).resolves.toBeDefined();
    await expect(put('k'.repeat(2049))).rejects.toMatchObject({ name: 'ValidationException', message: expect.stringMatching(/2048/) });
  });
});

describe('page-view-counter, bodies at the SQS size limit', () => {
  /** A schema-violating page view of exactly `bytes` bytes: its pageId fills the room. */
  function bodyOfSize(bytes: number, eventId: string): string {
    const room = bytes - Buffer.byteLength(pageViewBody({ eventId, payload: { pageId: '' } }));
    return pageViewBody({ eventId, payload: { pageId: 'x'.repeat(room) } });
  }

  async function sendOne(queue: CreatedQueue, body: string, attributes?: Record<string, MessageAttributeValue>): Promise<void> {
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: body, MessageAttributes: attributes }));
  }

  test('a poison body 2 KiB under the limit: the wrapper cannot fit, so the DLQ gets the original body with the context in eo-* attributes', async () => {
    const setup = await counterSetUp();
    const eventId = 'evt-large-poison';
    const body = bodyOfSize(SQS_LIMIT_BYTES - 2_048, eventId);
    await sendOne(setup.queue, body, { eventId: { DataType: 'String', StringValue: eventId } });
    await publishToSqs(clients.sqs, setup.queue.url, twoGoodViews().map((view) => outgoingMessage(view)));
    const { records, response } = await deliverQueued(setup, 3);
    expect(response.batchItemFailures).toEqual([]);
    expect(await countersOf(clients.dynamodb, setup.countersTable)).toEqual(TWO_COUNTED);
    const [dead, ...others] = await sweep(setup.dlq.url);
    expect(others).toEqual([]);
    expect(dead?.Body).toBe(body);
    const attributes = Object.fromEntries(Object.entries(dead?.MessageAttributes ?? {}).map(([name, value]) => [name, value.StringValue]));
    expect(attributes).toEqual({
      'eo-format': ATTRIBUTE_CONTEXT_FORMAT,
      'eo-consumer': 'page-view-counter',
      'eo-error-name': 'SchemaViolationError',
      'eo-error-message': 'payload of "page.viewed" violates its schema: pageId: Too big: expected string to have <=512 characters',
      'eo-reason': 'permanent',
      'eo-event-id': eventId,
      'eo-attempts': '1',
      'eo-failed-at': expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    expect(recordWithBody(records, body).messageAttributes.eventId?.stringValue).toBe(eventId);
  });

  test('a poison body of exactly 1 MiB fits in no DLQ message: it stays failed, and the redrive policy moves it to the DLQ unchanged', async () => {
    const logged = observabilitySpies();
    const setup = await counterSetUp({ visibility: { baseSeconds: 1, capSeconds: 1, random: () => 0.5 } }, 1);
    const body = bodyOfSize(SQS_LIMIT_BYTES, 'evt-one-mebibyte');
    await sendOne(setup.queue, body);
    await publishToSqs(clients.sqs, setup.queue.url, twoGoodViews().map((view) => outgoingMessage(view)));
    const { records, response } = await deliverQueued(setup, 3);
    const poison = recordWithBody(records, body);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: poison.messageId }]);
    expect(await countersOf(clients.dynamodb, setup.countersTable)).toEqual(TWO_COUNTED);
    expect(logged.errors()).toContainEqual(['DLQ send failed: record reported for redelivery', expect.objectContaining({ eventId: 'evt-one-mebibyte', error: expect.stringMatching(/shorter than 1048576 bytes/) })]);
    // Visible again after 1 s; the next receive exceeds maxReceiveCount 1 and fauxqs moves it, as SQS does.
    const moved = await pollUntil(async () => {
      await receiveAll(clients.sqs, setup.queue.url, { max: 1, waitMs: 200, deleteMessages: false });
      const [message] = await receiveAll(clients.sqs, setup.dlq.url, { max: 1, waitMs: 200 });
      return message;
    }, 'the redrive policy to move the message', { timeoutMs: 10_000, intervalMs: 200 });
    expect(moved.MessageId).toBe(poison.messageId);
    expect(moved.Body).toBe(body);
  });
});

describe('page-view-counter, duplicate eventIds with different payloads (the producer is broken)', () => {
  const sameIdOtherPage = (pageId: string) => createEnvelope({ type: 'page.viewed', businessKey: 'reused-key', source: 'test', payload: { pageId }, occurredAt: '2026-11-30T10:00:00Z' });

  test('in one batch: the first wins, and the twin is flagged by metric and error log', async () => {
    const spies = observabilitySpies();
    const setup = await counterSetUp();
    const { response } = await deliver(setup, [outgoingMessage(sameIdOtherPage('first')), outgoingMessage(sameIdOtherPage('second')), outgoingMessage(pageView('good', 'a'))]);
    expect(response.batchItemFailures).toEqual([]);
    expect(await countersOf(clients.dynamodb, setup.countersTable)).toEqual({ 'page#first': 1, 'page#good': 1, 'day#2026-11-30': 2 });
    expect(spies.conflicts()).toBe(1);
    expect(spies.errors()).toEqual([[expect.stringMatching(/different payload in one batch: the producer is broken/), { eventId: sameIdOtherPage('x').eventId }]]);
    expect(await dlqContents(setup.dlq.url)).toEqual([]);
  });

  test("across batches: the dedup record's payloadHash flags the later one, which changes nothing", async () => {
    const spies = observabilitySpies();
    const setup = await counterSetUp();
    await deliver(setup, [outgoingMessage(sameIdOtherPage('first'))]);
    expect(spies.conflicts()).toBe(0);
    const { records, response } = await deliver(setup, [outgoingMessage(sameIdOtherPage('second')), outgoingMessage(pageView('good', 'a'))]);
    expect(response.batchItemFailures).toEqual([]);
    expect(await countersOf(clients.dynamodb, setup.countersTable)).toEqual({ 'page#first': 1, 'page#good': 1, 'day#2026-11-30': 2 });
    expect(spies.conflicts()).toBe(1);
    const itemIdentifier = recordWithBody(records, JSON.stringify(sameIdOtherPage('second'))).messageId;
    expect(spies.errors()).toEqual([[expect.stringMatching(/different payload: the producer is broken/), { eventId: sameIdOtherPage('x').eventId, itemIdentifier }]]);
  });

  test('across batches, arriving as a redelivery beside fresh events: flagged too', async () => {
    const spies = observabilitySpies();
    const setup = await counterSetUp();
    await deliver(setup, [outgoingMessage(sameIdOtherPage('first'))]);
    const conflicting = JSON.stringify(sameIdOtherPage('second'));
    await publishToSqs(clients.sqs, setup.queue.url, [{ body: conflicting }]);
    const [firstReceive] = await receiveAsLambdaRecords(clients.sqs, setup.queue, 1);
    await clients.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: setup.queue.url, ReceiptHandle: firstReceive?.receiptHandle, VisibilityTimeout: 0 }));
    await publishToSqs(clients.sqs, setup.queue.url, [outgoingMessage(pageView('good', 'a'))]);
    const { records, response } = await deliverQueued(setup, 2);
    expect(recordWithBody(records, conflicting).attributes.ApproximateReceiveCount).toBe('2');
    expect(response.batchItemFailures).toEqual([]);
    expect(await countersOf(clients.dynamodb, setup.countersTable)).toEqual({ 'page#first': 1, 'page#good': 1, 'day#2026-11-30': 2 });
    expect(spies.conflicts()).toBe(1);
    expect(spies.errors()).toEqual([[expect.stringMatching(/different payload: the producer is broken/), expect.objectContaining({ eventId: sameIdOtherPage('x').eventId })]]);
  });

  test('an honest producer retry (same payload) is a plain duplicate, not flagged', async () => {
    const spies = observabilitySpies();
    const setup = await counterSetUp();
    const view = pageView('retried', 'once');
    await deliver(setup, [outgoingMessage(view), outgoingMessage(view)]);
    await deliver(setup, [outgoingMessage(view)]);
    expect(await countersOf(clients.dynamodb, setup.countersTable)).toEqual({ 'page#retried': 1, 'day#2026-11-30': 1 });
    expect(spies.conflicts()).toBe(0);
  });
});

describe('page-view-counter, whole batches', () => {
  test('an empty batch (and an event without Records) succeeds and calls nothing', async () => {
    const counted = testClients();
    const { dynamodb, sqs } = counted;
    const [tableCalls, queueCalls] = [countRequests(dynamodb), countRequests(sqs)];
    const setup = await counterSetUp();
    const handler = createPageViewCounter({ countersTable: setup.countersTable, idempotencyTable: setup.idempotencyTable, dlqUrl: setup.dlq.url, clients: { ...clients, dynamodb, sqs } });
    // Only an empty batch publishes no metric at all, and Powertools warns about that on stdout.
    jest.spyOn(Metrics.prototype, 'publishStoredMetrics').mockReturnThis();
    expect(await handler({ Records: [] })).toEqual({ batchItemFailures: [] });
    expect(await handler({} as never)).toEqual({ batchItemFailures: [] });
    expect(tableCalls.total() + queueCalls.total()).toBe(0);
    destroyClients(counted);
  });

  test('a batch of only poison: every record in the DLQ with its context, no transaction sent', async () => {
    const counted = testClients();
    const { dynamodb } = counted;
    const transactions = countRequests(dynamodb);
    const setup = await counterSetUp();
    const handler = createPageViewCounter({ countersTable: setup.countersTable, idempotencyTable: setup.idempotencyTable, dlqUrl: setup.dlq.url, clients: { ...clients, dynamodb }, retry: noWait });
    const poison = [NOT_AN_ENVELOPE[0], BAD_EVENT_IDS[0], BAD_ENVELOPE_FIELDS[0], SCHEMA_VIOLATIONS[0]] as PoisonCase[];
    await publishToSqs(clients.sqs, setup.queue.url, poison.map(({ body }) => ({ body })));
    const records = await receiveAsLambdaRecords(clients.sqs, setup.queue, poison.length);
    expect((await handler(sqsEvent(...records))).batchItemFailures).toEqual([]);
    expect(transactions.count('TransactWriteItemsCommand')).toBe(0);
    expect(await countersOf(clients.dynamodb, setup.countersTable)).toEqual({});
    const failures = await dlqContents(setup.dlq.url);
    expect(failures.map((failure) => failure.error.name).sort()).toEqual(poison.map((row) => row.name).sort());
    expect(failures.map((failure) => failure.original.body).sort()).toEqual(poison.map((row) => row.body).sort());
    destroyClients(counted);
  });

  test('a schema-2 page view before the fix goes to the DLQ; redriven after the fix, it is counted once', async () => {
    const setup = await counterSetUp();
    const v2 = createEnvelope({ type: 'page.viewed', businessKey: 'v2-view', source: 'test', payload: { schemaVersion: 2, page: { id: 'docs' } }, occurredAt: '2026-11-30T12:00:00Z' });
    const { response } = await deliver(setup, [outgoingMessage(v2), outgoingMessage(pageView('good', 'a'))]);
    expect(response.batchItemFailures).toEqual([]);
    const [failure] = await dlqContents(setup.dlq.url);
    expect(failure).toMatchObject({ eventId: v2.eventId, error: { name: 'SchemaViolationError', details: { issues: [expect.stringMatching(/^schemaVersion: 2 is not accepted yet/)] } } });
    const fixed = createPageViewCounter({ countersTable: setup.countersTable, idempotencyTable: setup.idempotencyTable, acceptSchemaV2: true, clients, retry: noWait });
    await publishToSqs(clients.sqs, setup.queue.url, [{ body: failure?.original.body ?? '' }, { body: failure?.original.body ?? '' }]);
    const redriven = await receiveAsLambdaRecords(clients.sqs, setup.queue, 2);
    expect((await fixed(sqsEvent(...redriven))).batchItemFailures).toEqual([]);
    expect(await countersOf(clients.dynamodb, setup.countersTable)).toEqual({ 'page#good': 1, 'page#docs': 1, 'day#2026-11-30': 2 });
  });
});

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

  test('poison data over 768 KiB fits no DLQ message once base64-encoded: reported from there on, so the mapping retries it and then gives up to its on-failure destination', async () => {
    const { dlq, records, response, applied } = await projectBetweenGoodOrders(Buffer.alloc(800 * 1024, 0xff));
    expect(response.batchItemFailures).toEqual(records.slice(1).map((record) => ({ itemIdentifier: record.kinesis.sequenceNumber })));
    expect(applied).toEqual(['CREATED', 'PAID']);
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
