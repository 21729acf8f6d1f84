/**
 * A ledger on a real local PostgreSQL for the SQL strategy's tests: `entries` (one row per entry,
 * its id unique, its amount bounded by a CHECK) and `balances` (one row per account, summed by
 * increments), each test with tables of its own, and a consumer of `ledger.entry` events on SQS.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { z } from 'zod';
import {
  createConsumer,
  createEnvelope,
  dedupTableDdl,
  DlqSender,
  route,
  SourceKind,
  sqlIncrement,
  sqlInsert,
  sqlStrategy,
  type BatchHandler,
  type Envelope,
  type SqlEffects,
  type SqlResult,
  type SqlSession,
  type SqlStatement,
  type SqlStrategyOptions,
  type SqlTransaction,
} from '../../../../../lambdas/runtime';
import type { PostgresConnection } from '../../../../../emulator/engines/postgres';
import { PostgresSession } from '../../../../../emulator/engines/postgres-session';
import { sqsRecord, type SqsRecordOptions } from '../../../../helpers/events';
import { asClient, FakeClient, noSleep, recordingObservability } from '../../../../helpers/fakes';

/** The bound on one entry's amount: the CHECK constraint a bad effect breaks. */
export const MAX_AMOUNT = 10_000;

let tables = 0;

/** A ledger's tables, created for one test. */
export interface Ledger {
  readonly entries: string;
  readonly balances: string;
  readonly dedup: string;
}

/** Creates a fresh ledger (entries, balances, dedup table) and returns its table names. */
export async function createLedger(connection: PostgresConnection): Promise<Ledger> {
  tables += 1;
  const suffix = `${process.pid}_${tables}`;
  const ledger = { entries: `entries_${suffix}`, balances: `balances_${suffix}`, dedup: `eo_dedup_${suffix}` };
  const admin = await PostgresSession.connect(connection);
  try {
    await admin.query(`CREATE TABLE ${ledger.entries} (entry_id text PRIMARY KEY, account text NOT NULL, amount bigint NOT NULL CHECK (amount BETWEEN -${MAX_AMOUNT} AND ${MAX_AMOUNT}))`);
    await admin.query(`CREATE TABLE ${ledger.balances} (account text PRIMARY KEY, amount bigint NOT NULL DEFAULT 0)`);
    for (const statement of dedupTableDdl(ledger.dedup)) await admin.query(statement);
  } finally {
    await admin.close();
  }
  return ledger;
}

/** A `ledger.entry` event; the same entry id always gives the same event id. */
export function entry(entryId: string, account: string, amount: number): Envelope<{ entryId: string; account: string; amount: number }> {
  return createEnvelope({ type: 'ledger.entry', businessKey: entryId, source: 'test', payload: { entryId, account, amount }, occurredAt: '2026-12-01T10:00:00.000Z' });
}

/** An SQS record of an event. */
export function recordOf(event: Envelope<unknown>, options: SqsRecordOptions = {}): SQSRecord {
  return sqsRecord(event, options);
}

/** The handler's effects: the entry's row (a row write: the strategy knows its table), and the increment of its account's balance. */
export function entryEffects(ledger: Ledger, payload: { entryId: string; account: string; amount: number }): SqlEffects {
  return [sqlInsert(ledger.entries, { entry_id: payload.entryId, account: payload.account, amount: payload.amount }), sqlIncrement(ledger.balances, { account: payload.account }, 'amount', payload.amount)];
}

/** A consumer of the ledger, its recording observability and its fake DLQ. */
export interface LedgerConsumer {
  readonly handle: BatchHandler;
  readonly observability: ReturnType<typeof recordingObservability>;
  readonly dlq: FakeClient;
}

/** A consumer of `ledger.entry` events on SQS, committing through `session`. */
export function ledgerConsumer(ledger: Ledger, session: SqlSession, options: Partial<SqlStrategyOptions> = {}): LedgerConsumer {
  const observability = recordingObservability();
  const dlq = new FakeClient(() => ({ MessageId: 'dlq-message' }));
  const handle = createConsumer<SqlEffects>({
    name: 'ledger',
    source: SourceKind.SQS,
    routes: {
      'ledger.entry': route(z.object({ entryId: z.string(), account: z.string(), amount: z.number().int() }), (event) => entryEffects(ledger, event.payload)),
    },
    strategy: sqlStrategy({ session, dedup: { table: ledger.dedup, consumer: 'ledger' }, retry: { sleep: noSleep, maxAttempts: 5 }, ...options }),
    dlq: new DlqSender(asClient<SQSClient>(dlq), 'https://sqs.us-east-1.amazonaws.com/000000000000/ledger-dlq', { sleep: noSleep }),
    observability,
  });
  return { handle, observability, dlq };
}

