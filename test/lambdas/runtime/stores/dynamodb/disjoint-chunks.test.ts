/**
 * Batch commit of chunks that share no item: their transactions are in flight at once (they cannot
 * conflict), while chunks that share an item, and every chunk of an ordered batch, commit one after
 * another. Exactness does not depend on it: each event's dedup put still travels with its effects.
 *
 * DynamoDB is a fake whose transactions stay in flight until the test lets them all finish, so that
 * what is under test is how many we start before any of them returns.
 */
import { TransactionCanceledException, type DynamoDBClient, type TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { disjointWaves, planChunks, type PendingCommit } from '../../../../../lambdas/runtime/stores/dynamodb/chunking';
import { MAX_CONCURRENT_TRANSACTIONS, TransactionalCommitter } from '../../../../../lambdas/runtime/stores/dynamodb/committer';
import { increment } from '../../../../../lambdas/runtime/stores/dynamodb/effects';
import { NotAttemptedError } from '../../../../../lambdas/runtime/core/errors';
import { asClient, awsError, FakeClient, noSleep, type RecordedCommand } from '../../../../helpers/fakes';

const DEDUP = { table: 'idempotency', consumer: 'counter' };

/** An event that adds a view to each of these pages. */
function view(index: number, ...pages: string[]): PendingCommit {
  return { index, eventId: `evt-${index}`, payloadHash: `hash-${index}`, effects: pages.map((page) => increment('counters', { pk: page }, 'views')) };
}

/** `count` events with two pages of their own each (3 actions an event, so 33 to a chunk), none shared. */
function disjointViews(count: number): PendingCommit[] {
  return Array.from({ length: count }, (_, index) => view(index, `page#a${index}`, `page#b${index}`));
}

/** A fake DynamoDB that records the most transactions it had in flight at once; `answer` decides each one. */
function trackingDynamo(answer: (command: RecordedCommand) => void = () => undefined): FakeClient & { readonly maxInFlight: () => number } {
  let inFlight = 0;
  let maxInFlight = 0;
  const fake = new FakeClient(async (command) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((resolve) => setImmediate(resolve));
    inFlight -= 1;
    answer(command);
    return {};
  });
  return Object.assign(fake, { maxInFlight: () => maxInFlight });
}

function committer(dynamodb: FakeClient, maxAttempts = 3): TransactionalCommitter {
  return new TransactionalCommitter({ dynamodb: asClient<DynamoDBClient>(dynamodb), dedup: DEDUP, retry: { sleep: noSleep, maxAttempts } });
}

function eventIdsOf(command: RecordedCommand): string[] {
  return (command.input.TransactItems as TransactWriteItem[]).flatMap((item) => (item.Put ? [String(item.Put.Item?.id?.S).slice(DEDUP.consumer.length + 1)] : []));
}

describe('disjointWaves', () => {
  test('chunks that share no item share a wave; one that shares an item with the wave starts the next', () => {
    const { chunks } = planChunks([...disjointViews(66), view(66, 'page#a0'), view(67, 'page#z')]);
    expect(chunks.map((chunk) => chunk.events.length)).toEqual([33, 33, 2]);
    expect(disjointWaves(chunks, 4).map((wave) => wave.map((chunk) => chunks.indexOf(chunk)))).toEqual([[0, 1], [2]]);
  });

  test('a wave holds at most the number of chunks asked for, in order', () => {
    const { chunks } = planChunks(disjointViews(33 * 5));
    expect(disjointWaves(chunks, 2).map((wave) => wave.map((chunk) => chunks.indexOf(chunk)))).toEqual([[0, 1], [2, 3], [4]]);
  });

  test('page views of one day share their day counter: one chunk a wave', () => {
    const events = Array.from({ length: 200 }, (_, index) => view(index, `page#${index}`, 'day#2026-11-30'));
    const { chunks } = planChunks(events);
    expect(chunks.length).toBeGreaterThan(1);
    expect(disjointWaves(chunks, 4).every((wave) => wave.length === 1)).toBe(true);
  });
});

describe('commitBatch with chunks that share no item', () => {
  test(`commits up to ${MAX_CONCURRENT_TRANSACTIONS} of them at once, and every event once`, async () => {
    const dynamodb = trackingDynamo();
    const events = disjointViews(33 * 6);
    const outcomes = await committer(dynamodb).commitBatch(events);

    expect(dynamodb.maxInFlight()).toBe(MAX_CONCURRENT_TRANSACTIONS);
    expect([...outcomes.values()].every((outcome) => outcome.status === 'applied')).toBe(true);
    expect(dynamodb.commands.flatMap(eventIdsOf).sort()).toEqual(events.map((event) => event.eventId).sort());
  });

  test('chunks that share an item commit one after another', async () => {
    const dynamodb = trackingDynamo();
    const events = Array.from({ length: 200 }, (_, index) => view(index, `page#${index}`, 'day#2026-11-30'));
    await committer(dynamodb).commitBatch(events);
    expect(dynamodb.commands.length).toBeGreaterThan(1);
    expect(dynamodb.maxInFlight()).toBe(1);
  });

  test('an ordered batch commits one chunk at a time, and stops at a transient failure', async () => {
    const dynamodb = trackingDynamo(() => {
      throw awsError('InternalServerError', 500);
    });
    const outcomes = await committer(dynamodb, 1).commitBatch(disjointViews(33 * 3), { stopOnFailure: true });

    expect(dynamodb.maxInFlight()).toBe(1);
    expect(dynamodb.commands).toHaveLength(1);
    const notAttempted = [...outcomes.values()].filter((outcome) => outcome.status === 'failed' && outcome.error instanceof NotAttemptedError);
    expect(notAttempted).toHaveLength(66);
  });

  test('a duplicate cancels only its own chunk, which commits again without it; the chunk beside it commits once', async () => {
    const dynamodb = trackingDynamo((command) => {
      const position = eventIdsOf(command).indexOf('evt-40');
      if (position < 0) return;
      const reasons = (command.input.TransactItems as TransactWriteItem[]).map((_, index) => ({ Code: index === position ? 'ConditionalCheckFailed' : 'None' }));
      throw new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: { httpStatusCode: 400 }, CancellationReasons: reasons });
    });
    const outcomes = await committer(dynamodb).commitBatch(disjointViews(66));

    expect(dynamodb.maxInFlight()).toBe(2);
    expect(outcomes.get(40)).toEqual({ status: 'duplicate', conflictingPayload: false });
    expect([...outcomes].filter(([, outcome]) => outcome.status === 'applied')).toHaveLength(65);
    expect(dynamodb.commands.map((command) => eventIdsOf(command).length)).toEqual([33, 33, 32]);
  });
});
