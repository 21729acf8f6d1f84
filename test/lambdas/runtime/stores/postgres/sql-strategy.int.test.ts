/**
 * The SQL strategy on a real PostgreSQL (startPostgres), driven through createConsumer with SQS
 * batches: each event's dedup row commits in the same transaction as its effects, so an event is
 * applied once however often, and however concurrently, it is delivered; a serialization failure
 * is retried; a bad effect fails its event alone; increments are summed to one statement per row.
 */
import { MetricName } from '../../../../../aws/metrics';
import { fromSqsRecord } from '../../../../../lambdas/runtime/decoding/records';
import { NotAttemptedError, sqlStrategy, SqlStatementError, SqlTransientError, TransientError, upsertIfNewer, type SqlEffects } from '../../../../../lambdas/runtime';
import type { AcceptedEvent } from '../../../../../lambdas/runtime/consumer/strategy';
import { startPostgres, type RunningPostgres } from '../../../../../emulator/engines/postgres';
import { PostgresSession, PostgresSqlSession } from '../../../../../emulator/engines/postgres-session';
import { sqsEvent } from '../../../../helpers/events';
import { noSleep } from '../../../../helpers/fakes';
import { balancesOf, countOf, createLedger, entry, entryEffects, incrementOf, interferingSession, ledgerConsumer, MAX_AMOUNT, recordOf, RecordingSession } from './ledger-fixture';

let postgres: RunningPostgres;
let session: PostgresSqlSession;
let startedInMs: number;

beforeAll(async () => {
  const startedAt = Date.now();
  postgres = await startPostgres();
  startedInMs = Date.now() - startedAt;
  session = new PostgresSqlSession(postgres.connection);
});

afterAll(async () => {
  await session?.close();
  await postgres?.stop();
});

test('PostgreSQL started for these tests in a few seconds', () => {
  expect(startedInMs).toBeLessThan(15_000);
});

describe('duplicates', () => {
  test('an event twice in one batch and again in a later batch is applied once; a conflicting duplicate is counted', async () => {
    const ledger = await createLedger(postgres.connection);
    const consumer = ledgerConsumer(ledger, session);
    const first = entry('e-1', 'acc-a', 100);
    const second = entry('e-2', 'acc-a', 5);
    // The same event under two message ids in one batch (a producer retry), beside another event.
    expect((await consumer.handle(sqsEvent(recordOf(first), recordOf(first), recordOf(second)))).batchItemFailures).toEqual([]);
    // A later batch: the first event again, and one with its id but another payload.
    const conflicting = { ...first, payload: { ...first.payload, amount: 999 } };
    expect((await consumer.handle(sqsEvent(recordOf(first), recordOf(conflicting)))).batchItemFailures).toEqual([]);
    expect(await balancesOf(postgres.connection, ledger)).toEqual({ 'acc-a': 105 });
    expect(await countOf(postgres.connection, `SELECT count(*) FROM ${ledger.entries}`)).toBe(2);
    expect(consumer.observability.counts.get(MetricName.PROCESSED)).toBe(2);
    expect(consumer.observability.counts.get(MetricName.CONFLICTING_DUPLICATES)).toBe(1);
    expect(consumer.observability.counts.get(MetricName.DUPLICATES)).toBeGreaterThanOrEqual(2);
  });

  test('two invocations with the same 40 events at the same time, on two sessions, apply each once and do not deadlock', async () => {
    const ledger = await createLedger(postgres.connection);
    const other = new PostgresSqlSession(postgres.connection);
    try {
      const [a, b] = [ledgerConsumer(ledger, session), ledgerConsumer(ledger, other)];
      const events = Array.from({ length: 40 }, (_, n) => entry(`c-${n}`, `acc-${n % 4}`, n + 1));
      // The second invocation's batch is in the reverse order: the dedup rows are inserted in key order, so their locks cannot cross.
      const [first, second] = await Promise.all([a.handle(sqsEvent(...events.map((event) => recordOf(event)))), b.handle(sqsEvent(...[...events].reverse().map((event) => recordOf(event))))]);
      expect([first.batchItemFailures, second.batchItemFailures]).toEqual([[], []]);
      const applied = (a.observability.counts.get(MetricName.PROCESSED) ?? 0) + (b.observability.counts.get(MetricName.PROCESSED) ?? 0);
      expect(applied).toBe(40);
      // Each event was a duplicate for exactly one of the two.
      expect((a.observability.counts.get(MetricName.DUPLICATES) ?? 0) + (b.observability.counts.get(MetricName.DUPLICATES) ?? 0)).toBe(40);
      const expected: Record<string, number> = {};
      events.forEach((event) => (expected[event.payload.account] = (expected[event.payload.account] ?? 0) + event.payload.amount));
      expect(await balancesOf(postgres.connection, ledger)).toEqual(expected);
      expect(await countOf(postgres.connection, `SELECT count(*) FROM ${ledger.entries}`)).toBe(40);
    } finally {
      await other.close();
    }
  });

  test('a crash after commit (the answer lost): the redelivered batch counts duplicates and changes nothing', async () => {
    const ledger = await createLedger(postgres.connection);
    const consumer = ledgerConsumer(ledger, session);
    const batch = [entry('r-1', 'acc-a', 10), entry('r-2', 'acc-b', 20)];
    await consumer.handle(sqsEvent(...batch.map((event) => recordOf(event))));
    const before = await balancesOf(postgres.connection, ledger);
    // Lambda never got the answer: SQS hands the same messages out again.
    const again = await consumer.handle(sqsEvent(...batch.map((event) => recordOf(event, { receiveCount: 2 }))));
    expect(again.batchItemFailures).toEqual([]);
    expect(await balancesOf(postgres.connection, ledger)).toEqual(before);
    expect(consumer.observability.counts.get(MetricName.DUPLICATES)).toBe(2);
  });

  test('a commit that landed but whose answer the session lost: the retry finds the events committed, and applies nothing twice', async () => {
    const ledger = await createLedger(postgres.connection);
    const losing = new RecordingSession(session, {
      afterCommit: async (transaction) => {
        if (transaction === 1) throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
      },
    });
    const consumer = ledgerConsumer(ledger, losing);
    expect((await consumer.handle(sqsEvent(recordOf(entry('l-1', 'acc-a', 7))))).batchItemFailures).toEqual([]);
    expect(losing.transactions).toBe(2);
    expect(await balancesOf(postgres.connection, ledger)).toEqual({ 'acc-a': 7 });
    expect(consumer.observability.counts.get(MetricName.DUPLICATES)).toBe(1);
  });
});

