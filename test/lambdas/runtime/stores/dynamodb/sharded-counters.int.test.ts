/**
 * Sharded counters end to end on DynamoDB Local: a consumer (batch and per-record mode) adds every
 * page view to a day counter spread over 8 shards, under duplicates inside a batch and a whole
 * batch delivered again, and `readCounter` sums the shards back to the exact count; each
 * consumer's committer keeps to the shard of its lane. The reads run
 * on the engine too, except the one answer DynamoDB Local never gives (`UnprocessedKeys`), which a
 * fake client gives instead.
 */
import { BatchGetItemCommand, PutItemCommand, ScanCommand, type AttributeValue, type BatchGetItemCommandInput, type DynamoDBClient, type KeysAndAttributes } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { z } from 'zod';
import { createConsumer, increment, readCounter, route, SourceKind, transactionalStrategy, TransientError, unshardedValue, type BatchHandler } from '../../../../../lambdas/runtime';
import { destroyClients, type LocalClients } from '../../../../../emulator/engines';
import { pageView, sqsEvent, sqsRecord } from '../../../../helpers/events';
import { testClients } from '../../../../helpers/engines';
import { asClient, FakeClient, recordingObservability, recordingSleep, type RecordedCommand } from '../../../../helpers/fakes';
import { idempotencyTable, pkTable } from '../../../../helpers/fixtures';
import { countRequests } from '../../../../helpers/sdk';

const SHARDS = 8;
/** The UTC day of `pageView`'s default `occurredAt`. */
const DAY = 'day#2026-11-30';
const noWait = { sleep: async () => undefined, maxAttempts: 5 };

let clients: LocalClients;
beforeAll(() => {
  clients = testClients();
});
afterAll(() => destroyClients(clients));

interface Setup {
  readonly handler: BatchHandler;
  readonly table: string;
}

/** Fresh tables and a consumer that adds each page view to the day counter, over `SHARDS` shards. */
async function setUp(mode: 'batch' | 'per-record'): Promise<Setup> {
  const [idempotency, counters] = await Promise.all([idempotencyTable(clients.dynamodb), pkTable(clients.dynamodb, 'counters')]);
  const table = counters.tableName;
  return { handler: dayCounterConsumer(mode, idempotency, table), table };
}

/** A consumer of the day counter; `lane` (in [0, 1)) fixes the shard lane its committer draws. */
function dayCounterConsumer(mode: 'batch' | 'per-record', idempotency: string, table: string, lane?: number): BatchHandler {
  return createConsumer({
    name: 'day-counter',
    source: SourceKind.SQS,
    routes: {
      'page.viewed': route(z.object({ pageId: z.string() }), (event) => [increment(table, { pk: `day#${event.occurredAt.slice(0, 10)}` }, 'views', 1, { shards: SHARDS })]),
    },
    strategy: transactionalStrategy({ dynamodb: clients.dynamodb, mode, dedup: { table: idempotency, consumer: 'day-counter' }, retry: noWait, random: lane === undefined ? undefined : () => lane }),
    observability: recordingObservability(),
  });
}

/** `count` distinct views, `view-<from>` onwards, each as an SQS record received `receiveCount` times. */
function viewRecords(count: number, from = 0, receiveCount = 1): ReturnType<typeof sqsRecord>[] {
  return Array.from({ length: count }, (_, offset) => sqsRecord(pageView(`p${(from + offset) % 7}`, `view-${from + offset}`), { receiveCount }));
}

async function scanViews(table: string): Promise<Map<string, number>> {
  const { Items = [] } = await clients.dynamodb.send(new ScanCommand({ TableName: table, ConsistentRead: true }));
  return new Map(Items.map((item) => unmarshall(item)).map((item) => [String(item.pk), Number(item.views)]));
}

function dayCounter(table: string, consistent = false): Promise<number> {
  return readCounter(clients.dynamodb, { table, key: { pk: DAY }, attribute: 'views', shards: SHARDS, consistent });
}

