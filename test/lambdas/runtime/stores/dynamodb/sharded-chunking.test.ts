/**
 * Batch commit of sharded counters: all of one transaction's increments of a sharded counter
 * become one action on one shard, so that a counter still costs one action per transaction;
 * transactions of one wave sit at consecutive positions of the committer's lane, so that they
 * write different shards and may run at once; the lane stays until a `TransactionConflict` on an
 * effect moves it, and a conflict on a dedup record commits the rest first instead of holding
 * them up.
 */
import type { DynamoDBClient, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { buildActions, disjointWaves, planChunks, type Chunk, type PendingCommit } from '../../../../../lambdas/runtime/stores/dynamodb/chunking';
import { TransactionalCommitter } from '../../../../../lambdas/runtime/stores/dynamodb/committer';
import type { DedupSettings } from '../../../../../lambdas/runtime/stores/dynamodb/dedup-record';
import { increment, type Effect } from '../../../../../lambdas/runtime/stores/dynamodb/effects';
import { shardFor } from '../../../../../lambdas/runtime/stores/dynamodb/sharding';
import { TRANSACTION_LIMITS } from '../../../../../lambdas/runtime/stores/dynamodb/transaction';
import { asClient, FakeClient, noSleep, transactionCancelled, type RecordedCommand } from '../../../../helpers/fakes';

const COUNTERS = 'counters';
const DEDUP: DedupSettings = { table: 'idempotency', consumer: 'page-view-counter' };
const EXPIRATION = 1_800_000_000;
const DAY = 'day#2026-12-01';
const SHARDS = 8;

function pending(index: number, eventId: string, ...effects: Effect[]): PendingCommit {
  return { index, eventId, payloadHash: `hash-${index}`, effects };
}

function dayViews(amount = 1): Effect {
  return increment(COUNTERS, { pk: DAY }, 'views', amount, { shards: SHARDS });
}

function pageViews(page: string): Effect {
  return increment(COUNTERS, { pk: `page#${page}` }, 'views');
}

/** `count` views of their own pages, each adding to the sharded day counter; ids `<prefix>-<n>`. */
function views(count: number, prefix = 'evt', from = 0): PendingCommit[] {
  return Array.from({ length: count }, (_, offset) => pending(from + offset, `${prefix}-${from + offset}`, pageViews(`p${from + offset}`), dayViews()));
}

/** The ADD actions by item key (pk), each with its totals per attribute. */
function additions(actions: readonly TransactWriteItem[]): Map<string, Record<string, number>> {
  const byKey = new Map<string, Record<string, number>>();
  for (const { Update: update } of actions) {
    if (!update?.UpdateExpression?.startsWith('ADD ')) continue;
    const pk = String(unmarshall(update.Key ?? {}).pk);
    if (byKey.has(pk)) throw new Error(`two actions on ${pk}`);
    const totals: Record<string, number> = {};
    for (const clause of update.UpdateExpression.slice(4).split(', ')) {
      const [name, value] = clause.split(' ');
      totals[String(update.ExpressionAttributeNames?.[name])] = Number(update.ExpressionAttributeValues?.[value]?.N);
    }
    byKey.set(pk, totals);
  }
  return byKey;
}

function dayShardsOf(actions: readonly TransactWriteItem[]): string[] {
  return [...additions(actions).keys()].filter((pk) => pk.startsWith(DAY));
}

function actionsOf(chunk: Chunk, shard = 0): TransactWriteItem[] {
  return buildActions(DEDUP, chunk.events, EXPIRATION, () => shard);
}

describe('buildActions with a sharded counter', () => {
  test("50 events' increments become one action on the shard the first event id picks, with their sum", () => {
    const events = Array.from({ length: 50 }, (_, index) => pending(index, `view-${index}`, dayViews(index % 2 === 0 ? 1 : 2)));
    const actions = buildActions(DEDUP, events, EXPIRATION);

    expect(actions).toHaveLength(51);
    expect(actions.slice(0, 50).every((action) => action.Put !== undefined)).toBe(true);
    expect(additions(actions)).toEqual(new Map([[`${DAY}#shard-${shardFor('view-0', SHARDS)}`, { views: 75 }]]));
  });

  test('a shard choice picks the shard instead, given each counter\'s shard count', () => {
    const events = [pending(0, 'view-0', dayViews(), increment(COUNTERS, { pk: 'site' }, 'views', 1, { shards: 3 }))];
    const asked: number[] = [];
    const actions = buildActions(DEDUP, events, EXPIRATION, (shards) => {
      asked.push(shards);
      return shards - 1;
    });
    expect(asked.sort()).toEqual([3, SHARDS]);
    expect([...additions(actions).keys()].sort()).toEqual([`${DAY}#shard-${SHARDS - 1}`, 'site#shard-2']);
  });

  test('the unsharded pages beside it keep one action each', () => {
    const actions = buildActions(DEDUP, views(20), EXPIRATION);
    const added = additions(actions);
    expect(actions).toHaveLength(20 + 20 + 1);
    expect([...added.keys()].filter((pk) => pk.startsWith('page#'))).toHaveLength(20);
    expect(added.get(`${DAY}#shard-${shardFor('evt-0', SHARDS)}`)).toEqual({ views: 20 });
  });

  test('two attributes of one sharded counter become one action with a clause each', () => {
    const events = [0, 1, 2].map((index) => pending(index, `view-${index}`, dayViews(), increment(COUNTERS, { pk: DAY }, 'bytes', 100, { shards: SHARDS })));
    expect(additions(buildActions(DEDUP, events, EXPIRATION))).toEqual(new Map([[`${DAY}#shard-${shardFor('view-0', SHARDS)}`, { views: 3, bytes: 300 }]]));
  });

  test('sharded and unsharded increments of the same key are different actions on different items', () => {
    const events = [pending(0, 'view-0', dayViews(), increment(COUNTERS, { pk: DAY }, 'views', 5)), pending(1, 'view-1', dayViews())];
    expect(additions(buildActions(DEDUP, events, EXPIRATION))).toEqual(
      new Map([
        [`${DAY}#shard-${shardFor('view-0', SHARDS)}`, { views: 2 }],
        [DAY, { views: 5 }],
      ]),
    );
  });
});

describe('planChunks and disjointWaves with a sharded counter', () => {
  /** Two chunks of 49 views each (49 dedup puts + 49 pages + 1 day shard = 99 actions; a 50th would make 101). */
  function twoChunks(): readonly Chunk[] {
    const { chunks, rejected } = planChunks([...views(49), ...views(49, 'later', 49)]);
    expect(rejected).toEqual([]);
    expect(chunks.map((chunk) => chunk.events.length)).toEqual([49, 49]);
    return chunks;
  }

  test('chunks that share only a sharded counter overlap at the same position, and not at neighbouring ones', () => {
    const [first, second] = twoChunks();
    expect(first.overlaps(second)).toBe(true);
    expect(first.overlaps(second, 1)).toBe(false);
    expect(first.overlaps(second, SHARDS - 1)).toBe(false);
    expect(first.overlaps(second, SHARDS)).toBe(true);
  });

  test('so they commit in one wave, at positions that land on different shards', () => {
    const chunks = twoChunks();
    expect(disjointWaves(chunks, 4)).toEqual([[chunks[0], chunks[1]]]);
    const [first, second] = chunks.map((chunk, position) => dayShardsOf(actionsOf(chunk, position)));
    expect(first).toEqual([`${DAY}#shard-0`]);
    expect(second).toEqual([`${DAY}#shard-1`]);
  });

  test('a counter with fewer shards than the wave has positions splits the wave where positions would meet', () => {
    const events = Array.from({ length: 3 * 99 }, (_, index) => pending(index, `view-${index}`, increment(COUNTERS, { pk: 'site' }, 'views', 1, { shards: 2 })));
    const { chunks } = planChunks(events);
    expect(chunks).toHaveLength(3);
    expect(disjointWaves(chunks, 4).map((wave) => wave.length)).toEqual([2, 1]);
  });

  test('an unsharded item the chunks share still keeps them apart', () => {
    const shared = (index: number, prefix: string) => pending(index, `${prefix}-${index}`, dayViews(), pageViews('home'));
    const { chunks } = planChunks(Array.from({ length: 100 }, (_, index) => shared(index, 'view')));
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks[0].overlaps(chunks[1], 1)).toBe(true);
    expect(disjointWaves(chunks, 4).every((wave) => wave.length === 1)).toBe(true);
  });

  test('a sharded counter costs one action per transaction: 99 events to a transaction, every action count within the limit', () => {
    const events = Array.from({ length: 250 }, (_, index) => pending(index, `view-${index}`, dayViews()));
    const { chunks } = planChunks(events);
    expect(chunks.map((chunk) => chunk.events.length)).toEqual([99, 99, 52]);
    expect(chunks.map((chunk) => actionsOf(chunk).length)).toEqual([100, 100, 53]);
  });

  test('many sharded and unsharded counters: no transaction exceeds 100 actions or touches an item twice, and every event commits once', () => {
    const events = Array.from({ length: 600 }, (_, index) =>
      pending(
        index,
        `view-${index}`,
        pageViews(`p${index % 170}`),
        increment(COUNTERS, { pk: `day#2026-12-0${1 + (index % 3)}` }, 'views', 1, { shards: 16 }),
        increment(COUNTERS, { pk: 'site' }, 'views', 1, { shards: 4 }),
        increment(COUNTERS, { pk: 'site' }, 'views'),
      ),
    );
    const { chunks, rejected } = planChunks(events);
    expect(rejected).toEqual([]);
    for (const chunk of chunks) {
      const actions = actionsOf(chunk);
      expect(actions.length).toBeLessThanOrEqual(TRANSACTION_LIMITS.maxActions);
      expect(additions(actions).size).toBe(actions.length - chunk.events.length);
    }
    expect(Math.max(...chunks.map((chunk) => actionsOf(chunk).length))).toBeGreaterThan(90);
    expect(chunks.flatMap((chunk) => chunk.events.map((event) => event.eventId))).toEqual(events.map((event) => event.eventId));
  });
});