describe('failures', () => {
  test('a serialization failure (a real concurrent transaction, SERIALIZABLE) is retried, and the effect applied once', async () => {
    const ledger = await createLedger(postgres.connection);
    const retried: unknown[] = [];
    // Before the first transaction's increment, another transaction updates the same row and commits.
    const { session: interfering, close } = await interferingSession(postgres.connection, ledger, session);
    try {
      const consumer = ledgerConsumer(ledger, interfering, { isolation: 'serializable', retry: { sleep: noSleep, maxAttempts: 5, onRetry: (error) => retried.push(error) } });
      expect((await consumer.handle(sqsEvent(recordOf(entry('s-1', 'acc-a', 50))))).batchItemFailures).toEqual([]);
      expect(retried).toEqual([expect.any(SqlTransientError)]);
      expect((retried[0] as SqlTransientError).sqlState).toBe('40001');
      expect(interfering.transactions).toBe(2);
      expect(await balancesOf(postgres.connection, ledger)).toEqual({ 'acc-a': 1051 });
      expect(await countOf(postgres.connection, `SELECT count(*) FROM ${ledger.entries}`)).toBe(1);
    } finally {
      await close();
    }
  });

  test('a bad effect (a CHECK, a UNIQUE violation) fails its event alone, permanently, to the DLQ; the rest commit', async () => {
    const ledger = await createLedger(postgres.connection);
    const consumer = ledgerConsumer(ledger, session);
    const good = entry('b-1', 'acc-a', 10);
    const tooLarge = entry('b-2', 'acc-a', MAX_AMOUNT + 1);
    const later = entry('b-3', 'acc-b', 20);
    // Another event (another id) that reuses b-1's entry id: the entries' primary key refuses it.
    const reusedId = { ...entry('b-4', 'acc-b', 1), payload: { entryId: 'b-1', account: 'acc-b', amount: 1 } };
    const response = await consumer.handle(sqsEvent(recordOf(good), recordOf(tooLarge), recordOf(later), recordOf(reusedId)));
    expect(response.batchItemFailures).toEqual([]);
    const dlq = consumer.dlq.commandsNamed('SendMessageCommand').map((command) => JSON.parse(String(command.input.MessageBody)) as { error: { name: string; kind: string; message: string } });
    expect(dlq.map((message) => [message.error.name, message.error.kind])).toEqual([
      ['SqlStatementError', 'permanent'],
      ['SqlStatementError', 'permanent'],
    ]);
    expect(dlq.map((message) => message.error.message)).toEqual([expect.stringContaining('SQLSTATE 23514'), expect.stringContaining('SQLSTATE 23505')]);
    expect(await balancesOf(postgres.connection, ledger)).toEqual({ 'acc-a': 10, 'acc-b': 20 });
    // The failed events left no dedup row: a fixed handler can apply them on a redrive.
    expect(await countOf(postgres.connection, `SELECT count(*) FROM ${ledger.dedup}`)).toBe(2);
  });

  test('an ordered run stops at its first failing event: the rest are not attempted, and leave no dedup row', async () => {
    const ledger = await createLedger(postgres.connection);
    const strategy = sqlStrategy({ session, dedup: { table: ledger.dedup, consumer: 'ledger' } });
    const events = [entry('o-1', 'acc-a', 1), entry('o-2', 'acc-a', MAX_AMOUNT + 1), entry('o-3', 'acc-a', 3)];
    const outcomes = await strategy.apply(events.map((event, index) => accepted(index, event, entryEffects(ledger, event.payload))), { ordered: true });
    expect(outcomes.get(0)).toEqual({ status: 'applied' });
    expect(outcomes.get(1)).toEqual({ status: 'failed', error: expect.any(SqlStatementError) });
    expect(outcomes.get(2)).toEqual({ status: 'failed', error: expect.any(NotAttemptedError) });
    expect(await balancesOf(postgres.connection, ledger)).toEqual({ 'acc-a': 1 });
    expect(await countOf(postgres.connection, `SELECT count(*) FROM ${ledger.dedup}`)).toBe(1);
    expect(await strategy.applied?.(events.map((event) => event.eventId))).toEqual(new Set([events[0]?.eventId]));
  });
});