describe.each(['batch', 'per-record'] as const)('%s mode, a day counter over 8 shards', (mode) => {
  test('duplicates in a batch and the batch delivered again: readCounter gives the number of distinct events', async () => {
    const { handler, table } = await setUp(mode);
    const fresh = viewRecords(250);
    // Each of the first ten views arrives twice more in the same batch, under new message ids.
    const copies = fresh.slice(0, 10).flatMap((record) => [sqsRecord(JSON.parse(record.body)), sqsRecord(JSON.parse(record.body))]);
    expect((await handler(sqsEvent(...fresh, ...copies))).batchItemFailures).toEqual([]);
    // Delivered again (a crash after the commit, before the ack), together with 30 new views.
    const again = [...fresh.map((record) => ({ ...record, attributes: { ...record.attributes, ApproximateReceiveCount: '2' } })), ...viewRecords(30, 250)];
    expect((await handler(sqsEvent(...again))).batchItemFailures).toEqual([]);

    expect(await dayCounter(table)).toBe(280);
    const items = await scanViews(table);
    expect([...items.keys()].every((pk) => new RegExp(`^${DAY}#shard-[0-${SHARDS - 1}]$`).test(pk))).toBe(true);
    expect(items.size).toBeLessThanOrEqual(SHARDS);
    expect([...items.values()].reduce((sum, views) => sum + views, 0)).toBe(280);
    expect(new Set([...items.keys()].map(unshardedValue))).toEqual(new Set([DAY]));
  });

  test('a counter that counted before it was sharded keeps its count', async () => {
    const { handler, table } = await setUp(mode);
    await clients.dynamodb.send(new PutItemCommand({ TableName: table, Item: marshall({ pk: DAY, views: 5 }) }));
    expect((await handler(sqsEvent(...viewRecords(40)))).batchItemFailures).toEqual([]);

    expect(await dayCounter(table)).toBe(45);
    const items = await scanViews(table);
    expect(items.get(DAY)).toBe(5);
    expect(items.size).toBeGreaterThan(1);
  });
});

test.each(['batch', 'per-record'] as const)('%s mode: one consumer writes the one shard of its lane; two consumers on other lanes write two', async (mode) => {
  const [idempotency, counters] = await Promise.all([idempotencyTable(clients.dynamodb), pkTable(clients.dynamodb, 'counters')]);
  const table = counters.tableName;
  const onShard = (shard: number) => dayCounterConsumer(mode, idempotency, table, (shard + 0.5) / 2 ** 30);
  await onShard(3)(sqsEvent(...viewRecords(60)));
  expect([...(await scanViews(table)).keys()]).toEqual([`${DAY}#shard-3`]);

  await Promise.all([onShard(3)(sqsEvent(...viewRecords(30, 60))), onShard(6)(sqsEvent(...viewRecords(30, 90)))]);
  expect(await scanViews(table)).toEqual(new Map([[`${DAY}#shard-3`, 90], [`${DAY}#shard-6`, 30]]));
  expect(await dayCounter(table)).toBe(120);
});

describe('readCounter on the engine', () => {
  test('a strongly consistent read asks for one, and reads the count just committed', async () => {
    const { handler, table } = await setUp('batch');
    const dynamodb = testClients().dynamodb;
    const inputs: BatchGetItemCommandInput[] = [];
    dynamodb.middlewareStack.add((next, context) => async (args) => {
      if (context.commandName === 'BatchGetItemCommand') inputs.push(args.input as BatchGetItemCommandInput);
      return next(args);
    }, { step: 'initialize' });
    try {
      await handler(sqsEvent(...viewRecords(12)));
      expect(await readCounter(dynamodb, { table, key: { pk: DAY }, attribute: 'views', shards: SHARDS, consistent: true })).toBe(12);
      expect(inputs.map((input) => input.RequestItems?.[table]?.ConsistentRead)).toEqual([true]);
      expect(await readCounter(dynamodb, { table, key: { pk: DAY }, attribute: 'views', shards: SHARDS })).toBe(12);
      expect(inputs[1]?.RequestItems?.[table]?.ConsistentRead).toBe(false);
    } finally {
      dynamodb.destroy();
    }
  });

  test('250 shards: 251 keys in three requests of at most 100, absent shards counting 0', async () => {
    const table = (await pkTable(clients.dynamodb, 'counters')).tableName;
    const stored = { [DAY]: 1, [`${DAY}#shard-0`]: 10, [`${DAY}#shard-99`]: 100, [`${DAY}#shard-249`]: 1000, [`${DAY}#shard-250`]: 10_000, 'day#2026-12-01#shard-3': 100_000 };
    for (const [pk, views] of Object.entries(stored)) await clients.dynamodb.send(new PutItemCommand({ TableName: table, Item: marshall({ pk, views }) }));
    const dynamodb = testClients().dynamodb;
    const requests = countRequests(dynamodb);
    try {
      // shard-250 is above the count and the other day is another counter: neither is read.
      expect(await readCounter(dynamodb, { table, key: { pk: DAY }, attribute: 'views', shards: 250 })).toBe(1111);
      expect(requests.count('BatchGetItemCommand')).toBe(3);
    } finally {
      dynamodb.destroy();
    }
  });

  test('an unsharded read is the item itself', async () => {
    const table = (await pkTable(clients.dynamodb, 'counters')).tableName;
    await clients.dynamodb.send(new PutItemCommand({ TableName: table, Item: marshall({ pk: DAY, views: 7 }) }));
    await clients.dynamodb.send(new PutItemCommand({ TableName: table, Item: marshall({ pk: `${DAY}#shard-0`, views: 70 }) }));
    expect(await readCounter(clients.dynamodb, { table, key: { pk: DAY }, attribute: 'views' })).toBe(7);
  });
});