describe('the committer and its lane', () => {
  /** A lane drawn from `draws` in turn (each a number in [0, 1)), so that its shards are known. */
  function committer(dynamodb: FakeClient, ...draws: number[]): TransactionalCommitter {
    const random = () => draws.shift() ?? 0.5;
    return new TransactionalCommitter({ dynamodb: asClient<DynamoDBClient>(dynamodb), dedup: DEDUP, retry: { sleep: noSleep, maxAttempts: 3 }, random });
  }

  /** A lane value whose shard of `SHARDS` is `shard` (lanes are drawn from 2^30 values). */
  function laneOn(shard: number): number {
    return (shard + 0.5) / 2 ** 30;
  }

  function dayShardOf(command: RecordedCommand): string[] {
    return dayShardsOf(command.input.TransactItems as TransactWriteItem[]);
  }

  function reasons(command: RecordedCommand, code: (index: number) => string): ReturnType<typeof transactionCancelled> {
    return transactionCancelled((command.input.TransactItems as TransactWriteItem[]).map((_, index) => ({ Code: code(index) })));
  }

  test('every transaction of a committer lands on its lane while nothing conflicts, in both modes', async () => {
    const dynamodb = new FakeClient(() => ({}));
    const counting = committer(dynamodb, laneOn(5));
    await counting.commitEach(views(6));
    await counting.commitBatch(views(6, 'later', 6));
    expect(dynamodb.commands.map(dayShardOf)).toEqual(Array.from({ length: 7 }, () => [`${DAY}#shard-5`]));
  });

  test('a conflict on the counter moves the lane before the retry, and the lane stays moved', async () => {
    const dynamodb = new FakeClient((command, call) => {
      if (call === 1) throw reasons(command, (index) => (index === 3 ? 'TransactionConflict' : 'None'));
      return {};
    });
    const counting = committer(dynamodb, laneOn(2), laneOn(6));
    const outcomes = await counting.commitBatch(views(3));
    await counting.commitBatch(views(3, 'later', 3));

    expect([...outcomes.values()].every((outcome) => outcome.status === 'applied')).toBe(true);
    expect(dynamodb.commands.map(dayShardOf)).toEqual([[`${DAY}#shard-2`], [`${DAY}#shard-6`], [`${DAY}#shard-6`]]);
  });

  test('a conflict on a dedup record commits the others at once, then that event on its own', async () => {
    const dynamodb = new FakeClient((command, call) => {
      if (call === 1) throw reasons(command, (index) => (index === 1 ? 'TransactionConflict' : 'None'));
      return {};
    });
    const outcomes = await committer(dynamodb, laneOn(1)).commitBatch(views(3));

    expect([...outcomes.values()].map((outcome) => outcome.status)).toEqual(['applied', 'applied', 'applied']);
    const putIds = (call: number) => (dynamodb.commands[call].input.TransactItems as TransactWriteItem[]).filter((action) => action.Put !== undefined).map((action) => unmarshall(action.Put?.Item ?? {}).id);
    expect(dynamodb.commands).toHaveLength(3);
    expect(putIds(1)).toEqual(['page-view-counter#evt-0', 'page-view-counter#evt-2']);
    expect(putIds(2)).toEqual(['page-view-counter#evt-1']);
    expect(dayShardOf(dynamodb.commands[2])).toEqual([`${DAY}#shard-1`]);
  });

  test('the racing event found committed by then is a duplicate, and a second conflict on it is retried, not handed back again', async () => {
    const dynamodb = new FakeClient((command, call) => {
      if (call === 1 || call === 3) throw reasons(command, (index) => (index === 0 ? 'TransactionConflict' : 'None'));
      if (call === 4) throw reasons(command, (index) => (index === 0 ? 'ConditionalCheckFailed' : 'None'));
      return {};
    });
    const outcomes = await committer(dynamodb, laneOn(1)).commitBatch(views(2));

    expect(outcomes.get(1)).toEqual({ status: 'applied' });
    expect(outcomes.get(0)).toEqual({ status: 'duplicate', conflictingPayload: false });
    expect(dynamodb.commands).toHaveLength(4);
  });

  test('an ordered source retries a dedup record conflict instead, as it may not skip ahead', async () => {
    const dynamodb = new FakeClient((command, call) => {
      if (call === 1) throw reasons(command, (index) => (index === 1 ? 'TransactionConflict' : 'None'));
      return {};
    });
    const outcomes = await committer(dynamodb, laneOn(1)).commitBatch(views(3), { stopOnFailure: true });

    expect([...outcomes.values()].map((outcome) => outcome.status)).toEqual(['applied', 'applied', 'applied']);
    expect(dynamodb.commands).toHaveLength(2);
    expect((dynamodb.commands[1].input.TransactItems as TransactWriteItem[]).filter((action) => action.Put !== undefined)).toHaveLength(3);
  });
});