describe('the invocation\'s time', () => {
  test('a statement blocked on another transaction\'s dedup row is cancelled when the time left runs out: the run fails transiently, within that time, and leaves nothing open', async () => {
    const ledger = await createLedger(postgres.connection);
    const event = entry('t-1', 'acc-a', 10);
    // Another invocation's transaction has claimed the event and not committed (on AWS: one that Lambda ended mid-batch, its transaction left to the Data API's idle timeout).
    const other = await PostgresSession.connect(postgres.connection);
    await other.query('BEGIN');
    await other.query(`INSERT INTO ${ledger.dedup} (dedup_key, payload_hash, expires_at) VALUES ($1, 'x', 0)`, [`ledger#${event.eventId}`]);
    try {
      const strategy = sqlStrategy({ session, dedup: { table: ledger.dedup, consumer: 'ledger' }, retry: { sleep: noSleep, maxAttempts: 3 } });
      const deadline = Date.now() + 1_500;
      const budget = { remainingMs: () => Math.max(0, deadline - Date.now()), exhausted: () => Date.now() >= deadline };
      const startedAt = Date.now();
      const outcomes = await strategy.apply([accepted(0, event, entryEffects(ledger, event.payload))], { ordered: false, budget });
      expect(Date.now() - startedAt).toBeLessThan(2_500);
      const outcome = outcomes.get(0) as { status: string; error: Error };
      expect(outcome.status).toBe('failed');
      expect(outcome.error).toBeInstanceOf(TransientError);
      expect(await countOf(postgres.connection, "SELECT count(*) FROM pg_stat_activity WHERE state LIKE 'idle in transaction%' AND pid <> $1", [await backendPid(other)])).toBe(0);
    } finally {
      await other.query('ROLLBACK');
      await other.close();
    }
  });
});

