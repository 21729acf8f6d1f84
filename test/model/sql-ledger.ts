/**
 * The tables the `sql` strategy's schedules write, and each event's effects on them: a row per
 * application (no constraint, so that a second application shows), its group's counter, and its
 * operation (schedule.ts, `SqlOp`) on its group's accounts: balances that a CHECK keeps at zero or
 * above, moved by `sqlIncrement` both ways; snapshots, an opaque `INSERT ... SELECT` that reads a
 * balance as the events before it left it; claims of references that a UNIQUE keeps to one event.
 * Every table is keyed by the event's group, so that groups never touch each other's rows: the order
 * that matters is the one within a group, which an ordered source keeps. One set of tables is the
 * live one; another, the one-at-a-time replay's (one-at-a-time.ts).
 */
import { sql, sqlIdentifier, type SqlIdentifier } from '../../lambdas/runtime/stores/postgres/sql';
import { sqlIncrement, sqlInsert, type SqlEffects } from '../../lambdas/runtime/stores/postgres/effects';
import { dedupTableDdl } from '../../lambdas/runtime/stores/postgres/sql-strategy';
import type { PostgresSession } from '../../emulator/engines/postgres-session';
import type { SqlOp } from './schedule';

/** A withdrawal no balance of a schedule covers (its deposits are at most 12 x 60). */
const OVERDRAFT = 1_000_000;

/** One set of the ledger's tables, by name. */
export interface LedgerTables {
  readonly applications: string;
  readonly counters: string;
  readonly accounts: string;
  readonly snapshots: string;
  readonly claims: string;
  readonly dedup: string;
}

export function ledgerTables(prefix: string): LedgerTables {
  return { applications: `${prefix}_applications`, counters: `${prefix}_counters`, accounts: `${prefix}_accounts`, snapshots: `${prefix}_snapshots`, claims: `${prefix}_claims`, dedup: `${prefix}_dedup` };
}

export async function createLedger(admin: PostgresSession, tables: LedgerTables): Promise<void> {
  await admin.query(`CREATE TABLE ${tables.applications} (seq bigserial PRIMARY KEY, event_id text NOT NULL, tx bigint NOT NULL DEFAULT txid_current())`);
  await admin.query(`CREATE TABLE ${tables.counters} (grp text PRIMARY KEY, count bigint NOT NULL DEFAULT 0)`);
  await admin.query(`CREATE TABLE ${tables.accounts} (account text PRIMARY KEY, balance bigint NOT NULL DEFAULT 0 CHECK (balance >= 0))`);
  await admin.query(`CREATE TABLE ${tables.snapshots} (event_id text PRIMARY KEY, account text NOT NULL, seen bigint NOT NULL)`);
  await admin.query(`CREATE TABLE ${tables.claims} (event_id text PRIMARY KEY, ref text NOT NULL UNIQUE)`);
  for (const statement of dedupTableDdl(tables.dedup)) await admin.query(statement);
}

/** Empties the tables (DELETE: on tables this small, far faster than TRUNCATE). */
export async function emptyLedger(admin: PostgresSession, tables: LedgerTables): Promise<void> {
  await admin.query(Object.values(tables).map((table) => `DELETE FROM ${table}`).join('; '));
}

/** The effects of event `eventId` of `group`: its application row, its group's counter, and its operation. */
export function ledgerEffects(tables: LedgerTables, eventId: string, group: string, op: SqlOp): SqlEffects {
  return [sql`INSERT INTO ${sqlIdentifier(tables.applications)} (event_id) VALUES (${eventId})`, sqlIncrement(tables.counters, { grp: group }, 'count', 1), ...opEffects(tables, eventId, group, op)];
}

function opEffects(tables: LedgerTables, eventId: string, group: string, op: SqlOp): SqlEffects {
  switch (op.kind) {
    case 'deposit':
      return [sqlIncrement(tables.accounts, { account: accountOf(group, op.account) }, 'balance', op.amount)];
    case 'withdraw':
      return [sqlIncrement(tables.accounts, { account: accountOf(group, op.account) }, 'balance', -op.amount)];
    case 'overdraft':
      return [sqlIncrement(tables.accounts, { account: accountOf(group, op.account) }, 'balance', -OVERDRAFT)];
    case 'snapshot':
      return [snapshot(tables, eventId, accountOf(group, op.account))];
    case 'claim':
      return [sqlInsert(tables.claims, { event_id: eventId, ref: `${group}.r${op.ref}` })];
  }
}

/** The balance as it is now, -1 without a row: a statement that reads what earlier events wrote. */
function snapshot(tables: LedgerTables, eventId: string, account: string) {
  const [accounts, snapshots]: SqlIdentifier[] = [sqlIdentifier(tables.accounts), sqlIdentifier(tables.snapshots)];
  return sql`INSERT INTO ${snapshots} (event_id, account, seen) SELECT ${eventId}, ${account}, coalesce((SELECT balance FROM ${accounts} WHERE account = ${account}), -1)`;
}

function accountOf(group: string, account: number): string {
  return `${group}.${account}`;
}

/** What the ledger's tables hold, each as sorted `key=value` lines (the dedup rows aside). */
export interface LedgerState {
  readonly counters: readonly string[];
  readonly applications: readonly string[];
  readonly balances: readonly string[];
  readonly snapshots: readonly string[];
  readonly claims: readonly string[];
}

export async function readLedger(admin: PostgresSession, tables: LedgerTables): Promise<LedgerState> {
  const lines = async (query: string) => (await admin.query<{ line: string }>(query)).rows.map((row) => row.line);
  return {
    counters: await lines(`SELECT grp || '=' || count AS line FROM ${tables.counters} ORDER BY grp`),
    applications: await lines(`SELECT event_id || '=' || count(*) AS line FROM ${tables.applications} GROUP BY event_id ORDER BY event_id`),
    balances: await lines(`SELECT account || '=' || balance AS line FROM ${tables.accounts} ORDER BY account`),
    snapshots: await lines(`SELECT event_id || '=' || account || ':' || seen AS line FROM ${tables.snapshots} ORDER BY event_id`),
    claims: await lines(`SELECT ref || '=' || event_id AS line FROM ${tables.claims} ORDER BY ref`),
  };
}
