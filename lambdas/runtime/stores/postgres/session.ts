import type { SqlStatement } from './sql';

/** What one statement returned: its rows as plain objects keyed by column name, and how many rows it changed. */
export interface SqlResult {
  readonly rows: readonly Readonly<Record<string, unknown>>[];
  /** Rows inserted, updated or deleted (the Data API's `numberOfRecordsUpdated`). */
  readonly updatedCount: number;
}

/** The statements of one open transaction. */
export interface SqlTransaction {
  /** Runs one statement inside the transaction. Rejects with the database's error (its SQLSTATE readable by {@link sqlStateOf}). */
  execute(statement: SqlStatement): Promise<SqlResult>;
  /**
   * Runs statements of one shape (one SQL text, the same parameters by name and kind) in order, in
   * one round trip where the session can: the Data API's `BatchExecuteStatement`. A failure of any
   * of them rejects the whole call. Optional: without it, the strategy runs each with `execute`.
   */
  executeBatch?(statements: readonly SqlStatement[]): Promise<void>;
}

/**
 * How the SQL strategy reaches the database: shaped like the RDS Data API (BeginTransaction,
 * ExecuteStatement with a transaction id, CommitTransaction, RollbackTransaction), so that a Data
 * API client can implement it as well as a PostgreSQL connection can.
 */
export interface SqlSession {
  /**
   * Begins a transaction, runs `work` in it, commits when it resolves and rolls back when it
   * rejects (then rethrows its error). A failure of the commit itself rejects too: the strategy
   * retries transient ones, and the dedup rows make a retry of a commit that did land harmless.
   */
  transaction<T>(work: (transaction: SqlTransaction) => Promise<T>): Promise<T>;
}

/**
 * The SQLSTATE of a database error: a session implementation puts it in `sqlState` (the Data API
 * client) or `code` (node-postgres does), five digits or capital letters.
 */
export function sqlStateOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { sqlState, code } = error as { sqlState?: unknown; code?: unknown };
  const state = typeof sqlState === 'string' ? sqlState : code;
  return typeof state === 'string' && /^[0-9A-Z]{5}$/.test(state) ? state : undefined;
}