describe('effects', () => {
  test('increments are summed to one statement per row per batch', async () => {
    const ledger = await createLedger(postgres.connection);
    const recording = new RecordingSession(session);
    const consumer = ledgerConsumer(ledger, recording);
    const events = Array.from({ length: 12 }, (_, n) => entry(`i-${n}`, n % 2 === 0 ? 'acc-even' : 'acc-odd', 10));
    expect((await consumer.handle(sqsEvent(...events.map((event) => recordOf(event))))).batchItemFailures).toEqual([]);
    expect(recording.startingWith(incrementOf(ledger.balances))).toHaveLength(2);
    expect(recording.startingWith(`INSERT INTO "${ledger.dedup}"`)).toHaveLength(1);
    expect(recording.transactions).toBe(1);
    expect(await balancesOf(postgres.connection, ledger)).toEqual({ 'acc-even': 60, 'acc-odd': 60 });
  });

  test('neighbouring statements of one shape go to a session that batches as one call, in order; the summed increments as another', async () => {
    // The two tables commute (no trigger, rule or foreign key), so their effects go table by table, in the tables' name order: balances, then entries.
    const ledger = await createLedger(postgres.connection);
    const recording = new RecordingSession(session, { batches: true });
    const consumer = ledgerConsumer(ledger, recording);
    const events = Array.from({ length: 12 }, (_, n) => entry(`g-${n}`, `acc-${n % 3}`, n + 1));
    expect((await consumer.handle(sqsEvent(...events.map((event) => recordOf(event))))).batchItemFailures).toEqual([]);
    expect(recording.batches.map((batch) => batch.length)).toEqual([3, 12]);
    expect(recording.batches[1]?.map((statement) => statement.parameters[0]?.value)).toEqual(events.map((event) => ({ stringValue: event.payload.entryId })));
    expect(await balancesOf(postgres.connection, ledger)).toEqual({ 'acc-0': 22, 'acc-1': 26, 'acc-2': 30 });
  });

  test('a bad effect inside a batched call: the call is rolled back to the savepoint, the events applied one by one, and the bad one fails alone', async () => {
    const ledger = await createLedger(postgres.connection);
    const recording = new RecordingSession(session, { batches: true });
    const consumer = ledgerConsumer(ledger, recording);
    const events = [entry('h-1', 'acc-a', 10), entry('h-2', 'acc-a', MAX_AMOUNT + 1), entry('h-3', 'acc-b', 20)];
    expect((await consumer.handle(sqsEvent(...events.map((event) => recordOf(event))))).batchItemFailures).toEqual([]);
    expect(recording.batches.filter((batch) => batch[0]?.sql.startsWith(`INSERT INTO "${ledger.entries}"`)).map((batch) => batch.length)).toEqual([3]);
    expect(consumer.dlq.commandsNamed('SendMessageCommand')).toHaveLength(1);
    expect(await balancesOf(postgres.connection, ledger)).toEqual({ 'acc-a': 10, 'acc-b': 20 });
    expect(await countOf(postgres.connection, `SELECT count(*) FROM ${ledger.dedup}`)).toBe(2);
  });

  test('the versioned upsert skips an older version and takes a newer one', async () => {
    const admin = await PostgresSession.connect(postgres.connection);
    const table = `orders_${process.pid}`;
    await admin.query(`CREATE TABLE ${table} (order_id text PRIMARY KEY, status text NOT NULL, version int NOT NULL)`);
    const ledger = await createLedger(postgres.connection);
    const strategy = sqlStrategy({ session, dedup: { table: ledger.dedup, consumer: 'orders' } });
    const apply = async (version: number, status: string): Promise<void> => {
      const event = { ...entry(`order-1:${version}`, 'unused', 0), type: 'order.status-changed' };
      const outcomes = await strategy.apply([accepted(0, event, [upsertIfNewer(table, { order_id: 'o-1' }, 'version', { status, version })])], { ordered: false });
      expect(outcomes.get(0)).toEqual({ status: 'applied' });
    };
    try {
      await apply(3, 'SHIPPED');
      await apply(2, 'PACKED');
      expect((await admin.query(`SELECT status, version FROM ${table}`)).rows).toEqual([{ status: 'SHIPPED', version: 3 }]);
      await apply(4, 'DELIVERED');
      expect((await admin.query(`SELECT status, version FROM ${table}`)).rows).toEqual([{ status: 'DELIVERED', version: 4 }]);
    } finally {
      await admin.close();
    }
  });
});

async function backendPid(connection: PostgresSession): Promise<number> {
  const { rows } = await connection.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return Number(rows[0]?.pid);
}

/** An event as the consumer hands it to a strategy, its handler returning `effects`. */
function accepted(index: number, event: ReturnType<typeof entry>, effects: SqlEffects): AcceptedEvent<SqlEffects> {
  return { index, event, context: { record: fromSqsRecord(recordOf(event)) }, invoke: () => effects };
}
