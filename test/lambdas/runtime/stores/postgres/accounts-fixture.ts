/**
 * Accounts on a real PostgreSQL, for the rule that a batch never changes what events do (issue 39,
 * item 1): balances that a CHECK keeps at zero or above, moved by increments; snapshots, an opaque
 * statement that reads a balance as the events before it left it; an audit trigger that writes a
 * row per balance change. `drive` applies events in batches of any boundaries, as a source would,
 * and `readState` reads back what they left.
 */
import fc from 'fast-check';
import { sql, sqlIdentifier, sqlIncrement, sqlStrategy, type SqlEffects, type SqlSession } from '../../../../../lambdas/runtime';
import { fromSqsRecord } from '../../../../../lambdas/runtime/decoding/records';
import type { AcceptedEvent, Outcome } from '../../../../../lambdas/runtime/consumer/strategy';
import type { PostgresConnection } from '../../../../../emulator/engines/postgres';
import { withPostgresSession } from '../../../../../emulator/engines/postgres-session';
import { entry, recordOf } from './ledger-fixture';

/** The tables of one set of accounts. */
export interface Accounts {
  readonly balances: string;
  readonly snapshots: string;
  readonly audited: string;
  readonly audit: string;
  readonly dedup: string;
}

/** A movement of an account's balance, or a snapshot of it, or a change of an audited counter. */
export type AccountEvent =
  | { readonly kind: 'move'; readonly id: string; readonly account: string; readonly amount: number }
  | { readonly kind: 'snapshot'; readonly id: string; readonly account: string }
  | { readonly kind: 'audited'; readonly id: string; readonly account: string; readonly amount: number };

let made = 0;

/** Creates a fresh set of accounts' tables. */
export async function createAccounts(connection: PostgresConnection): Promise<Accounts> {
  made += 1;
  const suffix = `${process.pid}_${made}`;
  const accounts = { balances: `balances_${suffix}`, snapshots: `snapshots_${suffix}`, audited: `audited_${suffix}`, audit: `audit_${suffix}`, dedup: `dedup_${suffix}` };
  await withPostgresSession(connection, async (admin) => {
    await admin.query(`CREATE TABLE ${accounts.balances} (account text PRIMARY KEY, amount bigint NOT NULL DEFAULT 0 CHECK (amount >= 0))`);
    await admin.query(`CREATE TABLE ${accounts.snapshots} (event_id text PRIMARY KEY, account text NOT NULL, seen bigint NOT NULL)`);
    await admin.query(`CREATE TABLE ${accounts.audited} (account text PRIMARY KEY, amount bigint NOT NULL DEFAULT 0)`);
    await admin.query(`CREATE TABLE ${accounts.audit} (seq bigserial PRIMARY KEY, account text NOT NULL, amount bigint NOT NULL)`);
    await admin.query(`CREATE FUNCTION ${accounts.audit}_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO ${accounts.audit} (account, amount) VALUES (NEW.account, NEW.amount); RETURN NEW; END $$`);
    await admin.query(`CREATE TRIGGER ${accounts.audit}_rows AFTER INSERT OR UPDATE ON ${accounts.audited} FOR EACH ROW EXECUTE FUNCTION ${accounts.audit}_row()`);
    await admin.query(`CREATE TABLE ${accounts.dedup} (dedup_key text PRIMARY KEY, payload_hash text NOT NULL, expires_at bigint NOT NULL)`);
  });
  return accounts;
}

/** Empties the tables, for another run on the same set. */
export async function emptyAccounts(connection: PostgresConnection, accounts: Accounts): Promise<void> {
  await withPostgresSession(connection, (admin) => admin.query(`TRUNCATE ${accounts.balances}, ${accounts.snapshots}, ${accounts.audited}, ${accounts.audit}, ${accounts.dedup} RESTART IDENTITY`));
}

/** An event's effects: an increment, an `INSERT ... SELECT` of the balance as it is (-1 without a row), or an audited increment. */
export function accountEffects(accounts: Accounts, event: AccountEvent): SqlEffects {
  if (event.kind === 'move') return [sqlIncrement(accounts.balances, { account: event.account }, 'amount', event.amount)];
  if (event.kind === 'audited') return [sqlIncrement(accounts.audited, { account: event.account }, 'amount', event.amount)];
  const [balances, snapshots] = [sqlIdentifier(accounts.balances), sqlIdentifier(accounts.snapshots)];
  return [sql`INSERT INTO ${snapshots} (event_id, account, seen) SELECT ${event.id}, ${event.account}, coalesce((SELECT amount FROM ${balances} WHERE account = ${event.account}), -1)`];
}

