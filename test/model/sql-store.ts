/**
 * The `sql` strategy's store, as it runs on AWS: a real PostgreSQL (startPostgres), started once for
 * the test file, behind two local Data API gateways (emulator/gateway, in process), one per
 * behaviour of a failed statement ('abort-transaction', 'keep-transaction'), which the schedule
 * chooses. The consumer gets a `DataApiSession` whose client (data-api-client.ts) puts the
 * schedule's faults, clock and crashes on its Data API calls, so that the Data API's answers and the
 * runtime's classification of them are in the model. Each schedule gets the ledger's tables
 * (sql-ledger.ts) emptied; the one-at-a-time replay (one-at-a-time.ts) runs on a second set,
 * through a plain PostgreSQL session, with no fault.
 *
 * Transactions run one at a time (ModelSqlSession queues them), so that a schedule replays the same:
 * with two at once (a FIFO batch's groups), which commits first would be the machine's choice, not
 * the schedule's. A transaction that the function left open (a crash, a timeout) is no transaction
 * of the queue: it stays open, its locks held, until the Data API's expiry on the world's clock.
 */
import { RDSDataClient } from '@aws-sdk/client-rds-data';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../emulator/engines/account';
import { startPostgres, type PostgresConnection, type RunningPostgres } from '../../emulator/engines/postgres';
import { PostgresSession, PostgresSqlSession } from '../../emulator/engines/postgres-session';
import { LOCAL_CLUSTER_ARN, LOCAL_SECRET_ARN, startDataApiGateway, type DataApiGateway } from '../../emulator/gateway/data-api-gateway';
import type { DataApiConnection } from '../../emulator/gateway/data-api-service';
import { DataApiSession } from '../../lambdas/runtime/stores/postgres/data-api-session';
import type { SqlResult, SqlSession, SqlTransaction } from '../../lambdas/runtime/stores/postgres/session';
import { sql, sqlIdentifier, type SqlStatement } from '../../lambdas/runtime/stores/postgres/sql';
import { LOCK_WAIT_REAL_MS, ModelDataApiClient, type GatewayHooks } from './data-api-client';
import type { StoreState } from './runner';
import type { DataApiBehaviour, Schedule } from './schedule';
import { createLedger, emptyLedger, ledgerTables, readLedger, type LedgerState, type LedgerTables } from './sql-ledger';
import type { World } from './world';

/** The live tables, which the consumer writes. */
export const SQL_TABLES = ledgerTables('model');
/** The one-at-a-time replay's. */
export const REPLAY_TABLES = ledgerTables('replay');
export const SQL_DEDUP_TABLE = SQL_TABLES.dedup;

const BEHAVIOURS: readonly DataApiBehaviour[] = ['abort-transaction', 'keep-transaction'];
/** The gateway's own idle timer, in real time, never fires in a run: the model expires transactions on the world's clock. */
const NO_REAL_EXPIRY_MS = 24 * 60 * 60 * 1000;

/** One gateway, its client, and its fault hooks. */
interface Gateway {
  readonly gateway: DataApiGateway;
  readonly client: RDSDataClient;
  readonly hooks: GatewayHooks;
}

/** PostgreSQL, its gateways, and the tables of the `sql` strategy's schedules. */
export class SqlModelStore {
  private active?: ModelDataApiClient;

  /** Starts PostgreSQL and the gateways, and creates the tables. */
  public static async start(): Promise<SqlModelStore> {
    const postgres = await startPostgres();
    try {
      const admin = await PostgresSession.connect(postgres.connection);
      for (const tables of [SQL_TABLES, REPLAY_TABLES]) await createLedger(admin, tables);
      const pool = new ConnectionPool(postgres.connection);
      const gateways = new Map<DataApiBehaviour, Gateway>();
      for (const behaviour of BEHAVIOURS) gateways.set(behaviour, await startGateway(postgres.connection, behaviour, pool));
      return new SqlModelStore(postgres, admin, pool, gateways, new PostgresSqlSession(postgres.connection, 1));
    } catch (error) {
      await postgres.stop();
      throw error;
    }
  }