// DynamoDB Local answers every BatchGetItem in full (it never throttles, so it never leaves keys
// unprocessed); a fake client gives the UnprocessedKeys answer that DynamoDB gives under load.
describe('readCounter and UnprocessedKeys', () => {
  const TABLE = 'counters';
  const read = { table: TABLE, key: { pk: DAY }, attribute: 'views', shards: 4 };

  /** What the fake was asked of the table: keys, consistency, projection. */
  function requestOf(command: RecordedCommand): KeysAndAttributes | undefined {
    return (command.input as unknown as BatchGetItemCommandInput).RequestItems?.[TABLE];
  }

  function pksOf(request: KeysAndAttributes | undefined): string[] {
    return (request?.Keys ?? []).map((key) => String(unmarshall(key).pk));
  }

  /** Shard 3 holds 30 views, every other item 1. */
  function itemsFor(keys: readonly Record<string, AttributeValue>[]): Record<string, AttributeValue>[] {
    return keys.map((key) => ({ views: { N: String(unmarshall(key).pk).endsWith('#shard-3') ? '30' : '1' } }));
  }

  test('keys left unprocessed are asked again, after a backoff, and summed with the rest', async () => {
    const sleep = recordingSleep();
    const fake = new FakeClient((command, call) => {
      const request = requestOf(command);
      const keys = request?.Keys ?? [];
      if (call > 1) return { Responses: { [TABLE]: itemsFor(keys) } };
      return { Responses: { [TABLE]: itemsFor(keys.slice(0, 2)) }, UnprocessedKeys: { [TABLE]: { ...request, Keys: keys.slice(2) } } };
    });
    expect(await readCounter(asClient<DynamoDBClient>(fake), read, sleep)).toBe(1 + 1 + 1 + 1 + 30);

    expect(fake.commands.map((command) => command.name)).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand']);
    expect(pksOf(requestOf(fake.commands[0]))).toEqual([DAY, ...[0, 1, 2, 3].map((shard) => `${DAY}#shard-${shard}`)]);
    expect(pksOf(requestOf(fake.commands[1]))).toEqual([`${DAY}#shard-1`, `${DAY}#shard-2`, `${DAY}#shard-3`]);
    expect(sleep.delays).toHaveLength(1);
  });

  test('keys that stay unprocessed for 5 requests are a TransientError', async () => {
    const sleep = recordingSleep();
    const fake = new FakeClient((command) => ({ Responses: { [TABLE]: [] }, UnprocessedKeys: { [TABLE]: requestOf(command) } }));
    const failure = await readCounter(asClient<DynamoDBClient>(fake), read, sleep).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(TransientError);
    expect((failure as Error).message).toMatch(/5 keys stayed unprocessed after 5 requests/);
    expect(fake.commandsNamed(BatchGetItemCommand.name)).toHaveLength(5);
    expect(sleep.delays).toHaveLength(4);
  });
});