/** How an increment of `table` starts (effects.ts, incrementStatement). */
export function incrementOf(table: string): string {
  return `WITH updated AS (UPDATE "${table}"`;
}

/** The balances, by account. */
export async function balancesOf(connection: PostgresConnection, ledger: Ledger): Promise<Record<string, number>> {
  const session = await PostgresSession.connect(connection);
  try {
    const { rows } = await session.query<{ account: string; amount: string }>(`SELECT account, amount FROM ${ledger.balances} ORDER BY account`);
    return Object.fromEntries(rows.map((row) => [row.account, Number(row.amount)]));
  } finally {
    await session.close();
  }
}

/** How many rows a query counts. */
export async function countOf(connection: PostgresConnection, query: string, values: readonly unknown[] = []): Promise<number> {
  const session = await PostgresSession.connect(connection);
  try {
    const { rows } = await session.query<{ count: string }>(query, values);
    return Number(rows[0]?.count);
  } finally {
    await session.close();
  }
}

/**
 * A session that records every statement and transaction, and lets a test act at a statement
 * (run a concurrent transaction, lose the commit's answer).
 */
export class RecordingSession implements SqlSession {
  public readonly statements: SqlStatement[] = [];
  /** With `batches: true`, each `executeBatch` call's statements (which run one by one underneath). */
  public readonly batches: SqlStatement[][] = [];
  public transactions = 0;

  public constructor(
    private readonly inner: SqlSession,
    private readonly hooks: { beforeStatement?: (statement: SqlStatement, transaction: number) => Promise<void>; afterCommit?: (transaction: number) => Promise<void>; batches?: boolean } = {},
  ) {}

  public async transaction<T>(work: (transaction: SqlTransaction) => Promise<T>): Promise<T> {
    this.transactions += 1;
    const number = this.transactions;
    const execute = async (transaction: SqlTransaction, statement: SqlStatement): Promise<SqlResult> => {
      this.statements.push(statement);
      await this.hooks.beforeStatement?.(statement, number);
      return transaction.execute(statement);
    };
    const executeBatch = async (transaction: SqlTransaction, statements: readonly SqlStatement[]): Promise<void> => {
      this.batches.push([...statements]);
      for (const statement of statements) await execute(transaction, statement);
    };
    const result = await this.inner.transaction((transaction) =>
      work({ execute: (statement) => execute(transaction, statement), ...(this.hooks.batches === true && { executeBatch: (statements: readonly SqlStatement[]) => executeBatch(transaction, statements) }) }),
    );
    await this.hooks.afterCommit?.(number);
    return result;
  }

  /** The statements whose text starts with `prefix`. */
  public startingWith(prefix: string): SqlStatement[] {
    return this.statements.filter((statement) => statement.sql.startsWith(prefix));
  }
}

/**
 * A serialization failure on demand: `acc-a` starts at 1000, and before the first transaction's
 * increment of it, another connection updates the same row and commits, so that a SERIALIZABLE
 * transaction fails with 40001 and its retry succeeds. `close()` ends the other connection.
 */
export async function interferingSession(connection: PostgresConnection, ledger: Ledger, inner: SqlSession): Promise<{ session: RecordingSession; close: () => Promise<void> }> {
  const other = await PostgresSession.connect(connection);
  await other.query(`INSERT INTO ${ledger.balances} (account, amount) VALUES ('acc-a', 1000)`);
  const session = new RecordingSession(inner, {
    beforeStatement: async (statement, transaction) => {
      if (transaction === 1 && statement.sql.startsWith(incrementOf(ledger.balances))) await other.query(`UPDATE ${ledger.balances} SET amount = amount + 1 WHERE account = 'acc-a'`);
    },
  });
  return { session, close: () => other.close() };
}