/** What the events left. */
export interface AccountsState {
  readonly balances: Record<string, number>;
  readonly snapshots: Record<string, number>;
  readonly audited: Record<string, number>;
  readonly auditRows: readonly string[];
}

export async function readState(connection: PostgresConnection, accounts: Accounts): Promise<AccountsState> {
  return withPostgresSession(connection, async (admin) => {
    const pairs = async (query: string) => Object.fromEntries((await admin.query<{ k: string; v: string }>(query)).rows.map((row) => [row.k, Number(row.v)]));
    return {
      balances: await pairs(`SELECT account AS k, amount AS v FROM ${accounts.balances} ORDER BY account`),
      snapshots: await pairs(`SELECT event_id AS k, seen AS v FROM ${accounts.snapshots} ORDER BY event_id`),
      audited: await pairs(`SELECT account AS k, amount AS v FROM ${accounts.audited} ORDER BY account`),
      auditRows: (await admin.query<{ row: string }>(`SELECT account || '=' || amount AS row FROM ${accounts.audit} ORDER BY seq`)).rows.map((row) => row.row),
    };
  });
}

/** Each event's last outcome, by id: `applied`, `duplicate`, or the failure's error name. */
export type OutcomeNames = Record<string, string>;

/**
 * Applies the events in batches that end where `boundaries` say (positions after which a batch
 * ends), as a source would deliver them. On an ordered source the events a batch left not attempted
 * come back first in the next one, as Lambda redelivers from the first failure.
 */
export async function drive(session: SqlSession, accounts: Accounts, events: readonly AccountEvent[], boundaries: ReadonlySet<number>, ordered: boolean): Promise<OutcomeNames> {
  const strategy = sqlStrategy({ session, dedup: { table: accounts.dedup, consumer: 'accounts' }, retry: { maxAttempts: 3, sleep: async () => undefined } });
  const batches = splitAfter(events, boundaries);
  const outcomes: OutcomeNames = {};
  let carried: AccountEvent[] = [];
  for (let next = 0; next < batches.length || carried.length > 0; next += 1) {
    const batch = [...carried, ...(batches[next] ?? [])];
    const result = await strategy.apply(batch.map((event, index) => acceptedEvent(index, accounts, event)), { ordered });
    batch.forEach((event, index) => (outcomes[event.id] = nameOf(result.get(index) as Outcome)));
    carried = batch.filter((event) => outcomes[event.id] === 'NotAttemptedError');
  }
  return outcomes;
}

/** The events cut into batches after each position in `boundaries`. */
function splitAfter<T>(items: readonly T[], boundaries: ReadonlySet<number>): T[][] {
  const batches: T[][] = [[]];
  items.forEach((item, position) => {
    batches[batches.length - 1]?.push(item);
    if (boundaries.has(position) && position < items.length - 1) batches.push([]);
  });
  return batches;
}

function acceptedEvent(index: number, accounts: Accounts, event: AccountEvent): AcceptedEvent<SqlEffects> {
  const envelope = entry(event.id, event.account, 'amount' in event ? event.amount : 0);
  return { index, event: envelope, context: { record: fromSqsRecord(recordOf(envelope)) }, invoke: () => accountEffects(accounts, event) };
}

function nameOf(outcome: Outcome): string {
  return outcome.status === 'failed' ? String((outcome.error as Error).name) : outcome.status;
}

/** Random events on two accounts: movements of both signs (some below zero), snapshots and audited changes; ids unique. */
export function accountEvents(): fc.Arbitrary<AccountEvent[]> {
  const account = fc.constantFrom('a', 'b');
  const one = fc.oneof(
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('move' as const), account, amount: fc.integer({ min: -60, max: 60 }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('snapshot' as const), account }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('audited' as const), account, amount: fc.integer({ min: -3, max: 3 }) }) },
  );
  return fc.array(one, { minLength: 1, maxLength: 10 }).map((drawn) => drawn.map((event, n) => ({ ...event, id: `e${n}` }) as AccountEvent));
}
