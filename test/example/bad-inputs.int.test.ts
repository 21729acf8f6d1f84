/**
 * The bad-input catalogue (docs/reliability.md, "Bad inputs"), one test per row, against fauxqs,
 * DynamoDB Local and kinesalite: the page-view-counter's poison. Each poison travels through a real
 * queue between good events; the DLQ must hold it with a context that names what is wrong, the
 * good events must be committed, and nothing else may be lost. The duplicates of a broken producer
 * and the stream consumers' rows are in bad-inputs-duplicates and bad-inputs-streams.
 */
import { Metrics } from '@aws-lambda-powertools/metrics';
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, type MessageAttributeValue } from '@aws-sdk/client-sqs';
import { createPageViewCounter } from '../../example/handlers/page-view-counter';
import { createEnvelope, outgoingMessage, publishToSqs } from '../../lambdas/runtime';
import { ATTRIBUTE_CONTEXT_FORMAT } from '../../aws/dlq-format';
import { dedupKey } from '../../lambdas/runtime/stores/dynamodb/dedup-record';
import { destroyClients, type LocalClients } from '../../emulator/engines';
import { pageView, sqsEvent } from '../helpers/events';
import { receiveAll, testClients, type CreatedQueue } from '../helpers/engines';
import { countersOf, idempotencyTable, receiveAsLambdaRecords } from '../helpers/fixtures';
import { pollUntil } from '../helpers/poll';
import { countRequests } from '../helpers/sdk';
import { BAD_ENVELOPE_FIELDS, BAD_EVENT_IDS, NOT_AN_ENVELOPE, pageViewBody, SCHEMA_VIOLATIONS, type PoisonCase } from './bad-input-cases';
import { badInputHelpers, noWait, observabilitySpies, recordWithBody, SQS_LIMIT_BYTES, TWO_COUNTED, twoGoodViews } from './bad-input-setup';

let clients: LocalClients;
beforeAll(() => {
  clients = testClients();
});
afterAll(() => destroyClients(clients));
afterEach(() => jest.restoreAllMocks());
const { counterSetUp, deliver, deliverQueued, sweep, dlqContents } = badInputHelpers(() => clients);

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
      'eo-first-sent-at': expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
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
