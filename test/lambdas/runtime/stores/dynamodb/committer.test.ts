/**
 * The transactional committer: each event's dedup put and effects in one TransactWriteItems, and
 * what it makes of a cancellation (duplicates, conflicts, a failing effect condition).
 *
 * DynamoDB is a fake whose `send` records TransactWriteItems commands and answers as each test
 * scripts, throwing the SDK's own TransactionCanceledException with CancellationReasons in action
 * order. What is under test is how we read those reasons, not how DynamoDB produces them.
 */
import type { CancellationReason, DynamoDBClient, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { PendingCommit } from '../../../../../lambdas/runtime/stores/dynamodb/chunking';
import { TransactionalCommitter, type CommitOutcome } from '../../../../../lambdas/runtime/stores/dynamodb/committer';
import { DEFAULT_DEDUP_TTL_SECONDS, expirationFrom } from '../../../../../lambdas/runtime/stores/dynamodb/dedup-record';
import { increment, type Effect } from '../../../../../lambdas/runtime/stores/dynamodb/effects';
import { decidedByState, InvalidEffectError, NotAttemptedError, OutOfTimeError, PermanentError, RetriesExhaustedError, StateRefusalError } from '../../../../../lambdas/runtime/core/errors';
import { tokenFor } from '../../../../../lambdas/runtime/stores/dynamodb/transaction';
import { asClient, awsError, FakeClient, noSleep, transactionCancelled, type RecordedCommand } from '../../../../helpers/fakes';

const NOW = new Date('2026-11-30T12:00:00.000Z');
const DEDUP = { table: 'idempotency', consumer: 'counter' };

function pending(index: number, ...effects: Effect[]): PendingCommit {
  return { index, eventId: `evt-${index}`, payloadHash: `hash-${index}`, effects: effects.length > 0 ? effects : [increment('counters', { pk: `page#${index}` }, 'views')] };
}

function guardedUpdate(pk: string): Effect {
  return { kind: 'update', table: 'orders', key: { pk }, updateExpression: 'SET #s = :s', names: { '#s': 'status' }, values: { ':s': 'SHIPPED' }, conditionExpression: 'attribute_exists(pk)' };
}

function committer(dynamodb: FakeClient, maxAttempts = 3): TransactionalCommitter {
  return new TransactionalCommitter({ dynamodb: asClient<DynamoDBClient>(dynamodb), dedup: DEDUP, retry: { sleep: noSleep, maxAttempts }, now: () => NOW });
}

function itemsOf(command: RecordedCommand): TransactWriteItem[] {
  return command.input.TransactItems as TransactWriteItem[];
}

/** The event ids whose dedup puts a transaction carries, in order. */
function eventIdsOf(command: RecordedCommand): string[] {
  return itemsOf(command).filter((item) => item.Put).map((item) => String(item.Put?.Item?.id?.S).replace(`${DEDUP.consumer}#`, ''));
}

/** A reason list for `actions` where the dedup puts of `duplicates` failed their condition. */
function duplicateReasons(actions: readonly TransactWriteItem[], duplicates: ReadonlyMap<string, string | undefined>): CancellationReason[] {
  return actions.map((action) => {
    const eventId = action.Put?.Item?.id?.S?.replace(`${DEDUP.consumer}#`, '');
    if (eventId === undefined || !duplicates.has(eventId)) return { Code: 'None' };
    const storedHash = duplicates.get(eventId);
    return { Code: 'ConditionalCheckFailed', Item: storedHash ? { id: { S: `${DEDUP.consumer}#${eventId}` }, payloadHash: { S: storedHash } } : undefined };
  });
}

/** DynamoDB as seen by the committer: events already committed fail their dedup put. */
function dynamoWithCommitted(committed: ReadonlyMap<string, string | undefined>): FakeClient {
  return new FakeClient((command) => {
    const actions = itemsOf(command);
    if (eventIdsOf(command).some((eventId) => committed.has(eventId))) throw transactionCancelled(duplicateReasons(actions, committed));
    return {};
  });
}

function statuses(outcomes: Map<number, CommitOutcome>): Record<number, string> {
  return Object.fromEntries([...outcomes].map(([index, outcome]) => [index, outcome.status]));
}

describe('commitBatch', () => {
  test('commits a batch in one transaction and marks every event applied', async () => {
    const dynamodb = new FakeClient();
    const outcomes = await committer(dynamodb).commitBatch([pending(0), pending(1), pending(2)]);
    expect(statuses(outcomes)).toEqual({ 0: 'applied', 1: 'applied', 2: 'applied' });
    expect(dynamodb.commands).toHaveLength(1);
    expect(eventIdsOf(dynamodb.commands[0])).toEqual(['evt-0', 'evt-1', 'evt-2']);
  });

  test('the dedup records expire after the configured TTL, counted from now', async () => {
    const dynamodb = new FakeClient();
    await new TransactionalCommitter({ dynamodb: asClient<DynamoDBClient>(dynamodb), dedup: { ...DEDUP, ttlSeconds: 3_600 }, now: () => NOW }).commitBatch([pending(0)]);
    const [put] = itemsOf(dynamodb.commands[0]);
    expect(put.Put?.Item?.expiration).toEqual({ N: String(NOW.getTime() / 1000 + 3_600) });
  });

  test('a transaction carries a ClientRequestToken of its own: a redelivery of the same batch does not share it', async () => {
    const dynamodb = new FakeClient();
    await committer(dynamodb).commitBatch([pending(0)]);
    await committer(dynamodb).commitBatch([pending(0)]);
    const [first, second] = dynamodb.commands.map((command) => command.input as { ClientRequestToken: string; TransactItems: TransactWriteItem[] });
    expect(first?.TransactItems).toEqual(second?.TransactItems);
    expect(first?.ClientRequestToken).toHaveLength(36);
    expect(first?.ClientRequestToken).not.toBe(second?.ClientRequestToken);
    expect(first?.ClientRequestToken).not.toBe(tokenFor(first?.TransactItems ?? []));
  });

  test('events committed before are duplicates; the chunk commits again without them', async () => {
    const dynamodb = dynamoWithCommitted(new Map([['evt-1', 'hash-1']]));
    const outcomes = await committer(dynamodb).commitBatch([pending(0), pending(1), pending(2)]);

    expect(outcomes.get(1)).toEqual({ status: 'duplicate', conflictingPayload: false });
    expect(statuses(outcomes)).toEqual({ 0: 'applied', 1: 'duplicate', 2: 'applied' });
    expect(dynamodb.commands.map(eventIdsOf)).toEqual([['evt-0', 'evt-1', 'evt-2'], ['evt-0', 'evt-2']]);
    const effectsOfRetry = itemsOf(dynamodb.commands[1]).filter((item) => item.Update).map((item) => unmarshall(item.Update?.Key ?? {}).pk);
    expect(effectsOfRetry).toEqual(['page#0', 'page#2']);
  });

  test('a duplicate whose stored payload hash differs is flagged as conflicting', async () => {
    const dynamodb = dynamoWithCommitted(new Map([['evt-0', 'another-hash']]));
    const outcomes = await committer(dynamodb).commitBatch([pending(0)]);
    expect(outcomes.get(0)).toEqual({ status: 'duplicate', conflictingPayload: true });
  });

  test('a duplicate whose old record came back without a hash is not flagged', async () => {
    const dynamodb = dynamoWithCommitted(new Map([['evt-0', undefined]]));
    expect((await committer(dynamodb).commitBatch([pending(0)])).get(0)).toEqual({ status: 'duplicate', conflictingPayload: false });
  });

  test('a batch of only duplicates needs no second transaction', async () => {
    const dynamodb = dynamoWithCommitted(new Map([['evt-0', 'hash-0'], ['evt-1', 'hash-1']]));
    const outcomes = await committer(dynamodb).commitBatch([pending(0), pending(1)]);
    expect(statuses(outcomes)).toEqual({ 0: 'duplicate', 1: 'duplicate' });
    expect(dynamodb.commands).toHaveLength(1);
  });

  test('a transaction conflict on an effect is retried with the same request token, then applies', async () => {
    const dynamodb = new FakeClient((_command, call) => {
      if (call < 3) throw transactionCancelled([{ Code: 'None' }, { Code: 'TransactionConflict' }]);
      return {};
    });
    const outcomes = await committer(dynamodb, 5).commitBatch([pending(0)]);
    expect(statuses(outcomes)).toEqual({ 0: 'applied' });
    expect(new Set(dynamodb.commands.map((command) => command.input.ClientRequestToken)).size).toBe(1);
    expect(dynamodb.commands).toHaveLength(3);
  });

  test('a cancellation caused by an effect\'s condition isolates the culprit: the others commit one by one', async () => {
    const dynamodb = new FakeClient((command) => {
      const actions = itemsOf(command);
      const failing = actions.findIndex((action) => action.Update && unmarshall(action.Update.Key ?? {}).pk === 'order#missing');
      if (failing >= 0) throw transactionCancelled(actions.map((_, position) => ({ Code: position === failing ? 'ConditionalCheckFailed' : 'None' })));
      return {};
    });
    const outcomes = await committer(dynamodb).commitBatch([pending(0), pending(1, guardedUpdate('order#missing')), pending(2)]);

    expect(statuses(outcomes)).toEqual({ 0: 'applied', 1: 'failed', 2: 'applied' });
    const failure = outcomes.get(1) as { status: 'failed'; error: unknown };
    expect(failure.error).toBeInstanceOf(PermanentError);
    // The stored state decided it: an ordered group does not go on past it in this invocation.
    expect(failure.error).toBeInstanceOf(StateRefusalError);
    expect(decidedByState(failure.error)).toBe(true);
    expect(String((failure.error as Error).message)).toContain('ConditionalCheckFailed');
    expect(dynamodb.commands.map(eventIdsOf)).toEqual([['evt-0', 'evt-1', 'evt-2'], ['evt-0'], ['evt-1'], ['evt-2']]);
  });

  test('a permanent request error (ValidationException) falls back to one transaction per event', async () => {
    const dynamodb = new FakeClient((command) => {
      if (eventIdsOf(command).includes('evt-1')) throw awsError('ValidationException', 400, 'Item size has exceeded the maximum allowed size');
      return {};
    });
    const outcomes = await committer(dynamodb).commitBatch([pending(0), pending(1), pending(2)]);
    expect(statuses(outcomes)).toEqual({ 0: 'applied', 1: 'failed', 2: 'applied' });
  });

  test('a transient failure that outlasts the retries fails the chunk\'s events with RetriesExhaustedError', async () => {
    const dynamodb = new FakeClient(() => {
      throw awsError('ProvisionedThroughputExceededException', 400);
    });
    const outcomes = await committer(dynamodb, 3).commitBatch([pending(0), pending(1)]);
    for (const index of [0, 1]) expect((outcomes.get(index) as { error: unknown }).error).toBeInstanceOf(RetriesExhaustedError);
    expect(dynamodb.commands).toHaveLength(3);
  });

  test('stopOnFailure: after a chunk fails transiently the later chunks are not attempted', async () => {
    const dynamodb = new FakeClient(() => {
      throw awsError('InternalServerError', 500);
    });
    const events = Array.from({ length: 60 }, (_, index) => pending(index));
    const outcomes = await committer(dynamodb, 2).commitBatch(events, { stopOnFailure: true });

    expect(dynamodb.commands).toHaveLength(2);
    const notAttempted = [...outcomes.values()].filter((outcome) => outcome.status === 'failed' && outcome.error instanceof NotAttemptedError);
    expect(notAttempted.length).toBe(60 - eventIdsOf(dynamodb.commands[0]).length);
  });

  test('without stopOnFailure the later chunks are still attempted', async () => {
    const dynamodb = new FakeClient((_command, call) => {
      if (call <= 2) throw awsError('InternalServerError', 500);
      return {};
    });
    const events = Array.from({ length: 60 }, (_, index) => pending(index));
    const outcomes = await committer(dynamodb, 2).commitBatch(events);
    expect(outcomes.get(59)).toEqual({ status: 'applied' });
  });

  test('an event no transaction can hold fails permanently; the others commit', async () => {
    const dynamodb = new FakeClient();
    const tooWide = pending(1, ...Array.from({ length: 100 }, (_, item) => increment('counters', { pk: `p#${item}` }, 'views')));
    const outcomes = await committer(dynamodb).commitBatch([pending(0), tooWide, pending(2)]);
    expect(statuses(outcomes)).toEqual({ 0: 'applied', 1: 'failed', 2: 'applied' });
    expect((outcomes.get(1) as { error: unknown }).error).toBeInstanceOf(PermanentError);
  });

  test('nothing to commit, nothing sent', async () => {
    const dynamodb = new FakeClient();
    expect((await committer(dynamodb).commitBatch([])).size).toBe(0);
    expect(dynamodb.commands).toEqual([]);
  });
});

describe('commitEach', () => {
  test('one transaction per event, in order', async () => {
    const dynamodb = new FakeClient();
    const outcomes = await committer(dynamodb).commitEach([pending(0), pending(1), pending(2)]);
    expect(statuses(outcomes)).toEqual({ 0: 'applied', 1: 'applied', 2: 'applied' });
    expect(dynamodb.commands.map(eventIdsOf)).toEqual([['evt-0'], ['evt-1'], ['evt-2']]);
  });

  test.each([
    ['a permanent', awsError('AccessDeniedException', 403)],
    ['a transient', awsError('InternalServerError', 500)],
  ])('stopOnFailure: %s failure leaves the rest unattempted, for the consumer to settle it first', async (_kind, error) => {
    const dynamodb = new FakeClient((command) => {
      if (eventIdsOf(command)[0] === 'evt-1') throw error;
      return {};
    });
    const outcomes = await committer(dynamodb, 1).commitEach([pending(0), pending(1), pending(2), pending(3)], { stopOnFailure: true });
    expect(statuses(outcomes)).toEqual({ 0: 'applied', 1: 'failed', 2: 'failed', 3: 'failed' });
    expect((outcomes.get(2) as { error: unknown }).error).toBeInstanceOf(NotAttemptedError);
    expect((outcomes.get(3) as { error: unknown }).error).toBeInstanceOf(NotAttemptedError);
    expect(dynamodb.commands.map(eventIdsOf)).toEqual([['evt-0'], ['evt-1']]);
  });
});

describe('expirationFrom', () => {
  test('is epoch seconds plus the TTL, 30 days by default', () => {
    expect(DEFAULT_DEDUP_TTL_SECONDS).toBe(2_592_000);
    expect(expirationFrom(new Date('2026-11-30T12:00:00.999Z'))).toBe(Math.floor(NOW.getTime() / 1000) + 2_592_000);
    expect(expirationFrom(NOW, 60)).toBe(NOW.getTime() / 1000 + 60);
  });
});

describe('an effect that no transaction can carry fails its own event only', () => {
  class Money {
    public constructor(public readonly cents: number) {}
  }
  const undefinedKey = (): Effect => increment('counters', { pk: undefined as unknown as string }, 'views');
  const classInstance = (): Effect => ({ kind: 'update', table: 'orders', key: { pk: 'order#1' }, updateExpression: 'SET #t = :t', names: { '#t': 'total' }, values: { ':t': new Money(250) } });
  const unknownKind = (): Effect => ({ kind: 'delete', table: 'orders', key: { pk: 'order#2' } }) as unknown as Effect;

  test.each([
    ['an undefined key value', undefinedKey],
    ['a class instance among its values', classInstance],
    ['an unknown kind', unknownKind],
  ])('batch mode, %s: that event fails permanently (InvalidEffectError), the rest commit in one transaction', async (_label, bad) => {
    const dynamodb = new FakeClient(() => ({}));
    const outcomes = await committer(dynamodb).commitBatch([pending(1), pending(2, bad()), pending(3)]);

    expect(statuses(outcomes)).toEqual({ 1: 'applied', 2: 'failed', 3: 'applied' });
    const failure = outcomes.get(2) as Extract<CommitOutcome, { status: 'failed' }>;
    expect(failure.error).toBeInstanceOf(InvalidEffectError);
    expect(failure.error).toBeInstanceOf(PermanentError);
    // The event's own fault: it fails again whenever it comes back.
    expect(decidedByState(failure.error)).toBe(false);
    expect((failure.error as Error).message).toContain('evt-2');
    expect(dynamodb.commandsNamed('TransactWriteItemsCommand').map(eventIdsOf)).toEqual([['evt-1', 'evt-3']]);
  });

  test('per-record mode too', async () => {
    const dynamodb = new FakeClient(() => ({}));
    const outcomes = await committer(dynamodb).commitEach([pending(1, classInstance()), pending(2)]);
    expect(statuses(outcomes)).toEqual({ 1: 'failed', 2: 'applied' });
    expect(dynamodb.commandsNamed('TransactWriteItemsCommand').map(eventIdsOf)).toEqual([['evt-2']]);
  });

  test('a handler that returned no array of effects is caught the same way', async () => {
    const dynamodb = new FakeClient(() => ({}));
    const broken = { ...pending(1), effects: undefined as unknown as Effect[] };
    const outcomes = await committer(dynamodb).commitBatch([broken, pending(2)]);
    expect(statuses(outcomes)).toEqual({ 1: 'failed', 2: 'applied' });
  });
});

describe('the invocation\'s time budget', () => {
  /** A budget that the fake DynamoDB spends: each transaction takes `msPerCall`. */
  function spendingBudget(totalMs: number, msPerCall: number) {
    let spent = 0;
    const budget = { remainingMs: () => Math.max(0, totalMs - spent), exhausted: () => spent >= totalMs };
    const dynamodb = new FakeClient(() => {
      spent += msPerCall;
      return {};
    });
    return { budget, dynamodb };
  }
  /** Events that each need their own transaction: a conditional update of one shared item cannot merge. */
  const conflicting = (count: number) => Array.from({ length: count }, (_, index) => pending(index, guardedUpdate('order#shared')));

  test('no transaction starts once the time for new work is gone: its events fail with OutOfTimeError (transient)', async () => {
    const { budget, dynamodb } = spendingBudget(2_500, 1_000);
    const outcomes = await committer(dynamodb).commitBatch(conflicting(5), { budget });

    expect(statuses(outcomes)).toEqual({ 0: 'applied', 1: 'applied', 2: 'applied', 3: 'failed', 4: 'failed' });
    expect((outcomes.get(3) as { error: unknown }).error).toBeInstanceOf(OutOfTimeError);
    expect(dynamodb.commandsNamed('TransactWriteItemsCommand')).toHaveLength(3);
  });

  test('ordered: the event out of time stops the batch; the rest are not attempted', async () => {
    const { budget, dynamodb } = spendingBudget(1_500, 1_000);
    const outcomes = await committer(dynamodb).commitBatch(conflicting(4), { budget, stopOnFailure: true });
    const errors = [...outcomes.values()].map((outcome) => (outcome.status === 'failed' ? (outcome.error as Error).name : outcome.status));
    expect(errors).toEqual(['applied', 'applied', 'OutOfTimeError', 'NotAttemptedError']);
  });

  test('per-record mode checks before each transaction', async () => {
    const { budget, dynamodb } = spendingBudget(1_000, 1_000);
    const outcomes = await committer(dynamodb).commitEach([pending(1), pending(2)], { budget });
    expect(statuses(outcomes)).toEqual({ 1: 'applied', 2: 'failed' });
  });
});
