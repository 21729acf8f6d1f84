/**
 * page-view-counter against DynamoDB Local and fauxqs: the counts stay exact under every kind of
 * duplicate, poison goes to the DLQ with its context, and transient failures come back later.
 * Throttling is injected with SDK middleware (no local engine throttles on demand); everything
 * else is the engines' own behaviour.
 */
import { GetQueueAttributesCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createPageViewCounter, type PageViewCounterConfig } from '../../example/handlers/page-view-counter';
import { createEnvelope, outgoingMessage, publishToSqs, type BatchHandler } from '../../lambdas/runtime';
import { destroyClients, type LocalClients } from '../../emulator/engines';
import { pageView, sqsEvent, sqsRecord } from '../helpers/events';
import { testClients } from '../helpers/engines';
import { countersOf, dlqFailures, idempotencyTable, pkTable, queueWithDlq, receiveAsLambdaRecords } from '../helpers/fixtures';
import { countRequests, injectFaults, serviceError } from '../helpers/sdk';

const noWait = { sleep: async () => undefined, maxAttempts: 3 };

let clients: LocalClients;
beforeAll(() => {
  clients = testClients();
});
afterAll(() => destroyClients(clients));

interface Setup {
  readonly handler: BatchHandler;
  readonly countersTable: string;
  readonly queue: { url: string; arn: string };
  readonly dlq: { url: string; arn: string };
  readonly dynamodb: DynamoDBClient;
  readonly sqs: SQSClient;
}

/** Fresh tables and queues, and a handler wired to them; `dynamodb` may carry test middleware. */
async function setUp(overrides: Partial<PageViewCounterConfig> = {}, dynamodb: DynamoDBClient = clients.dynamodb): Promise<Setup> {
  const [idempotency, counters, queues] = await Promise.all([
    idempotencyTable(clients.dynamodb),
    pkTable(clients.dynamodb, 'counters'),
    queueWithDlq(clients.sqs, 'page-views'),
  ]);
  const handler = createPageViewCounter({
    countersTable: counters.tableName,
    idempotencyTable: idempotency,
    dlqUrl: queues.dlq.url,
    sourceQueueUrl: queues.queue.url,
    maxAttempts: 5,
    clients: { ...clients, dynamodb },
    retry: noWait,
    ...overrides,
  });
  return { handler, countersTable: counters.tableName, ...queues, dynamodb, sqs: clients.sqs };
}

test('duplicates inside one batch are counted once', async () => {
  const { handler, countersTable } = await setUp();
  const home = pageView('home', 'v1');
  const about = pageView('about', 'v2');
  const response = await handler(sqsEvent(sqsRecord(home), sqsRecord(home), sqsRecord(about), sqsRecord(home)));
  expect(response.batchItemFailures).toEqual([]);
  expect(await countersOf(clients.dynamodb, countersTable)).toEqual({ 'page#home': 1, 'page#about': 1, 'day#2026-11-30': 2 });
});

test('the same batch delivered twice (crash after commit, before ack) applies once', async () => {
  const { handler, countersTable } = await setUp();
  const batch = sqsEvent(...['a', 'b', 'c'].map((page, i) => sqsRecord(pageView(page, `view-${i}`))));
  await handler(batch);
  const redelivered = await handler(batch);
  expect(redelivered.batchItemFailures).toEqual([]);
  expect(await countersOf(clients.dynamodb, countersTable)).toEqual({ 'page#a': 1, 'page#b': 1, 'page#c': 1, 'day#2026-11-30': 3 });
});

test('a producer retry (two messages, one eventId) through the real queue is counted once', async () => {
  const { handler, countersTable, queue, sqs } = await setUp();
  const view = pageView('pricing', 'retried');
  await publishToSqs(sqs, queue.url, [outgoingMessage(view), outgoingMessage(view)]);
  const records = await receiveAsLambdaRecords(sqs, queue, 2);
  expect(records).toHaveLength(2);
  expect(records[0]?.messageId).not.toEqual(records[1]?.messageId);
  // Each copy in its own batch, as two pollers would see them.
  for (const record of records) expect((await handler(sqsEvent(record))).batchItemFailures).toEqual([]);
  expect(await countersOf(clients.dynamodb, countersTable)).toEqual({ 'page#pricing': 1, 'day#2026-11-30': 1 });
});

