/**
 * The `sql` strategy's store: a real PostgreSQL (startPostgres), started once for the test file,
 * whose tables each schedule gets emptied. The consumer reaches it through {@link ModelSqlSession},
 * which puts the schedule's faults, clock and crashes on its transactions as the world puts them on
 * DynamoDB calls: one transaction is one store call (the SQL strategy's counterpart of a
 * TransactWriteItems or a BatchGetItem), each statement one round trip on the clock.
 *
 * Transactions run one at a time (a pool of one connection), so that a schedule replays the same:
 * with two at once, which commits first would be the machine's choice, not the schedule's. The
 * strategy bounds its statements by the time left on the virtual clock (`statement_timeout`);
 * they take well under a millisecond of real time, so that bound fires only where the schedule
 * left about that little.
 */
import { startPostgres, type RunningPostgres } from '../../emulator/engines/postgres';
import { PostgresSession, PostgresSqlSession } from '../../emulator/engines/postgres-session';
import { dedupTableDdl } from '../../lambdas/runtime/stores/postgres/sql-strategy';
import { sqlIncrement, type SqlEffects } from '../../lambdas/runtime/stores/postgres/effects';
import type { SqlResult, SqlSession, SqlTransaction } from '../../lambdas/runtime/stores/postgres/session';
import { sql, sqlIdentifier, type SqlStatement } from '../../lambdas/runtime/stores/postgres/sql';
import type { StoreState } from './runner';
import type { StoreFault } from './schedule';
import type { World } from './world';

/** One row per application of an event, in the order of application: no constraint, so that a second application shows. */
export const SQL_APPLICATIONS_TABLE = 'model_applications';
/** One counter per order group, summed by increments. */
export const SQL_COUNTERS_TABLE = 'model_counters';
export const SQL_DEDUP_TABLE = 'model_dedup';

/** PostgreSQL and the tables of the `sql` strategy's schedules. */
export class SqlModelStore {
  /** Starts PostgreSQL and creates the tables. */
  public static async start(): Promise<SqlModelStore> {
    const postgres = await startPostgres();
    try {
      const admin = await PostgresSession.connect(postgres.connection);
      await admin.query(`CREATE TABLE ${SQL_APPLICATIONS_TABLE} (seq bigserial PRIMARY KEY, event_id text NOT NULL, tx bigint NOT NULL DEFAULT txid_current())`);
      await admin.query(`CREATE TABLE ${SQL_COUNTERS_TABLE} (grp text PRIMARY KEY, count bigint NOT NULL DEFAULT 0)`);
      for (const statement of dedupTableDdl(SQL_DEDUP_TABLE)) await admin.query(statement);
      return new SqlModelStore(postgres, admin, new PostgresSqlSession(postgres.connection, 1));
    } catch (error) {
      await postgres.stop();
      throw error;
    }
  }

  private constructor(
    private readonly postgres: RunningPostgres,
    private readonly admin: PostgresSession,
    private readonly pool: PostgresSqlSession,
  ) {}

  /** Empties the tables for a new schedule (DELETE: on tables this small, some 70 times faster than TRUNCATE), and returns the session its consumers get. */
  public async begin(world: World, consumer: string): Promise<SqlSession> {
    await this.admin.query(`DELETE FROM ${SQL_APPLICATIONS_TABLE}; DELETE FROM ${SQL_COUNTERS_TABLE}; DELETE FROM ${SQL_DEDUP_TABLE}`);
    return new ModelSqlSession(this.pool, world, `${consumer}#`);
  }

  /** What the tables hold now, in the view the checker reads. */
  public async state(consumer: string): Promise<StoreState> {
    const counters = await this.admin.query<{ grp: string; count: string }>(`SELECT grp, count FROM ${SQL_COUNTERS_TABLE}`);
    const applications = await this.admin.query<{ event_id: string; count: string }>(`SELECT event_id, count(*) AS count FROM ${SQL_APPLICATIONS_TABLE} GROUP BY event_id`);
    const dedup = await this.admin.query<{ dedup_key: string }>(`SELECT dedup_key FROM ${SQL_DEDUP_TABLE}`);
    return {
      groupCounts: new Map(counters.rows.map((row) => [row.grp, Number(row.count)])),
      applications: new Map(applications.rows.map((row) => [row.event_id, Number(row.count)])),
      dedupRows: new Set(dedup.rows.map((row) => row.dedup_key.slice(`${consumer}#`.length))),
    };
  }

