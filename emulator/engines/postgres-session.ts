import { Client, Pool, type PoolClient } from 'pg';
import type { SqlResult, SqlSession, SqlStatement, SqlTransaction } from '../../lambdas/runtime';
import type { SqlField, SqlTypeHint } from '../../lambdas/runtime/stores/postgres/sql';
import { positionalText } from './named-parameters';
import type { PostgresConnection } from './postgres';

/** The rows of one query, as plain objects keyed by column name, and how many rows it changed. */
export interface PostgresResult<TRow> {
  readonly rows: TRow[];
  /** Rows inserted, updated or deleted (or returned, for a SELECT). */
  readonly rowCount: number;
}

/**
 * One connection to a local PostgreSQL (`startPostgres`), so that tests and local mode reach it
 * without importing `pg` (an engine package that only emulator/engines may import). Errors are
 * PostgreSQL's own, with their SQLSTATE in `code`.
 */
export class PostgresSession {
  /** Opens a connection; `close()` ends it. */
  static async connect(connection: PostgresConnection): Promise<PostgresSession> {
    const client = new Client({ ...connection });
    // A connection that the server ends (a stop, a terminated backend) is reported by the next
    // query; an 'error' event with no listener would crash the process instead.
    client.on('error', () => undefined);
    await client.connect();
    return new PostgresSession(client);
  }

  private constructor(private readonly client: Client) {}

  /** Runs one statement, `$1`-style parameters in `values`. */
  async query<TRow extends object = Record<string, unknown>>(text: string, values: readonly unknown[] = []): Promise<PostgresResult<TRow>> {
    const result = await this.client.query<TRow & Record<string, unknown>>(text, [...values]);
    return { rows: result.rows, rowCount: result.rowCount ?? 0 };
  }

  /**
   * Runs one statement and returns what PostgreSQL sent, unparsed: each value as its text (or
   * null), each column's name and type OID, and the command tag. For an answer in another
   * service's types (the local Data API's records), where node-postgres's own parsing would lose
   * an int8's or a numeric's exact value.
   */
  async queryText(text: string, values: readonly unknown[] = []): Promise<PostgresTextResult> {
    const result = await this.client.query<unknown[]>({ text, values: [...values], rowMode: 'array', types: { getTypeParser: () => (value: string) => value } });
    return { columns: result.fields.map((field) => ({ name: field.name, typeId: field.dataTypeID })), rows: result.rows as (string | null)[][], command: result.command, rowCount: result.rowCount ?? 0 };
  }

  /** Ends the connection. Safe to call more than once. */
  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}

/** Runs `work` on a connection of its own, and ends the connection however `work` ends. */
export async function withPostgresSession<T>(connection: PostgresConnection, work: (session: PostgresSession) => Promise<T>): Promise<T> {
  const session = await PostgresSession.connect(connection);
  try {
    return await work(session);
  } finally {
    await session.close();
  }
}

/** What {@link PostgresSession.queryText} returns. */
export interface PostgresTextResult {
  /** The result's columns: name and PostgreSQL type OID (`pg_type.oid`: 20 int8, 25 text, ...). */
  readonly columns: readonly { readonly name: string; readonly typeId: number }[];
  /** Each row's values in PostgreSQL's text form, null for NULL. */
  readonly rows: readonly (readonly (string | null)[])[];
  /** The command tag's verb: SELECT, INSERT, UPDATE, DELETE, ... */
  readonly command: string;
  readonly rowCount: number;
}

/** The casts that stand for the Data API's type hints: it converts a hinted string the same way. */
const CASTS: Readonly<Record<SqlTypeHint, string>> = { DECIMAL: '::numeric', TIMESTAMP: '::timestamp' };

/**
 * The SQL strategy's session (`SqlSession`) on a local PostgreSQL, through a pool of connections:
 * each transaction takes one connection for its life, so two transactions run at once as on a
 * server with many clients. It turns the Data API's named parameters (`:p0` with a typed field)
 * into PostgreSQL's positional ones (`$1`, cast as the field's type hint says). The local Data API
 * gateway runs on `PostgresSession` instead, to answer in the Data API's own types; a test that
 * wants the Data API's wire protocol uses `DataApiSession` against it.
 */
export class PostgresSqlSession implements SqlSession {
  private readonly pool: Pool;

  /** @param maxConnections - transactions that may run at once @default 4 */
  public constructor(connection: PostgresConnection, maxConnections = 4) {
    this.pool = new Pool({ ...connection, max: maxConnections });
    // An idle connection that the server ends would otherwise crash the process.
    this.pool.on('error', () => undefined);
  }

  public async transaction<T>(work: (transaction: SqlTransaction) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let healthy = true;
    try {
      await client.query('BEGIN');
      const result = await work({ execute: (statement) => executeOn(client, statement) });
      await client.query('COMMIT');
      return result;
    } catch (error) {
      // A connection whose rollback fails is broken: the pool must not hand it out again.
      await client.query('ROLLBACK').catch(() => (healthy = false));
      throw error;
    } finally {
      client.release(!healthy);
    }
  }

  /** Closes every connection. */
  public async close(): Promise<void> {
    await this.pool.end();
  }
}

/** A statement with named parameters, as PostgreSQL's positional text and values. */
export function positional(statement: SqlStatement): { text: string; values: unknown[] } {
  const byName = new Map(statement.parameters.map((parameter) => [parameter.name, parameter]));
  return positionalText(statement.sql, (name) => {
    const parameter = byName.get(name);
    return parameter && { value: valueOf(parameter.value), cast: parameter.typeHint === undefined ? undefined : CASTS[parameter.typeHint] };
  });
}

async function executeOn(client: PoolClient, statement: SqlStatement): Promise<SqlResult> {
  const { text, values } = positional(statement);
  const result = await client.query<Record<string, unknown>>(text, values);
  const writes = result.command === 'INSERT' || result.command === 'UPDATE' || result.command === 'DELETE';
  return { rows: result.rows, updatedCount: writes ? (result.rowCount ?? 0) : 0 };
}

function valueOf(field: SqlField): unknown {
  if ('stringValue' in field) return field.stringValue;
  if ('longValue' in field) return field.longValue;
  if ('booleanValue' in field) return field.booleanValue;
  if ('blobValue' in field) return Buffer.from(field.blobValue);
  return null;
}