  private constructor(
    private readonly postgres: RunningPostgres,
    private readonly admin: PostgresSession,
    private readonly pool: ConnectionPool,
    private readonly gateways: ReadonlyMap<DataApiBehaviour, Gateway>,
    private readonly replaySession: PostgresSqlSession,
  ) {}

  /** Empties the tables for a new schedule, and returns the session its consumers get, on the gateway the schedule chose. */
  public async begin(world: World, schedule: Schedule, consumer: string): Promise<SqlSession> {
    await emptyLedger(this.admin, SQL_TABLES);
    const { client, hooks } = this.gateways.get(schedule.sql?.behaviour ?? 'abort-transaction') as Gateway;
    this.active = new ModelDataApiClient(client, world, hooks, { resourceArn: LOCAL_CLUSTER_ARN, secretArn: LOCAL_SECRET_ARN }, [...(schedule.sql?.commitFaults ?? [])]);
    const session = new DataApiSession({ client: this.active as unknown as RDSDataClient, resourceArn: LOCAL_CLUSTER_ARN, secretArn: LOCAL_SECRET_ARN });
    return new ModelSqlSession(session, this.active, world, `${consumer}#`);
  }

  /** What the tables hold once the run is over, in the view the checker reads; what the run left open is rolled back first, as its expiry would. */
  public async state(consumer: string): Promise<StoreState> {
    await this.active?.expireAll();
    for (const { gateway } of this.gateways.values()) await gateway.service.close();
    const ledger = await readLedger(this.admin, SQL_TABLES);
    const dedup = await this.admin.query<{ dedup_key: string }>(`SELECT dedup_key FROM ${SQL_TABLES.dedup}`);
    return {
      groupCounts: new Map(ledger.counters.map((line) => splitLine(line, Number))),
      applications: new Map(ledger.applications.map((line) => splitLine(line, Number))),
      dedupRows: new Set(dedup.rows.map((row) => row.dedup_key.slice(`${consumer}#`.length))),
      ledger,
    };
  }

  /** Runs `work` on the replay's tables, emptied, through a plain session with no fault; returns its result and what the tables then hold. */
  public async replay<T>(work: (session: SqlSession, tables: LedgerTables) => Promise<T>): Promise<{ readonly result: T; readonly state: LedgerState }> {
    await emptyLedger(this.admin, REPLAY_TABLES);
    const result = await work(this.replaySession, REPLAY_TABLES);
    return { result, state: await readLedger(this.admin, REPLAY_TABLES) };
  }

  public async stop(): Promise<void> {
    for (const { gateway, client } of this.gateways.values()) {
      client.destroy();
      await gateway.stop();
    }
    await this.pool.close();
    await this.replaySession.close();
    await this.admin.close();
    await this.postgres.stop();
  }
}

/** `key=value` as [key, value]. */
function splitLine<T>(line: string, parse: (value: string) => T): [string, T] {
  const at = line.lastIndexOf('=');
  return [line.slice(0, at), parse(line.slice(at + 1))];
}

/**
 * A gateway with a behaviour of a failed statement, its idle timer off, its serialization failures
 * drawn by the faults alone, and its cluster's connections from the pool (the Data API pools its
 * connections too; opening one per transaction would cost each schedule a few hundred ms).
 */
async function startGateway(postgres: PostgresConnection, statementFailures: DataApiBehaviour, pool: ConnectionPool): Promise<Gateway> {
  let failNext = false;
  const random = () => (failNext ? 0 : 1);
  const gateway = await startDataApiGateway({ postgres, service: { statementFailures, transactionIdleMs: NO_REAL_EXPIRY_MS, serializationFailures: { random, rate: 0.5 } } });
  gateway.service.serve({ resourceArn: LOCAL_CLUSTER_ARN, secretArns: [LOCAL_SECRET_ARN], connect: () => pool.connect() });
  const client = new RDSDataClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: gateway.endpoint, maxAttempts: 1 });
  const hooks = {
    pauseNextCall: () => gateway.service.simulatePause(1),
    failNextStatement: () => (failNext = true),
    settle: () => {
      failNext = false;
      gateway.service.simulatePause(0);
    },
  };
  return { gateway, client, hooks };
}

