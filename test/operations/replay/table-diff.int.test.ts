/**
 * `diffTables` on DynamoDB Local: two generations of a consumer's table, written as a live consumer
 * and a replay into new tables would leave them, compared item by item; sharded counters count by
 * their sums, however their increments spread over the shards.
 */
import { PutItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { destroyClients, type LocalClients } from '../../../emulator/engines';
import { diffTables, KeySchemaMismatchError, type TablePair } from '../../../operations/replay/table-diff';
import { createTable, testClients, uniqueName } from '../../helpers/engines';
import { pkTable } from '../../helpers/fixtures';
import { countRequests } from '../../helpers/sdk';

type Item = Record<string, AttributeValue>;

let clients: LocalClients;
beforeAll(() => {
  clients = testClients();
});
afterAll(() => destroyClients(clients));

/** An order as the projection stores it. */
function order(id: string, status: string, version = 1): Item {
  return { pk: { S: `order#${id}` }, status: { S: status }, version: { N: String(version) } };
}

/** One shard of a day counter; `shard` undefined is the unsharded item. */
function dayCounter(shard: number | undefined, views: string, day = '2026-12-01'): Item {
  return { pk: { S: `day#${day}${shard === undefined ? '' : `#shard-${shard}`}` }, views: { N: views } };
}

async function putAll(table: string, items: readonly Item[]): Promise<void> {
  await Promise.all(items.map((item) => clients.dynamodb.send(new PutItemCommand({ TableName: table, Item: item }))));
}

/** A live and a next table keyed `pk`, holding `live` and `next`. */
async function generations(live: readonly Item[], next: readonly Item[]): Promise<TablePair> {
  const [liveTable, nextTable] = await Promise.all([pkTable(clients.dynamodb, 'orders-live'), pkTable(clients.dynamodb, 'orders-next')]);
  await Promise.all([putAll(liveTable.tableName, live), putAll(nextTable.tableName, next)]);
  return { variable: 'ORDERS_TABLE', live: liveTable.tableName, next: nextTable.tableName };
}

test('tables holding the same items are the same', async () => {
  const items = [order('o-1', 'PAID', 2), order('o-2', 'CREATED')];
  const pair = await generations(items, items);
  expect(await diffTables(clients.dynamodb, pair)).toEqual({
    variable: 'ORDERS_TABLE',
    live: { table: pair.live, items: 2, shardItems: 0 },
    next: { table: pair.next, items: 2, shardItems: 0 },
    equal: 2,
    onlyLive: 0,
    onlyNext: 0,
    differing: 0,
    examples: [],
    same: true,
  });
});

test('an item only in live and one only in next are each a difference', async () => {
  const pair = await generations([order('o-1', 'PAID'), order('o-9', 'PAID')], [order('o-1', 'PAID'), order('o-10', 'CREATED')]);
  const diff = await diffTables(clients.dynamodb, pair);
  expect(diff).toMatchObject({ equal: 1, onlyLive: 1, onlyNext: 1, differing: 0, same: false });
  expect(diff.examples).toEqual([
    { kind: 'only-next', key: 'pk=order#o-10' },
    { kind: 'only-live', key: 'pk=order#o-9' },
  ]);
});

test('a differing attribute is listed with both values, an absent one as absent', async () => {
  const pair = await generations([order('o-1', 'PAID', 2)], [{ ...order('o-1', 'SHIPPED', 2), note: { S: 'late' } }]);
  const diff = await diffTables(clients.dynamodb, pair);
  expect(diff).toMatchObject({ equal: 0, differing: 1, same: false });
  expect(diff.examples).toEqual([
    {
      kind: 'differs',
      key: 'pk=order#o-1',
      attributes: [
        { name: 'note', next: '"late"' },
        { name: 'status', live: '"PAID"', next: '"SHIPPED"' },
      ],
    },
  ]);
});

test('a counter spread over other shards, or none, is the same when its sum is: the sum is exact, not a float', async () => {
  // As floats, 0.1 + 0.2 is 0.30000000000000004, and 2^53 + 1 is 2^53.
  const live = [dayCounter(undefined, '0.1'), dayCounter(0, '0.2'), dayCounter(3, '9007199254740992', '2026-12-02'), dayCounter(4, '1', '2026-12-02')];
  const next = [dayCounter(5, '0.3'), dayCounter(undefined, '9007199254740992', '2026-12-02')];
  const pair = await generations(live, next);
  expect(await diffTables(clients.dynamodb, pair)).toMatchObject({ live: { items: 4, shardItems: 3 }, next: { items: 2, shardItems: 1 }, equal: 1, differing: 1, same: false });
  await putAll(pair.next, [dayCounter(0, '1', '2026-12-02')]);
  expect(await diffTables(clients.dynamodb, pair)).toMatchObject({ equal: 2, same: true });
});

test('a counter whose shards sum to another total differs, shown as the sums', async () => {
  const pair = await generations([dayCounter(0, '2'), dayCounter(1, '3')], [dayCounter(0, '1'), dayCounter(7, '5')]);
  const diff = await diffTables(clients.dynamodb, pair);
  expect(diff.examples).toEqual([{ kind: 'differs', key: 'pk=day#2026-12-01', attributes: [{ name: 'views', live: '5', next: '6' }] }]);
});

test('shards that disagree on an attribute that is not a number make their counter differ', async () => {
  const withDay = (shard: number, day: string): Item => ({ ...dayCounter(shard, '1'), day: { S: day } });
  const pair = await generations([withDay(0, '2026-12-01'), withDay(1, '2026-12-02')], [withDay(0, '2026-12-01'), withDay(1, '2026-12-01')]);
  const diff = await diffTables(clients.dynamodb, pair);
  expect(diff.examples).toEqual([{ kind: 'differs', key: 'pk=day#2026-12-01', attributes: [{ name: 'day', live: 'shards disagree: "2026-12-01" | "2026-12-02"', next: '"2026-12-01"' }] }]);
});

test('an ignored attribute is left out, on plain items and on shards', async () => {
  const stamped = (item: Item, at: string): Item => ({ ...item, processedAt: { S: at } });
  const live = [stamped(order('o-1', 'PAID'), '10:00'), stamped(dayCounter(0, '1'), '10:00'), stamped(dayCounter(1, '1'), '10:01')];
  const next = [stamped(order('o-1', 'PAID'), '11:00'), stamped(dayCounter(2, '2'), '11:00')];
  const pair = await generations(live, next);
  expect(await diffTables(clients.dynamodb, pair)).toMatchObject({ differing: 2, same: false });
  expect(await diffTables(clients.dynamodb, pair, { ignore: ['processedAt'] })).toMatchObject({ equal: 2, same: true });
});

test('values are compared by what they are: numbers by value, sets and maps in any order', async () => {
  const spelled = (amount: string, sizes: string[], tags: string[], address: Item): Item => ({ pk: { S: 'order#o-1' }, amount: { N: amount }, sizes: { NS: sizes }, tags: { SS: tags }, address: { M: address } });
  const live = spelled('1.50', ['1', '20', '3.0'], ['b', 'a'], { city: { S: 'Oslo' }, zip: { N: '150' } });
  const next = spelled('1.5', ['3', '1.0', '2e1'], ['a', 'b'], { zip: { N: '1.5e2' }, city: { S: 'Oslo' } });
  const pair = await generations([live], [next]);
  expect(await diffTables(clients.dynamodb, pair)).toMatchObject({ equal: 1, same: true });
});

test('a table read over many Scan pages is compared whole, and the examples are the first by key, as many as asked', async () => {
  const ids = Array.from({ length: 9 }, (_, index) => `o-${index}`);
  const pair = await generations(ids.map((id) => order(id, 'PAID')), ids.map((id) => order(id, 'SHIPPED')));
  const dynamodb = testClients().dynamodb;
  const requests = countRequests(dynamodb);
  try {
    const diff = await diffTables(dynamodb, pair, { pageSize: 2, maxExamples: 3 });
    expect(diff).toMatchObject({ live: { items: 9 }, next: { items: 9 }, differing: 9, equal: 0 });
    expect(diff.examples.map((example) => example.key)).toEqual(['pk=order#o-0', 'pk=order#o-1', 'pk=order#o-2']);
    expect(requests.count('ScanCommand')).toBeGreaterThanOrEqual(2 * 5);
  } finally {
    dynamodb.destroy();
  }
});

test('tables whose keys differ are refused, naming both', async () => {
  const [live, next] = await Promise.all([pkTable(clients.dynamodb, 'orders-live'), createTable(clients.dynamodb, { name: uniqueName('orders-next'), partitionKey: 'id' })]);
  const pair = { variable: 'ORDERS_TABLE', live: live.tableName, next: next.tableName };
  const refusal = diffTables(clients.dynamodb, pair);
  await expect(refusal).rejects.toThrow(KeySchemaMismatchError);
  await expect(refusal).rejects.toThrow(`ORDERS_TABLE: the tables have different keys and cannot be compared item by item: ${live.tableName} has pk (HASH, S), ${next.tableName} has id (HASH, S)`);
});