test('a poison message goes to the DLQ with its context while the rest commit', async () => {
  const { handler, countersTable, dlq, queue } = await setUp();
  const poison = sqsRecord('{"eventId": 42}', { queueArn: queue.arn });
  const response = await handler(sqsEvent(sqsRecord(pageView('home', 'ok-1')), poison, sqsRecord(pageView('home', 'ok-2'))));
  expect(response.batchItemFailures).toEqual([]);
  expect(await countersOf(clients.dynamodb, countersTable)).toEqual({ 'page#home': 2, 'day#2026-11-30': 2 });
  const [failure, ...others] = await dlqFailures(clients.sqs, dlq.url);
  expect(others).toHaveLength(0);
  expect(failure).toMatchObject({
    format: 'effectively-once/failure',
    version: 1,
    consumer: 'page-view-counter',
    reason: 'permanent',
    error: { name: 'InvalidEnvelopeError', kind: 'permanent', details: { problem: 'wrong-type', field: 'eventId' } },
    source: { kind: 'sqs', arn: queue.arn, itemIdentifier: poison.messageId },
    original: { body: '{"eventId": 42}', encoding: 'utf8' },
  });
  expect(failure?.error.message).toMatch(/eventId must be a string/);
  expect(failure?.error.stack).toBeDefined();
});

test('a later schema is a permanent failure until the fix is deployed, then counts', async () => {
  const v2 = createEnvelope({ type: 'page.viewed', businessKey: 'v2-view', source: 'test', payload: { schemaVersion: 2, page: { id: 'docs' } }, occurredAt: '2026-11-30T12:00:00Z' });
  const before = await setUp();
  expect((await before.handler(sqsEvent(sqsRecord(v2)))).batchItemFailures).toEqual([]);
  const [failure] = await dlqFailures(clients.sqs, before.dlq.url);
  expect(failure?.error.name).toBe('SchemaViolationError');
  expect(failure?.error.message).toMatch(/ACCEPT_SCHEMA_V2/);
  const after = await setUp({ acceptSchemaV2: true });
  await after.handler(sqsEvent(sqsRecord(v2)));
  expect(await countersOf(clients.dynamodb, after.countersTable)).toEqual({ 'page#docs': 1, 'day#2026-11-30': 1 });
});

test('a transient failure is reported for redelivery and its visibility pushed out with jitter', async () => {
  const throttled = testClients().dynamodb;
  const faults = injectFaults(throttled, { commandName: 'TransactWriteItemsCommand', error: () => serviceError('ProvisionedThroughputExceededException', 400) });
  const { handler, countersTable, queue, sqs, dlq } = await setUp({ visibility: { baseSeconds: 2, capSeconds: 2, random: () => 0.75 } }, throttled);
  await publishToSqs(sqs, queue.url, [outgoingMessage(pageView('home', 'throttled'))]);
  const records = await receiveAsLambdaRecords(sqs, queue, 1);
  const response = await handler(sqsEvent(...records));
  expect(response.batchItemFailures).toEqual([{ itemIdentifier: records[0]?.messageId }]);
  expect(faults.failures).toBe(noWait.maxAttempts);
  // 0.75 of the 2 s ceiling: invisible now, visible again after about 1.5 s.
  expect(await receiveOnce(sqs, queue.url)).toBe(0);
  faults.disable();
  await new Promise((resolve) => setTimeout(resolve, 1_800));
  const again = await receiveAsLambdaRecords(sqs, queue, 1, 2_000);
  expect(again[0]?.attributes.ApproximateReceiveCount).toBe('2');
  expect((await handler(sqsEvent(...again))).batchItemFailures).toEqual([]);
  expect(await countersOf(clients.dynamodb, countersTable)).toEqual({ 'page#home': 1, 'day#2026-11-30': 1 });
  expect(await dlqFailures(sqs, dlq.url, 1, 300)).toHaveLength(0);
  destroyClients({ ...clients, dynamodb: throttled });
});