/**
 * Connections to PostgreSQL that the gateways' transactions take and give back. Each waits for a
 * lock at most LOCK_WAIT_REAL_MS of real time unless the runtime says otherwise (which the client
 * swaps for the same real wait): a lock in the model is held by a transaction the function left
 * open, which nothing ends while a statement waits, so a longer wait would only cost real time.
 */
class ConnectionPool {
  private readonly idle: PostgresSession[] = [];

  public constructor(private readonly connection: PostgresConnection) {}

  public async connect(): Promise<DataApiConnection> {
    const session = this.idle.pop() ?? (await this.open());
    let given = false;
    return {
      queryText: (text, values) => session.queryText(text, values),
      close: async () => {
        if (!given) this.idle.push(session);
        given = true;
      },
    };
  }

  public async close(): Promise<void> {
    for (const session of this.idle.splice(0)) await session.close();
  }

  private async open(): Promise<PostgresSession> {
    const session = await PostgresSession.connect(this.connection);
    await session.query(`SET lock_timeout = ${LOCK_WAIT_REAL_MS}`);
    return session;
  }
}

/**
 * The session the runtime gets: the Data API session, its transactions queued one at a time, and
 * what they do noted for the checker: the events a dedup insert attempts, and, before a commit, the
 * events whose effects the transaction holds (read in it by the model's own statement), which the
 * client notes applied once the commit lands.
 */
class ModelSqlSession implements SqlSession {
  private readonly dedupInsert = `INSERT INTO ${sqlIdentifier(SQL_DEDUP_TABLE).quoted} `;
  private queue: Promise<unknown> = Promise.resolve();

  public constructor(
    private readonly inner: SqlSession,
    private readonly client: ModelDataApiClient,
    private readonly world: World,
    private readonly keyPrefix: string,
  ) {}

  public transaction<T>(work: (transaction: SqlTransaction) => Promise<T>): Promise<T> {
    const run = this.queue.then(() => this.run(work));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private run<T>(work: (transaction: SqlTransaction) => Promise<T>): Promise<T> {
    return this.inner.transaction(async (transaction) => {
      const attempt = { wrote: false };
      const result = await work(this.watched(transaction, attempt));
      this.client.willCommit(attempt.wrote ? await appliedIn(transaction) : []);
      return result;
    });
  }

  private watched(transaction: SqlTransaction, attempt: { wrote: boolean }): SqlTransaction {
    const batch = transaction.executeBatch?.bind(transaction);
    return {
      execute: (statement): Promise<SqlResult> => {
        this.noteAttempt(statement, attempt);
        return transaction.execute(statement);
      },
      ...(batch !== undefined && {
        executeBatch: (statements: readonly SqlStatement[]): Promise<void> => {
          for (const statement of statements) this.noteAttempt(statement, attempt);
          return batch(statements);
        },
      }),
    };
  }

  /** A dedup insert's events, noted attempted whatever becomes of it. */
  private noteAttempt(statement: SqlStatement, attempt: { wrote: boolean }): void {
    if (!statement.sql.startsWith(this.dedupInsert)) return;
    attempt.wrote = true;
    for (const parameter of statement.parameters) {
      const value = 'stringValue' in parameter.value ? parameter.value.stringValue : undefined;
      if (value?.startsWith(this.keyPrefix)) this.world.noteDedupAttempt(value.slice(this.keyPrefix.length));
    }
  }
}

/** The events whose effect rows this transaction inserted (and kept), in the order it inserted them. */
async function appliedIn(transaction: SqlTransaction): Promise<string[]> {
  // Marked as the model's own (MODEL_STATEMENT_MARK): the client puts no fault and no time on it.
  const { rows } = await transaction.execute(sql`/* model */ SELECT event_id FROM ${sqlIdentifier(SQL_TABLES.applications)} WHERE tx = txid_current() ORDER BY seq`);
  return rows.map((row) => String(row.event_id));
}
