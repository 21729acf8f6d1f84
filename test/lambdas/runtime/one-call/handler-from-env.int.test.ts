/**
 * One-call handlers against DynamoDB Local and fauxqs: the quick start's counter in a few lines,
 * built from the environment its construct sets, behaves as the hand-built consumer does: a
 * duplicate counted once, a poison message in the DLQ with its context, the dedup TTL and the
 * attempts from the environment, nothing read before the first invocation, and the source taken
 * from the batch's records (a stream consumer that names none applies its records).
 */
import { z } from 'zod';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { destroyClients, type LocalClients } from '../../../../emulator/engines';
import { directHandler, increment, route, transactionalHandler, putIfNewer, type BatchHandler } from '../../../../lambdas/runtime';
import { ConfigurationError } from '../../../../lambdas/runtime/core/errors';
import { SourceKind } from '../../../../lambdas/runtime/decoding/records';
import { testClients } from '../../../helpers/engines';
import { kinesisEvent, kinesisRecord, pageView, sqsEvent, sqsRecord } from '../../../helpers/events';
import { countersOf, dlqFailures, idempotencyTable, pkTable, queueWithDlq } from '../../../helpers/fixtures';

const pageViewPayload = z.object({ pageId: z.string().min(1) });
const TTL_SECONDS = 3_600;

let clients: LocalClients;
beforeAll(() => {
  clients = testClients();
});
afterAll(() => destroyClients(clients));

/** The handler file of the quick start, as a user writes it with `transactionalHandler`. */
function pageViewCounter(env: Record<string, string>, source?: SourceKind): BatchHandler {
  return transactionalHandler({
    name: 'page-view-counter',
    source,
    routes: (handlerEnv) => ({ 'page.viewed': route(pageViewPayload, (event) => [increment(handlerEnv.require('COUNTERS_TABLE'), { pk: `page#${event.payload.pageId}` }, 'views')]) }),
    env,
    clients,
  });
}

/** Fresh tables and queues, and the environment a QueueConsumer with `idempotencyTable` sets. */
async function constructEnv(): Promise<{ env: Record<string, string>; counters: string; idempotency: string; queue: { url: string; arn: string }; dlq: { url: string } }> {
  const [idempotency, counters, queues] = await Promise.all([idempotencyTable(clients.dynamodb), pkTable(clients.dynamodb, 'counters'), queueWithDlq(clients.sqs, 'one-call')]);
  const env = {
    CONSUMER_NAME: 'page-view-counter',
    IDEMPOTENCY_TABLE: idempotency,
    COUNTERS_TABLE: counters.tableName,
    DLQ_URL: queues.dlq.url,
    SOURCE_QUEUE_URL: queues.queue.url,
    MAX_ATTEMPTS: '5',
    MAX_RECEIVE_COUNT: '6',
    DEDUP_TTL_SECONDS: String(TTL_SECONDS),
  };
  return { env, counters: counters.tableName, idempotency, ...queues };
}

test('a duplicate is counted once, and the dedup record expires after the TTL the construct set', async () => {
  const { env, counters, idempotency } = await constructEnv();
  const handler = pageViewCounter(env);
  const view = pageView('home', 'v1');
  expect((await handler(sqsEvent(sqsRecord(view), sqsRecord(view), sqsRecord(pageView('about', 'v2'))))).batchItemFailures).toEqual([]);
  expect((await handler(sqsEvent(sqsRecord(view)))).batchItemFailures).toEqual([]);
  expect(await countersOf(clients.dynamodb, counters)).toEqual({ 'page#home': 1, 'page#about': 1 });
  const record = await clients.dynamodb.send(new GetItemCommand({ TableName: idempotency, Key: { id: { S: `page-view-counter#${view.eventId}` } } }));
  const expiration = Number(record.Item?.expiration?.N);
  expect(expiration - Date.now() / 1000).toBeGreaterThan(TTL_SECONDS - 120);
  expect(expiration - Date.now() / 1000).toBeLessThanOrEqual(TTL_SECONDS + 1);
});

