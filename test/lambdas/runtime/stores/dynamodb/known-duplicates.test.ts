/**
 * Redelivered records looked up before the transactions: a redelivery already committed is a
 * duplicate without riding in (and cancelling) a transaction with fresh events. The read is an
 * optimisation: when it fails, or finds nothing, the conditional dedup put decides as before.
 *
 * DynamoDB is a fake that answers BatchGetItem with the dedup records a test says exist and
 * records every command; what is under test is which commands we send and what we make of them.
 */
import type { DynamoDBClient, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import type { PendingCommit } from '../../../../../lambdas/runtime/stores/dynamodb/chunking';
import { TransactionalCommitter } from '../../../../../lambdas/runtime/stores/dynamodb/committer';
import { dedupKey } from '../../../../../lambdas/runtime/stores/dynamodb/dedup-record';
import { increment } from '../../../../../lambdas/runtime/stores/dynamodb/effects';
import { payloadHash } from '../../../../../lambdas/runtime/events/event-id';
import { DYNAMODB_LIMITS } from '../../../../../aws/limits';
import { findCommitted } from '../../../../../lambdas/runtime/stores/dynamodb/known-duplicates';

const BATCH_GET_MAX_KEYS = DYNAMODB_LIMITS.maxBatchGetKeys;
import { fromSqsRecord } from '../../../../../lambdas/runtime/decoding/records';
import { transactionalStrategy } from '../../../../../lambdas/runtime/stores/dynamodb/transactional-strategy';
import { sqsRecord } from '../../../../helpers/events';
import { asClient, awsError, FakeClient, noSleep, type RecordedCommand } from '../../../../helpers/fakes';

const DEDUP = { table: 'idempotency', consumer: 'counter' };

function pending(index: number, redelivered = false): PendingCommit {
  return { index, eventId: `evt-${index}`, payloadHash: `hash-${index}`, effects: [increment('counters', { pk: `page#${index % 3}` }, 'views')], redelivered };
}

/** DynamoDB where these event ids were committed (with these payload hashes); every transaction succeeds. */
function dynamoWithRecords(stored: ReadonlyMap<string, string>): FakeClient {
  return new FakeClient((command) => {
    if (command.name !== 'BatchGetItemCommand') return {};
    const request = (command.input.RequestItems as Record<string, { Keys: { id: { S: string } }[] }>)[DEDUP.table];
    const found = (request?.Keys ?? []).flatMap(({ id }) => {
      const eventId = id.S.slice(DEDUP.consumer.length + 1);
      return stored.has(eventId) ? [{ id: { S: id.S }, payloadHash: { S: stored.get(eventId) as string } }] : [];
    });
    return { Responses: { [DEDUP.table]: found } };
  });
}

function committer(dynamodb: FakeClient): TransactionalCommitter {
  return new TransactionalCommitter({ dynamodb: asClient<DynamoDBClient>(dynamodb), dedup: DEDUP, retry: { sleep: noSleep, maxAttempts: 1 } });
}

/** The event ids whose dedup puts each transaction carried. */
function committedEventIds(dynamodb: FakeClient): string[][] {
  return dynamodb.commandsNamed('TransactWriteItemsCommand').map((command: RecordedCommand) =>
    (command.input.TransactItems as TransactWriteItem[]).flatMap((item) => (item.Put ? [String(item.Put.Item?.id?.S).slice(DEDUP.consumer.length + 1)] : [])),
  );
}

describe('commitBatch with redeliveries among fresh events', () => {
  test('a redelivery already committed is a duplicate and rides in no transaction', async () => {
    const dynamodb = dynamoWithRecords(new Map([['evt-1', 'hash-1']]));
    const outcomes = await committer(dynamodb).commitBatch([pending(0), pending(1, true), pending(2, true), pending(3)]);

    expect(outcomes.get(1)).toEqual({ status: 'duplicate', conflictingPayload: false });
    expect([0, 2, 3].map((index) => outcomes.get(index)?.status)).toEqual(['applied', 'applied', 'applied']);
    // An unordered run may place events sharing a page next to each other: which events ride matters, not their order.
    expect(committedEventIds(dynamodb).map((ids) => [...ids].sort())).toEqual([['evt-0', 'evt-2', 'evt-3']]);
  });

  test('reads only the redeliveries, strongly consistent, before any transaction', async () => {
    const dynamodb = dynamoWithRecords(new Map());
    await committer(dynamodb).commitBatch([pending(0), pending(1, true), pending(2, true)]);

    expect(dynamodb.commands.map((command) => command.name)).toEqual(['BatchGetItemCommand', 'TransactWriteItemsCommand']);
    expect(dynamodb.commands[0]?.input.RequestItems).toEqual({
      [DEDUP.table]: { Keys: [1, 2].map((index) => ({ id: { S: dedupKey(DEDUP.consumer, `evt-${index}`) } })), ConsistentRead: true, ProjectionExpression: 'id, payloadHash' },
    });
  });

  test('a stored record with another payload hash is flagged as a conflicting duplicate', async () => {
    const dynamodb = dynamoWithRecords(new Map([['evt-1', 'another-hash']]));
    const outcomes = await committer(dynamodb).commitBatch([pending(0), pending(1, true)]);
    expect(outcomes.get(1)).toEqual({ status: 'duplicate', conflictingPayload: true });
  });

  test('a failed read leaves the decision to the transaction', async () => {
    const dynamodb = new FakeClient((command) => {
      if (command.name === 'BatchGetItemCommand') throw awsError('ProvisionedThroughputExceededException', 400);
      return {};
    });
    const outcomes = await committer(dynamodb).commitBatch([pending(0), pending(1, true)]);
    expect([...outcomes.values()].map((outcome) => outcome.status)).toEqual(['applied', 'applied']);
    expect(committedEventIds(dynamodb)).toEqual([['evt-0', 'evt-1']]);
  });

  test('a batch of redeliveries alone is not read first: its transactions tell the duplicates apart', async () => {
    const dynamodb = dynamoWithRecords(new Map());
    await committer(dynamodb).commitBatch([pending(0, true), pending(1, true)]);
    expect(dynamodb.commandsNamed('BatchGetItemCommand')).toHaveLength(0);
  });

  test('per-record mode reads the redeliveries first too', async () => {
    const dynamodb = dynamoWithRecords(new Map([['evt-1', 'hash-1']]));
    const outcomes = await committer(dynamodb).commitEach([pending(0), pending(1, true), pending(2)]);
    expect(outcomes.get(1)?.status).toBe('duplicate');
    expect(committedEventIds(dynamodb)).toEqual([['evt-0'], ['evt-2']]);
  });
});

describe('findCommitted', () => {
  test(`reads at most ${BATCH_GET_MAX_KEYS} keys per request, each event id once`, async () => {
    const dynamodb = dynamoWithRecords(new Map([['evt-150', 'hash-150']]));
    const events = Array.from({ length: 250 }, (_, index) => pending(index % 230, true));
    const found = await findCommitted(asClient<DynamoDBClient>(dynamodb), DEDUP, events.map((event) => event.eventId));

    expect(found).toEqual(new Map([['evt-150', 'hash-150']]));
    const keyCounts = dynamodb.commands.map((command) => (command.input.RequestItems as Record<string, { Keys: unknown[] }>)[DEDUP.table]?.Keys.length);
    expect(keyCounts).toEqual([100, 100, 30]);
  });
});

describe('transactionalStrategy', () => {
  test('marks a record SQS delivered before (ApproximateReceiveCount > 1) as redelivered', async () => {
    const dynamodb = dynamoWithRecords(new Map([['evt-1', payloadHash({ n: 1 })]]));
    const strategy = transactionalStrategy({ dynamodb: asClient<DynamoDBClient>(dynamodb), dedup: DEDUP, retry: { sleep: noSleep, maxAttempts: 1 } });
    const accepted = [1, 2].map((receiveCount, index) => ({
      index,
      event: { eventId: `evt-${index}`, type: 'test.event', occurredAt: '2026-11-30T10:00:00Z', source: 'test', payload: { n: index } },
      context: { record: fromSqsRecord(sqsRecord('{}', { receiveCount })) },
      invoke: () => [increment('counters', { pk: `page#${index}` }, 'views')],
    }));
    const outcomes = await strategy.apply(accepted, { ordered: false });

    expect(outcomes.get(1)).toEqual({ status: 'duplicate', conflictingPayload: false });
    expect(committedEventIds(dynamodb)).toEqual([['evt-0']]);
  });
});
