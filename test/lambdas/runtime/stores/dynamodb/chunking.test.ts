/**
 * Batch commit planning: events are split into DynamoDB transactions (at most 100 actions, about
 * 4 MB, no item touched twice), each event's dedup put travelling with its effects, increments of
 * one item summed into one ADD.
 */
import type { TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { buildActions, planChunks, type Chunk, type PendingCommit } from '../../../../../lambdas/runtime/stores/dynamodb/chunking';
import { dedupKey, type DedupSettings } from '../../../../../lambdas/runtime/stores/dynamodb/dedup-record';
import { increment, itemIdOf, type Effect, type ItemKey, type Update } from '../../../../../lambdas/runtime/stores/dynamodb/effects';
import { PermanentError } from '../../../../../lambdas/runtime/core/errors';
import { pageViewEffects } from '../../../../../example/handlers/page-view-counter';
import { TRANSACTION_LIMITS } from '../../../../../lambdas/runtime/stores/dynamodb/transaction';

const COUNTERS = 'counters';
const DEDUP: DedupSettings = { table: 'idempotency', consumer: 'page-view-counter' };
const EXPIRATION = 1_800_000_000;

function pending(index: number, ...effects: Effect[]): PendingCommit {
  return { index, eventId: `evt-${index}`, payloadHash: `hash-${index}`, effects };
}

function views(pk: string, amount = 1): Effect {
  return increment(COUNTERS, { pk }, 'views', amount);
}

function setStatus(pk: string, status = 'SHIPPED'): Update {
  return { kind: 'update', table: 'orders', key: { pk }, updateExpression: 'SET #s = :s', names: { '#s': 'status' }, values: { ':s': status } };
}

function actionsOf(chunk: Chunk): TransactWriteItem[] {
  return buildActions(DEDUP, chunk.events, EXPIRATION);
}

/** ADD totals per item key and attribute, read back from the built actions. */
function addTotals(actions: readonly TransactWriteItem[]): Map<string, number> {
  const totals = new Map<string, number>();
  for (const action of actions) {
    const update = action.Update;
    if (!update?.UpdateExpression?.startsWith('ADD ')) continue;
    const key = JSON.stringify(unmarshall(update.Key ?? {}));
    for (const clause of update.UpdateExpression.slice(4).split(', ')) {
      const [nameRef, valueRef] = clause.split(' ');
      const attribute = update.ExpressionAttributeNames?.[nameRef];
      const amount = Number(update.ExpressionAttributeValues?.[valueRef]?.N);
      const id = `${key}.${attribute}`;
      totals.set(id, (totals.get(id) ?? 0) + amount);
    }
  }
  return totals;
}

/** The table and key of every action, dedup puts included: a transaction may touch each item once. */
function touchedItems(actions: readonly TransactWriteItem[]): string[] {
  return actions.map((action) => {
    if (action.Put) return `${action.Put.TableName}|${JSON.stringify(action.Put.Item?.id)}`;
    return `${action.Update?.TableName}|${JSON.stringify(action.Update?.Key)}`;
  });
}

describe('buildActions', () => {
  test('increments of the same item aggregate into one ADD with the sum', () => {
    const events = [pending(0, views('page#home')), pending(1, views('page#home')), pending(2, views('page#home', 5))];
    const actions = buildActions(DEDUP, events, EXPIRATION);
    const updates = actions.filter((action) => action.Update);
    expect(updates).toHaveLength(1);
    expect(updates[0].Update).toMatchObject({
      TableName: COUNTERS,
      Key: { pk: { S: 'page#home' } },
      UpdateExpression: 'ADD #a0 :v0',
      ExpressionAttributeNames: { '#a0': 'views' },
      ExpressionAttributeValues: { ':v0': { N: '7' } },
    });
  });

  test('increments of different attributes of one item become one ADD with one clause per attribute', () => {
    const events = [
      pending(0, increment(COUNTERS, { pk: 'page#home' }, 'views'), increment(COUNTERS, { pk: 'page#home' }, 'bytes', 512)),
      pending(1, increment(COUNTERS, { pk: 'page#home' }, 'views')),
    ];
    const updates = buildActions(DEDUP, events, EXPIRATION).filter((action) => action.Update);
    expect(updates).toHaveLength(1);
    expect(addTotals(updates)).toEqual(new Map([['{"pk":"page#home"}.views', 2], ['{"pk":"page#home"}.bytes', 512]]));
  });

  test('negative and fractional increments sum exactly', () => {
    const actions = buildActions(DEDUP, [pending(0, views('stock#sku-1', -3)), pending(1, views('stock#sku-1', 1.5))], EXPIRATION);
    expect(addTotals(actions).get('{"pk":"stock#sku-1"}.views')).toBe(-1.5);
  });

  test('dedup puts come first, one per event, in event order', () => {
    const events = [3, 1, 2].map((index) => pending(index, views(`page#p${index}`)));
    const actions = buildActions(DEDUP, events, EXPIRATION);
    const puts = actions.slice(0, events.length);
    expect(puts.map((action) => action.Put?.Item?.id?.S)).toEqual(['evt-3', 'evt-1', 'evt-2'].map((id) => dedupKey(DEDUP.consumer, id)));
    expect(actions.slice(events.length).every((action) => action.Update !== undefined)).toBe(true);
  });

  test('each dedup put claims its event: conditional on absence, with the expiration and the payload hash', () => {
    const [put] = buildActions(DEDUP, [pending(7, views('page#home'))], EXPIRATION);
    expect(put.Put).toEqual({
      TableName: 'idempotency',
      Item: { id: { S: 'page-view-counter#evt-7' }, expiration: { N: String(EXPIRATION) }, payloadHash: { S: 'hash-7' } },
      ConditionExpression: 'attribute_not_exists(id)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });

  test('an update keeps its expression, names, values and condition', () => {
    const update: Update = { ...setStatus('order#1'), conditionExpression: 'attribute_exists(pk)' };
    const [, action] = buildActions(DEDUP, [pending(0, update)], EXPIRATION);
    expect(action.Update).toEqual({
      TableName: 'orders',
      Key: { pk: { S: 'order#1' } },
      UpdateExpression: 'SET #s = :s',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':s': { S: 'SHIPPED' } },
      ConditionExpression: 'attribute_exists(pk)',
    });
  });

  test('increments of items whose composite keys differ only in where a "|" falls are not merged', () => {
    const first: ItemKey = { pk: 'tenant|sk=a', sk: 'b' };
    const second: ItemKey = { pk: 'tenant', sk: 'a|sk=b' };
    const actions = buildActions(DEDUP, [pending(0, increment(COUNTERS, first, 'views')), pending(1, increment(COUNTERS, second, 'views'))], EXPIRATION);
    const keys = actions.filter((action) => action.Update).map((action) => unmarshall(action.Update?.Key ?? {}));
    expect(keys).toEqual([first, second]);
  });
});

describe('planChunks', () => {
  test('plans nothing for no events', () => {
    expect(planChunks([])).toEqual({ chunks: [], rejected: [] });
  });

  test('puts every event in exactly one chunk, keeping batch order', () => {
    const events = Array.from({ length: 300 }, (_, index) => pending(index, views(`page#${index % 7}`), views(`user#${index}`)));
    const { chunks, rejected } = planChunks(events);
    expect(rejected).toEqual([]);
    expect(chunks.flatMap((chunk) => chunk.events.map((event) => event.index))).toEqual(events.map((event) => event.index));
  });

  test('no transaction exceeds 100 actions, and chunks are filled rather than cut early', () => {
    // Each event: 1 dedup put + 2 items of its own = 3 actions, so 33 events fit a transaction.
    const events = Array.from({ length: 300 }, (_, index) => pending(index, views(`page#a${index}`), views(`page#b${index}`)));
    const { chunks } = planChunks(events);
    for (const chunk of chunks) expect(actionsOf(chunk).length).toBeLessThanOrEqual(TRANSACTION_LIMITS.maxActions);
    expect(chunks.map((chunk) => chunk.events.length).slice(0, -1).every((size) => size === 33)).toBe(true);
    expect(chunks).toHaveLength(Math.ceil(300 / 33));
  });

  test('exactly 100 actions fit in one transaction; the 101st starts the next', () => {
    const fifty = Array.from({ length: 50 }, (_, index) => pending(index, views(`page#${index}`)));
    const exactly = planChunks(fifty);
    expect(exactly.chunks).toHaveLength(1);
    expect(actionsOf(exactly.chunks[0])).toHaveLength(100);

    const overflow = planChunks([...fifty, pending(50, views('page#50'))]);
    expect(overflow.chunks.map((chunk) => chunk.events.length)).toEqual([50, 1]);
  });

  test('increments of a shared item cost one action however many events share it', () => {
    const events = Array.from({ length: 98 }, (_, index) => pending(index, views('page#home')));
    const { chunks } = planChunks(events);
    expect(chunks).toHaveLength(1);
    expect(actionsOf(chunks[0])).toHaveLength(99);
  });

  test('every transaction touches each item at most once, dedup records included', () => {
    const events = Array.from({ length: 120 }, (_, index) =>
      index % 3 === 0 ? pending(index, setStatus(`order#${index % 4}`)) : pending(index, views(`page#${index % 5}`), views(`order#${index % 4}`)),
    );
    const { chunks } = planChunks(events);
    for (const chunk of chunks) {
      const items = touchedItems(actionsOf(chunk));
      expect(new Set(items).size).toBe(items.length);
    }
  });

  test('updates of the same item never share a chunk', () => {
    const events = [pending(0, setStatus('order#1', 'PAID')), pending(1, setStatus('order#1', 'PACKED')), pending(2, setStatus('order#1', 'SHIPPED'))];
    const { chunks } = planChunks(events);
    expect(chunks.map((chunk) => chunk.events.map((event) => event.index))).toEqual([[0], [1], [2]]);
  });

  test('an update and an increment of the same item never share a chunk, in either order', () => {
    const incrementFirst = planChunks([pending(0, views('order#1')), pending(1, { ...setStatus('order#1'), table: COUNTERS })]);
    const updateFirst = planChunks([pending(0, { ...setStatus('order#1'), table: COUNTERS }), pending(1, views('order#1'))]);
    expect(incrementFirst.chunks).toHaveLength(2);
    expect(updateFirst.chunks).toHaveLength(2);
  });

  test('updates of different items share a chunk', () => {
    const { chunks } = planChunks([pending(0, setStatus('order#1')), pending(1, setStatus('order#2'))]);
    expect(chunks).toHaveLength(1);
  });

  test('an event with more than 99 distinct items is rejected with a PermanentError; the others are planned', () => {
    const tooWide = pending(1, ...Array.from({ length: 100 }, (_, item) => views(`page#${item}`)));
    const { chunks, rejected } = planChunks([pending(0, views('page#home')), tooWide, pending(2, views('page#home'))]);
    expect(rejected).toHaveLength(1);
    expect(rejected[0].event).toBe(tooWide);
    expect(rejected[0].error).toBeInstanceOf(PermanentError);
    expect(rejected[0].error.message).toContain('evt-1');
    expect(rejected[0].error.message).toContain('101');
    expect(chunks.flatMap((chunk) => chunk.events.map((event) => event.index))).toEqual([0, 2]);
  });

  test('an event with exactly 99 distinct items fits a transaction by itself', () => {
    const widest = pending(1, ...Array.from({ length: 99 }, (_, item) => views(`page#${item}`)));
    const { chunks, rejected } = planChunks([pending(0, views('page#home')), widest, pending(2, views('page#x'))]);
    expect(rejected).toEqual([]);
    const widestChunk = chunks.find((chunk) => chunk.events.includes(widest));
    expect(widestChunk?.events).toEqual([widest]);
    expect(actionsOf(widestChunk as Chunk)).toHaveLength(100);
  });

  test('an event that updates one item twice is rejected; two increments of one item are merged instead', () => {
    const twoUpdates = pending(1, setStatus('order#1', 'PAID'), setStatus('order#1', 'SHIPPED'));
    const updateAndIncrement = pending(2, { ...setStatus('page#home'), table: COUNTERS }, views('page#home'));
    const twoIncrements = pending(3, views('page#home'), views('page#home'));
    const { chunks, rejected } = planChunks([pending(0, views('page#about')), twoUpdates, updateAndIncrement, twoIncrements]);

    expect(rejected.map(({ event }) => event.index)).toEqual([1, 2]);
    for (const { error } of rejected) {
      expect(error).toBeInstanceOf(PermanentError);
      expect(error.message).toMatch(/twice/);
    }
    const planned = chunks.flatMap((chunk) => chunk.events);
    expect(planned.map((event) => event.index)).toEqual([0, 3]);
    expect(addTotals(chunks.flatMap(actionsOf)).get('{"pk":"page#home"}.views')).toBe(2);
  });

  test('large effects split chunks before a transaction reaches 4 MB', () => {
    const body = 'x'.repeat(1_000_000);
    const events = Array.from({ length: 10 }, (_, index) => pending(index, { ...setStatus(`doc#${index}`), values: { ':s': body } }));
    const { chunks } = planChunks(events);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(Buffer.byteLength(JSON.stringify(actionsOf(chunk)))).toBeLessThan(4 * 1024 * 1024);
  });

  test('an event too large for any transaction by itself is rejected with a PermanentError', () => {
    const huge = pending(1, { ...setStatus('doc#huge'), values: { ':s': 'x'.repeat(5_000_000) } });
    const { chunks, rejected } = planChunks([pending(0, views('page#home')), huge]);
    expect(rejected.map(({ event }) => event.index)).toEqual([1]);
    expect(rejected[0]?.error).toBeInstanceOf(PermanentError);
    expect(chunks.flatMap((chunk) => chunk.events.map((event) => event.index))).toEqual([0]);
  });

  test('250 page views over 10 pages and 2 days fit in ceil(250/50)+2 transactions or fewer, and every view is counted once', () => {
    const days = ['2026-11-30T10:00:00Z', '2026-12-01T10:00:00Z'];
    const events = Array.from({ length: 250 }, (_, index) => pending(index, ...pageViewEffects(COUNTERS, `p${index % 10}`, days[index % 2])));
    const { chunks, rejected } = planChunks(events);

    expect(rejected).toEqual([]);
    expect(chunks.length).toBeLessThanOrEqual(Math.ceil(250 / 50) + 2);
    const allActions = chunks.map(actionsOf);
    for (const actions of allActions) expect(actions.length).toBeLessThanOrEqual(TRANSACTION_LIMITS.maxActions);

    const totals = addTotals(allActions.flat());
    for (let page = 0; page < 10; page += 1) expect(totals.get(`{"pk":"page#p${page}"}.views`)).toBe(25);
    expect(totals.get('{"pk":"day#2026-11-30"}.views')).toBe(125);
    expect(totals.get('{"pk":"day#2026-12-01"}.views')).toBe(125);
    expect(allActions.flat().filter((action) => action.Put)).toHaveLength(250);
  });
});

describe('effects', () => {
  test.each([Number.NaN, Number.POSITIVE_INFINITY])('increment refuses amount %p', (amount) => {
    expect(() => increment(COUNTERS, { pk: 'page#home' }, 'views', amount)).toThrow(RangeError);
  });

  test('increment defaults to 1', () => {
    expect(increment(COUNTERS, { pk: 'page#home' }, 'views').amount).toBe(1);
  });

  test('itemIdOf does not depend on the order of key attributes', () => {
    expect(itemIdOf({ table: 't', key: { pk: 'a', sk: 'b' } })).toBe(itemIdOf({ table: 't', key: { sk: 'b', pk: 'a' } }));
    expect(itemIdOf({ table: 't', key: { pk: 'a' } })).not.toBe(itemIdOf({ table: 'u', key: { pk: 'a' } }));
  });
});