test('a poison message goes to the DLQ the construct named, with its context, while the rest commit', async () => {
  const { env, counters, queue, dlq } = await constructEnv();
  const poison = sqsRecord('{"eventId": 42}', { queueArn: queue.arn });
  const response = await pageViewCounter(env)(sqsEvent(sqsRecord(pageView('home', 'ok-1')), poison));
  expect(response.batchItemFailures).toEqual([]);
  expect(await countersOf(clients.dynamodb, counters)).toEqual({ 'page#home': 1 });
  const [failure, ...others] = await dlqFailures(clients.sqs, dlq.url);
  expect(others).toEqual([]);
  expect(failure).toMatchObject({ consumer: 'page-view-counter', reason: 'permanent', source: { kind: 'sqs', arn: queue.arn, itemIdentifier: poison.messageId } });
});

test('nothing is read before the first invocation; a missing variable is named then', async () => {
  let routesBuilt = 0;
  const handler = transactionalHandler({ name: 'c', routes: () => ((routesBuilt += 1), {}), env: {}, clients });
  expect(routesBuilt).toBe(0);
  await expect(handler(sqsEvent(sqsRecord(pageView('home'))))).rejects.toThrow(new ConfigurationError('environment variable IDEMPOTENCY_TABLE is required but not set'));
});

test('directHandler: handlers that write themselves, with the DLQ and attempts of the environment', async () => {
  const { env, counters } = await constructEnv();
  const handler = directHandler({
    name: 'page-latest',
    routes: (handlerEnv) => ({ 'page.viewed': route(pageViewPayload, (event) => putIfNewer(handlerEnv.clients.dynamodb, { table: handlerEnv.require('COUNTERS_TABLE'), item: { pk: `latest#${event.payload.pageId}`, version: 1, eventId: event.eventId } })) }),
    env,
    clients,
  });
  expect((await handler(sqsEvent(sqsRecord(pageView('home', 'v1')), sqsRecord(pageView('home', 'v1'))))).batchItemFailures).toEqual([]);
  const item = await clients.dynamodb.send(new GetItemCommand({ TableName: counters, Key: { pk: { S: 'latest#home' } } }));
  expect(item.Item?.version?.N).toBe('1');
});

describe('the source', () => {
  test("a stream consumer that names no source takes it from the records' eventSource: its records apply, none is dead-lettered", async () => {
    const { env, counters, dlq } = await constructEnv();
    const handler = pageViewCounter(env);
    const response = await handler(kinesisEvent(kinesisRecord(pageView('home', 'k1')), kinesisRecord(pageView('home', 'k2'))));
    expect(response.batchItemFailures).toEqual([]);
    expect(await countersOf(clients.dynamodb, counters)).toEqual({ 'page#home': 2 });
    expect(await dlqFailures(clients.sqs, dlq.url)).toEqual([]);
  });

  test('a batch of another source than the named one fails the invocation: nothing applied, nothing dead-lettered', async () => {
    const { env, counters, dlq } = await constructEnv();
    const handler = pageViewCounter(env, SourceKind.SQS);
    await expect(handler(kinesisEvent(kinesisRecord(pageView('home', 'k1'))))).rejects.toThrow(
      new ConfigurationError(
        "this consumer decodes sqs records, but the batch came from kinesis: set the handler's source to SourceKind.KINESIS, or leave it out so that the batch's eventSource decides; the invocation fails, so nothing is dead-lettered",
      ),
    );
    expect(await countersOf(clients.dynamodb, counters)).toEqual({});
    expect(await dlqFailures(clients.sqs, dlq.url)).toEqual([]);
  });

  test('records that carry no eventSource need the source named', async () => {
    const { env } = await constructEnv();
    const bare: Partial<ReturnType<typeof sqsRecord>> = sqsRecord(pageView('home', 'v1'));
    delete bare.eventSource;
    await expect(pageViewCounter(env)({ Records: [bare] } as never)).rejects.toThrow(/carry no eventSource .*name the handler's source/);
    expect((await pageViewCounter(env, SourceKind.SQS)({ Records: [bare] } as never)).batchItemFailures).toEqual([]);
  });
});