test('a transient failure on the last attempt goes to the DLQ with reason last-attempt', async () => {
  const throttled = testClients().dynamodb;
  injectFaults(throttled, { commandName: 'TransactWriteItemsCommand', error: () => serviceError('InternalServerError', 500) });
  const { handler, dlq } = await setUp({}, throttled);
  const last = sqsRecord(pageView('home', 'last'), { receiveCount: 5 });
  expect((await handler(sqsEvent(last))).batchItemFailures).toEqual([]);
  const [failure] = await dlqFailures(clients.sqs, dlq.url);
  expect(failure).toMatchObject({ reason: 'last-attempt', attempts: 5, error: { name: 'RetriesExhaustedError', kind: 'transient' } });
  destroyClients({ ...clients, dynamodb: throttled });
});

test('a failed DLQ send leaves the poison message failed, never lost', async () => {
  const { handler } = await setUp({ dlqUrl: 'http://127.0.0.1:1/000000000000/no-such-queue' });
  const poison = sqsRecord('not json');
  expect((await handler(sqsEvent(poison))).batchItemFailures).toEqual([{ itemIdentifier: poison.messageId }]);
});

test('250 records commit exactly in at most ceil(250 / 50) + 2 transactions', async () => {
  const counted = testClients().dynamodb;
  const requests = countRequests(counted);
  const { handler, countersTable } = await setUp({}, counted);
  const pages = Array.from({ length: 10 }, (_, i) => `page-${i}`);
  const views = Array.from({ length: 250 }, (_, i) => pageView(pages[i % pages.length] as string, `bulk-${i}`, i % 2 ? '2026-11-29T23:59:59Z' : '2026-11-30T00:00:00Z'));
  expect((await handler(sqsEvent(...views.map((view) => sqsRecord(view))))).batchItemFailures).toEqual([]);
  expect(requests.count('TransactWriteItemsCommand')).toBeLessThanOrEqual(Math.ceil(250 / 50) + 2);
  const counters = await countersOf(clients.dynamodb, countersTable);
  for (const page of pages) expect(counters[`page#${page}`]).toBe(25);
  expect(counters['day#2026-11-30']).toBe(125);
  expect(counters['day#2026-11-29']).toBe(125);
  destroyClients({ ...clients, dynamodb: counted });
});

test('a redelivered batch whose events were partly committed commits only the new ones', async () => {
  const { handler, countersTable } = await setUp();
  const first = Array.from({ length: 60 }, (_, i) => pageView('p', `first-${i}`));
  const second = Array.from({ length: 60 }, (_, i) => pageView('p', `second-${i}`));
  await handler(sqsEvent(...first.map((view) => sqsRecord(view))));
  const mixed = [...first.slice(0, 30), ...second, ...first.slice(30)].map((view) => sqsRecord(view));
  expect((await handler(sqsEvent(...mixed))).batchItemFailures).toEqual([]);
  expect(await countersOf(clients.dynamodb, countersTable)).toEqual({ 'page#p': 120, 'day#2026-11-30': 120 });
});

test('per-record mode gives the same exact counts', async () => {
  const { handler, countersTable } = await setUp({ mode: 'per-record' });
  const home = pageView('home', 'pr-1');
  await handler(sqsEvent(sqsRecord(home), sqsRecord(home), sqsRecord(pageView('home', 'pr-2'))));
  await handler(sqsEvent(sqsRecord(home)));
  expect(await countersOf(clients.dynamodb, countersTable)).toEqual({ 'page#home': 2, 'day#2026-11-30': 2 });
});

async function receiveOnce(sqs: SQSClient, queueUrl: string): Promise<number> {
  const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
  return Messages.length;
}

export async function depth(sqs: SQSClient, queueUrl: string): Promise<number> {
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }));
  return Number(Attributes?.ApproximateNumberOfMessages ?? 0);
}
