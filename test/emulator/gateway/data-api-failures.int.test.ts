/**
 * The Data API's failure paths (issue 39, items 2, 3, 4, 6 and 9), through a real
 * `@aws-sdk/client-rds-data` client, the local Data API gateway and a real PostgreSQL, each under
 * both behaviours of a failed statement: the Data API aborting its transaction, and PostgreSQL's
 * own (the transaction kept, in its aborted state, for a savepoint to recover).
 *
 * - 2: a bad event fails alone with its SQLSTATE, the rest commit; an ordered run stops at it.
 * - 3: a commit whose answer was lost leaves no transaction for the retry to wait on, and a lock
 *   held by a transaction that will not end makes the retries fail fast, not wait out the budget.
 * - 4: a paused cluster is waited out within the budget, without using up the attempts.
 * - 6: a missing table is the schema's state during a deploy: the events wait, none is dead-lettered.
 * - 9: an event whose data is shaped like a statement cannot run SQL of its own.
 */
import { RDSDataClient } from '@aws-sdk/client-rds-data';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { z } from 'zod';
import { createConsumer, DataApiSession, DlqSender, route, SourceKind, sql, sqlIdentifier, sqlStrategy, type SqlEffects } from '../../../lambdas/runtime';
import { fromSqsRecord } from '../../../lambdas/runtime/decoding/records';
import type { AcceptedEvent } from '../../../lambdas/runtime/consumer/strategy';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../../emulator/engines/account';
import { startPostgres, type RunningPostgres } from '../../../emulator/engines/postgres';
import { PostgresSession, withPostgresSession } from '../../../emulator/engines/postgres-session';
import { LOCAL_CLUSTER_ARN, LOCAL_SECRET_ARN, startDataApiGateway, type DataApiGateway } from '../../../emulator/gateway/data-api-gateway';
import type { StatementFailureBehaviour } from '../../../emulator/gateway/data-api-service';
import { lambdaContext, sqsEvent } from '../../helpers/events';
import { asClient, FakeClient, noSleep } from '../../helpers/fakes';
import { balancesOf, countOf, createLedger, entry, entryEffects, ledgerConsumer, MAX_AMOUNT, recordOf } from '../../lambdas/runtime/stores/postgres/ledger-fixture';

let postgres: RunningPostgres;
const clients: RDSDataClient[] = [];

beforeAll(async () => {
  postgres = await startPostgres();
});

afterAll(async () => {
  for (const client of clients) client.destroy();
  await postgres?.stop();
});

/** A Data API session on `gateway`, its client's `send` wrapped by `intercept` when given. */
function sessionOn(gateway: DataApiGateway, intercept?: (command: { constructor: { name: string } }, send: () => Promise<unknown>) => Promise<unknown>): DataApiSession {
  const client = new RDSDataClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: gateway.endpoint, maxAttempts: 1 });
  clients.push(client);
  if (intercept !== undefined) {
    const send = client.send.bind(client) as (command: unknown) => Promise<unknown>;
    client.send = ((command: { constructor: { name: string } }) => intercept(command, () => send(command))) as typeof client.send;
  }
  return new DataApiSession({ client, resourceArn: LOCAL_CLUSTER_ARN, secretArn: LOCAL_SECRET_ARN });
}

type DlqMessage = { error: { name: string; kind: string; message: string }; reason: string };
const dlqMessages = (dlq: FakeClient): DlqMessage[] => dlq.commandsNamed('SendMessageCommand').map((command) => JSON.parse(String(command.input.MessageBody)) as DlqMessage);