  public async stop(): Promise<void> {
    await this.pool.close();
    await this.admin.close();
    await this.postgres.stop();
  }
}

/** The SQL effects of one event: its row, and its group's counter (the DynamoDB effects' counterparts, in consumer.ts). */
export function sqlEffectsOf(eventId: string, group: string): SqlEffects {
  return [sql`INSERT INTO ${sqlIdentifier(SQL_APPLICATIONS_TABLE)} (event_id) VALUES (${eventId})`, sqlIncrement(SQL_COUNTERS_TABLE, { grp: group }, 'count', 1)];
}

/** An error as PostgreSQL raises it: its SQLSTATE in `code`. */
class InjectedSqlError extends Error {
  public constructor(
    message: string,
    public readonly code: string,
  ) {
    super(message);
    this.name = 'InjectedSqlError';
  }
}

/**
 * The session the runtime gets: a transaction of the real one, with the schedule's fault on it at
 * its commit. `throttle` and `conflict` roll it back with a transient SQLSTATE (53300 too many
 * connections, 40001 a serialization failure); `crash-before` rolls it back and kills the function;
 * `crash-after` commits it and then kills the function, so that the invocation's answer is lost.
 * A function that died runs nothing more: its next statement fails, and its transaction rolls back.
 */
class ModelSqlSession implements SqlSession {
  private readonly dedupInsert = `INSERT INTO ${sqlIdentifier(SQL_DEDUP_TABLE).quoted} `;
  private readonly dedupRead = `SELECT dedup_key FROM ${sqlIdentifier(SQL_DEDUP_TABLE).quoted} `;

  public constructor(
    private readonly inner: SqlSession,
    private readonly world: World,
    private readonly keyPrefix: string,
  ) {}

  public async transaction<T>(work: (transaction: SqlTransaction) => Promise<T>): Promise<T> {
    const fault = await this.world.storeCall();
    const attempt: Attempt = { read: false, wrote: false, applied: [] };
    try {
      const result = await this.inner.transaction(async (transaction) => {
        const result = await work({ execute: (statement) => this.execute(transaction, statement, attempt) });
        await this.world.roundTrip();
        if (attempt.wrote) attempt.applied = await appliedIn(transaction);
        failBeforeCommit(this.world, fault);
        return result;
      });
      this.world.noteCommitted(attempt.applied);
      if (fault === 'crash-after') this.world.crash();
      return result;
    } finally {
      if (fault !== undefined && attempt.read) this.world.noteFailedRead();
    }
  }

  /** One statement: a round trip, and a dedup insert's events noted as attempted. */
  private async execute(transaction: SqlTransaction, statement: SqlStatement, attempt: Attempt): Promise<SqlResult> {
    await this.world.roundTrip();
    if (statement.sql.startsWith(this.dedupRead) && !attempt.wrote) attempt.read = true;
    if (statement.sql.startsWith(this.dedupInsert)) {
      attempt.wrote = true;
      for (const parameter of statement.parameters) {
        const value = 'stringValue' in parameter.value ? parameter.value.stringValue : undefined;
        if (value?.startsWith(this.keyPrefix)) this.world.noteDedupAttempt(value.slice(this.keyPrefix.length));
      }
    }
    return transaction.execute(statement);
  }
}

/** What one transaction did, as the session saw it. */
interface Attempt {
  /** It read dedup rows before writing any: the strategy's `applied` check. */
  read: boolean;
  /** It inserted dedup rows. */
  wrote: boolean;
  /** The events whose effect rows it holds just before its commit. */
  applied: string[];
}

/** The events whose effect rows this transaction inserted (and kept), in the order it inserted them. */
async function appliedIn(transaction: SqlTransaction): Promise<string[]> {
  const { rows } = await transaction.execute(sql`SELECT event_id FROM ${sqlIdentifier(SQL_APPLICATIONS_TABLE)} WHERE tx = txid_current() ORDER BY seq`);
  return rows.map((row) => String(row.event_id));
}

/** The schedule's fault at a commit, before it: the transaction rolls back (and, for `crash-before`, the function dies). */
function failBeforeCommit(world: World, fault: StoreFault | undefined): void {
  if (fault === 'throttle') throw new InjectedSqlError('sorry, too many clients already (injected)', '53300');
  if (fault === 'conflict') throw new InjectedSqlError('could not serialize access due to concurrent update (injected)', '40001');
  if (fault === 'crash-before') world.crash();
}
