import { Client } from 'pg';
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

  /** Ends the connection. Safe to call more than once. */
  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}
