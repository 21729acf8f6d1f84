/**
 * Batch commit planning for unordered sources (SQS standard): events may be reordered so that those
 * sharing items share a transaction, and a popular page's counter is written in fewer transactions
 * than batch order writes it. The floor of a batch's writes is each event's dedup record plus each
 * distinct item, written once. Ordered sources keep batch order exactly; the limits hold either way.
 */
import type { DynamoDBClient, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { pageViewEffects } from '../../../../../example/handlers/page-view-counter';
import { seededRandom } from '../../../../../emulator/faults/random';
import type { Random } from '../../../../../emulator/types';
import { buildActions, planChunks, type Chunk, type PendingCommit } from '../../../../../lambdas/runtime/stores/dynamodb/chunking';
import { TransactionalCommitter } from '../../../../../lambdas/runtime/stores/dynamodb/committer';
import type { DedupSettings } from '../../../../../lambdas/runtime/stores/dynamodb/dedup-record';
import { increment, itemIdOf, type Effect, type Update } from '../../../../../lambdas/runtime/stores/dynamodb/effects';
import { TRANSACTION_LIMITS } from '../../../../../lambdas/runtime/stores/dynamodb/transaction';
import { asClient, FakeClient, noSleep } from '../../../../helpers/fakes';

const COUNTERS = 'counters';
const DEDUP: DedupSettings = { table: 'idempotency', consumer: 'page-view-counter' };
const EXPIRATION = 1_800_000_000;
const UNORDERED = { keepOrder: false };

function pending(index: number, ...effects: Effect[]): PendingCommit {
  return { index, eventId: `evt-${index}`, payloadHash: `hash-${index}`, effects };
}

/** Page ranks 1..pages drawn with probability proportional to 1 / rank, as the bench's workload draws them. */
function zipfPage(random: Random, pages: number): number {
  let target = random() * Array.from({ length: pages }, (_, rank) => 1 / (rank + 1)).reduce((sum, weight) => sum + weight, 0);
  for (let rank = 1; rank < pages; rank += 1) if ((target -= 1 / rank) < 0) return rank;
  return pages;
}

/** `count` page views, pages drawn Zipf-like from `pages`, over `days` consecutive days in time order, each counter over `shards` shards. */
function zipfViews(count: number, pages: number, options: { days?: number; shards?: number; seed?: number } = {}): PendingCommit[] {
  const random = seededRandom(options.seed ?? 27);
  const days = options.days ?? 1;
  return Array.from({ length: count }, (_, index) => {
    const day = `2026-12-0${1 + Math.floor((index * days) / count)}T10:00:00Z`;
    return pending(index, ...pageViewEffects(COUNTERS, `p${zipfPage(random, pages)}`, day, options.shards ?? 1));
  });
}

function actionsOf(chunk: Chunk): TransactWriteItem[] {
  return buildActions(DEDUP, chunk.events, EXPIRATION, () => 0);
}

/** (chunk, item) pairs: how many item writes the plan makes, a sharded counter counted once a chunk, as it is written. */
function itemWrites(chunks: readonly Chunk[]): number {
  return chunks.reduce((sum, chunk) => sum + actionsOf(chunk).length - chunk.events.length, 0);
}

/** The floor: each distinct item the events touch, written once (sharded counters by their unsharded key). */
function distinctItems(events: readonly PendingCommit[]): number {
  return new Set(events.flatMap((event) => event.effects.map((effect) => itemIdOf(effect)))).size;
}

function plannedIndexes(chunks: readonly Chunk[]): number[] {
  return chunks.flatMap((chunk) => chunk.events.map((event) => event.index));
}

function setStatus(pk: string, status: string): Update {
  return { kind: 'update', table: 'orders', key: { pk }, updateExpression: 'SET #s = :s', names: { '#s': 'status' }, values: { ':s': status } };
}

/** Every limit a transaction has, and each event in exactly one chunk. */
function expectValidPlan(events: readonly PendingCommit[], chunks: readonly Chunk[]): void {
  for (const chunk of chunks) {
    const actions = actionsOf(chunk);
    expect(actions.length).toBeLessThanOrEqual(TRANSACTION_LIMITS.maxActions);
    expect(Buffer.byteLength(JSON.stringify(actions))).toBeLessThan(TRANSACTION_LIMITS.maxBytes);
    const touched = actions.map((action) => JSON.stringify(action.Put ? [action.Put.TableName, action.Put.Item?.id] : [action.Update?.TableName, action.Update?.Key]));
    expect(new Set(touched).size).toBe(touched.length);
  }
  expect(plannedIndexes(chunks).sort((a, b) => a - b)).toEqual(events.map((event) => event.index));
}

describe('planChunks without keeping order, on Zipf-like page views', () => {
  test('300 views over 40 pages on one day: each item in fewer chunks than batch order puts it', () => {
    const events = zipfViews(300, 40);
    const ordered = planChunks(events).chunks;
    const unordered = planChunks(events, UNORDERED).chunks;

    expect(distinctItems(events)).toBe(37);
    expect(itemWrites(ordered)).toBe(92);
    expect(itemWrites(unordered)).toBe(42);
    // At most one item cut at each boundary besides the day counter, which every chunk needs.
    expect(unordered).toHaveLength(4);
    expect(itemWrites(unordered)).toBeLessThanOrEqual(distinctItems(events) + 2 * (unordered.length - 1));
    expectValidPlan(events, unordered);
  });

  test('100 views over 300 pages and 5 days, the bench batch: fewer item writes, and no more chunks', () => {
    const events = zipfViews(100, 300, { days: 5 });
    const ordered = planChunks(events).chunks;
    const unordered = planChunks(events, UNORDERED).chunks;

    expect(distinctItems(events)).toBe(46);
    expect(itemWrites(ordered)).toBe(61);
    expect(itemWrites(unordered)).toBe(51);
    expect(unordered.length).toBeLessThanOrEqual(ordered.length);
    expectValidPlan(events, unordered);
  });

  test('with 256 counter shards, a sharded counter is still one action a chunk', () => {
    const events = zipfViews(100, 20, { shards: 256 });
    const unordered = planChunks(events, UNORDERED).chunks;
    expect(itemWrites(unordered)).toBeLessThan(itemWrites(planChunks(events).chunks));
    expectValidPlan(events, unordered);
  });

  test.each([1, 2, 3, 4, 5])('seed %i, 1,000 views: never more item writes than batch order, every limit holds', (seed) => {
    const events = zipfViews(1_000, 100, { days: 3, seed });
    const ordered = planChunks(events).chunks;
    const unordered = planChunks(events, UNORDERED).chunks;
    expect(itemWrites(unordered)).toBeLessThan(itemWrites(ordered));
    expect(unordered.length).toBeLessThanOrEqual(ordered.length);
    expectValidPlan(events, unordered);
  });
});

describe('planChunks without keeping order, on what may not share a transaction', () => {
  test('updates of one item still never share a chunk, and fill the chunks that other events open', () => {
    const events = Array.from({ length: 120 }, (_, index) =>
      index % 10 === 0 ? pending(index, setStatus('order#1', `S${index}`)) : pending(index, increment(COUNTERS, { pk: `page#${index % 7}` }, 'views')),
    );
    const { chunks } = planChunks(events, UNORDERED);
    for (const chunk of chunks) expect(chunk.events.filter((event) => event.index % 10 === 0).length).toBeLessThanOrEqual(1);
    expect(chunks).toHaveLength(12);
    expectValidPlan(events, chunks);
  });

  test('large effects split chunks before a transaction reaches 4 MB', () => {
    const body = 'x'.repeat(1_000_000);
    const events = Array.from({ length: 10 }, (_, index) => pending(index, { ...setStatus(`doc#${index % 2}`, 'x'), values: { ':s': body } }));
    const { chunks } = planChunks(events, UNORDERED);
    expect(chunks.length).toBeGreaterThan(2);
    expectValidPlan(events, chunks);
  });

  test('an event no transaction can hold is rejected as in batch order; the others are planned once', () => {
    const tooWide = pending(1, ...Array.from({ length: 100 }, (_, item) => increment(COUNTERS, { pk: `page#${item}` }, 'views')));
    const events = [pending(0, increment(COUNTERS, { pk: 'page#home' }, 'views')), tooWide, pending(2, increment(COUNTERS, { pk: 'page#home' }, 'views'))];
    const { chunks, rejected } = planChunks(events, UNORDERED);
    expect(rejected.map(({ event }) => event.index)).toEqual([1]);
    expect(rejected).toEqual(planChunks(events).rejected);
    expect(plannedIndexes(chunks).sort()).toEqual([0, 2]);
  });
});

describe('keeping order', () => {
  test('by default and when asked, chunks take the events in batch order', () => {
    const events = zipfViews(300, 40);
    expect(plannedIndexes(planChunks(events).chunks)).toEqual(events.map((event) => event.index));
    expect(plannedIndexes(planChunks(events, { keepOrder: true }).chunks)).toEqual(events.map((event) => event.index));
  });

  /** The dedup put of each transaction, by event id, in the order the committer sent them. */
  async function committedOrder(stopOnFailure: boolean): Promise<string[]> {
    const dynamodb = new FakeClient(() => ({}));
    const committer = new TransactionalCommitter({ dynamodb: asClient<DynamoDBClient>(dynamodb), dedup: DEDUP, retry: { sleep: noSleep, maxAttempts: 1 } });
    const outcomes = await committer.commitBatch(zipfViews(300, 40), { stopOnFailure });
    expect([...outcomes.values()].every((outcome) => outcome.status === 'applied')).toBe(true);
    return dynamodb.commands.flatMap((command) => (command.input.TransactItems as TransactWriteItem[]).flatMap((action) => (action.Put ? [String(action.Put.Item?.id?.S)] : [])));
  }

  test('an ordered run commits in batch order; an unordered one commits the same events, once each, in its own order', async () => {
    const inBatchOrder = Array.from({ length: 300 }, (_, index) => `${DEDUP.consumer}#evt-${index}`);
    expect(await committedOrder(true)).toEqual(inBatchOrder);
    const unordered = await committedOrder(false);
    expect(unordered).not.toEqual(inBatchOrder);
    expect([...unordered].sort()).toEqual([...inBatchOrder].sort());
  });
});