describe.each<StatementFailureBehaviour>(['abort-transaction', 'keep-transaction'])('when a failed statement does %s', (statementFailures) => {
  let gateway: DataApiGateway;

  beforeAll(async () => {
    gateway = await startDataApiGateway({ postgres: postgres.connection, service: { statementFailures } });
  });

  afterAll(async () => {
    await gateway?.stop();
  });

  describe('item 2: a bad event fails alone', () => {
    test('with its SQLSTATE, in the DLQ; the rest of the batch commits', async () => {
      const ledger = await createLedger(postgres.connection);
      const consumer = ledgerConsumer(ledger, sessionOn(gateway));
      const events = [entry('a-1', 'acc-a', 10), entry('a-2', 'acc-a', 20), entry('a-3', 'acc-b', MAX_AMOUNT + 1), entry('a-4', 'acc-b', 30), entry('a-5', 'acc-c', 40)];
      expect((await consumer.handle(sqsEvent(...events.map((event) => recordOf(event))))).batchItemFailures).toEqual([]);
      expect(dlqMessages(consumer.dlq).map((message) => [message.error.name, message.error.kind])).toEqual([['SqlStatementError', 'permanent']]);
      expect(dlqMessages(consumer.dlq)[0]?.error.message).toMatch(/SQLSTATE 23514/);
      expect(await balancesOf(postgres.connection, ledger)).toEqual({ 'acc-a': 30, 'acc-b': 30, 'acc-c': 40 });
      expect(await countOf(postgres.connection, `SELECT count(*) FROM ${ledger.dedup}`)).toBe(4);
      expect(gateway.service.openTransactions()).toBe(0);
    });

    test('an ordered run applies the events before it and leaves the ones after it not attempted, with no dedup row', async () => {
      const ledger = await createLedger(postgres.connection);
      const strategy = sqlStrategy({ session: sessionOn(gateway), dedup: { table: ledger.dedup, consumer: 'ledger' }, retry: { sleep: noSleep } });
      const events = [entry('o-1', 'acc-a', 10), entry('o-2', 'acc-a', 20), entry('o-3', 'acc-a', MAX_AMOUNT + 1), entry('o-4', 'acc-a', 30)];
      const outcomes = await strategy.apply(events.map((event, index) => acceptedLedgerEvent(index, ledger, event)), { ordered: true });
      expect([...outcomes.entries()].sort(([a], [b]) => a - b).map(([, outcome]) => (outcome.status === 'failed' ? (outcome.error as Error).name : outcome.status))).toEqual(['applied', 'applied', 'SqlStatementError', 'NotAttemptedError']);
      expect(await balancesOf(postgres.connection, ledger)).toEqual({ 'acc-a': 30 });
      expect(await countOf(postgres.connection, `SELECT count(*) FROM ${ledger.dedup}`)).toBe(2);
    });
  });

  describe('item 3: nothing a failed commit leaves is waited out', () => {
    test('a commit whose answer was lost is rolled back: the retry commits at once, and no transaction is left open', async () => {
      const ledger = await createLedger(postgres.connection);
      let commits = 0;
      const session = sessionOn(gateway, async (command, send) => {
        if (command.constructor.name === 'CommitTransactionCommand' && ++commits === 1) throw Object.assign(new Error('socket hang up (the commit never reached the Data API)'), { code: 'ECONNRESET' });
        return send();
      });
      const consumer = ledgerConsumer(ledger, session);
      const startedAt = Date.now();
      const response = await consumer.handle(sqsEvent(recordOf(entry('c-1', 'acc-a', 10)), recordOf(entry('c-2', 'acc-b', 20))), lambdaContext('ledger', 8_000));
      expect(response.batchItemFailures).toEqual([]);
      expect(Date.now() - startedAt).toBeLessThan(3_000);
      expect(commits).toBe(2);
      expect(await balancesOf(postgres.connection, ledger)).toEqual({ 'acc-a': 10, 'acc-b': 20 });
      expect(gateway.service.openTransactions()).toBe(0);
    });

    test('a lock held by a transaction that will not end: each retry waits a share of the time left (55P03), and the run fails transiently with time to spare', async () => {
      const ledger = await createLedger(postgres.connection);
      const event = entry('l-1', 'acc-a', 10);
      const holder = await PostgresSession.connect(postgres.connection);
      try {
        // An orphan: the dedup row of the same event, inserted and never committed (a lost commit's answer, a timed-out invocation).
        await holder.query('BEGIN');
        await holder.query(`INSERT INTO ${ledger.dedup} (dedup_key, payload_hash, expires_at) VALUES ($1, 'x', 0)`, [`ledger#${event.eventId}`]);
        const retried: unknown[] = [];
        const consumer = ledgerConsumer(ledger, sessionOn(gateway), { retry: { sleep: noSleep, maxAttempts: 3, onRetry: (error) => retried.push(error) } });
        const startedAt = Date.now();
        const response = await consumer.handle(sqsEvent(recordOf(event)), lambdaContext('ledger', 8_000));
        expect(response.batchItemFailures).toHaveLength(1);
        expect(retried.map((error) => (error as { sqlState?: string }).sqlState)).toEqual(['55P03', '55P03']);
        // 8 s: 1 s of margin, then waits of 1.75 s, 1.3 s and 1 s (a quarter of what is left each), where one wait of the whole 7 s was.
        expect(Date.now() - startedAt).toBeLessThan(6_000);
        expect(consumer.dlq.commandsNamed('SendMessageCommand')).toEqual([]);
      } finally {
        await holder.query('ROLLBACK');
        await holder.close();
      }
    }, 20_000);
  });

  describe('item 4: a paused cluster is waited out', () => {
    test('a resume longer than the retries\' attempts: the events commit, nothing reaches the DLQ', async () => {
      const ledger = await createLedger(postgres.connection);
      const consumer = ledgerConsumer(ledger, sessionOn(gateway), { retry: { sleep: noSleep, maxAttempts: 3 } });
      gateway.service.simulatePause(8);
      expect((await consumer.handle(sqsEvent(recordOf(entry('r-1', 'acc-a', 7))), lambdaContext('ledger', 30_000))).batchItemFailures).toEqual([]);
      expect(await balancesOf(postgres.connection, ledger)).toEqual({ 'acc-a': 7 });
      expect(consumer.dlq.commandsNamed('SendMessageCommand')).toEqual([]);
    });
  });

  describe('item 6: a table that is not there yet', () => {
    test('the events are redelivered, not dead-lettered, and apply once the migration has made it', async () => {
      const ledger = await createLedger(postgres.connection);
      await withPostgresSession(postgres.connection, (admin) => admin.query(`ALTER TABLE ${ledger.dedup} RENAME TO ${ledger.dedup}_later`));
      const consumer = ledgerConsumer(ledger, sessionOn(gateway), { retry: { sleep: noSleep, maxAttempts: 2 } });
      const batch = sqsEvent(recordOf(entry('m-1', 'acc-a', 5)), recordOf(entry('m-2', 'acc-b', 6)));
      expect((await consumer.handle(batch)).batchItemFailures).toHaveLength(2);
      expect(consumer.dlq.commandsNamed('SendMessageCommand')).toEqual([]);
      await withPostgresSession(postgres.connection, (admin) => admin.query(`ALTER TABLE ${ledger.dedup}_later RENAME TO ${ledger.dedup}`));
      expect((await consumer.handle(batch)).batchItemFailures).toEqual([]);
      expect(await balancesOf(postgres.connection, ledger)).toEqual({ 'acc-a': 5, 'acc-b': 6 });
    });
  });

  describe('item 9: an event\'s data never becomes SQL', () => {
    test('a field shaped like a statement is refused: the event goes to the DLQ, and the probe copies nothing', async () => {
      const notes = `notes_${process.pid}_${statementFailures.replace('-', '_')}`;
      await withPostgresSession(postgres.connection, async (admin) => {
        await admin.query(`CREATE TABLE ${notes} (id text PRIMARY KEY, body text)`);
        await admin.query(`CREATE TABLE IF NOT EXISTS vault (secret text)`);
        await admin.query(`INSERT INTO vault VALUES ('the other consumer''s secret')`);
      });
      const ledger = await createLedger(postgres.connection);
      const dlq = new FakeClient(() => ({ MessageId: 'dlq-message' }));
      const handle = createConsumer<SqlEffects>({
        name: 'notes',
        source: SourceKind.SQS,
        // A schema that does not pin `body` to a string: what a producer's JSON, or a stream image's map attribute, can then hold.
        routes: { 'note.added': route(z.object({ id: z.string(), body: z.unknown() }), (event) => [sql`INSERT INTO ${sqlIdentifier(notes)} (id, body) VALUES (${event.payload.id}, ${event.payload.body as string})`]) },
        strategy: sqlStrategy({ session: sessionOn(gateway), dedup: { table: ledger.dedup, consumer: 'notes' }, retry: { sleep: noSleep } }),
        dlq: new DlqSender(asClient<SQSClient>(dlq), 'https://sqs.us-east-1.amazonaws.com/000000000000/notes-dlq', { sleep: noSleep }),
      });
      const probe = { ...entry('n-1', 'x', 0), type: 'note.added', payload: { id: 'n-1', body: { sql: '(SELECT secret FROM vault LIMIT 1)', parameters: [] } } };
      expect((await handle(sqsEvent(recordOf(probe)))).batchItemFailures).toEqual([]);
      expect(dlqMessages(dlq).map((message) => message.error.name)).toEqual(['InvalidEffectError']);
      expect(await countOf(postgres.connection, `SELECT count(*) FROM ${notes}`)).toBe(0);
    });
  });
});

/** A ledger event as the consumer hands it to the strategy. */
function acceptedLedgerEvent(index: number, ledger: Awaited<ReturnType<typeof createLedger>>, event: ReturnType<typeof entry>): AcceptedEvent<SqlEffects> {
  return { index, event, context: { record: fromSqsRecord(recordOf(event)) }, invoke: () => entryEffects(ledger, event.payload) };
}
