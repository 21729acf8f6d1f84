import { sqlDedupTableStatements } from '../../../../aws/sql-dedup-table';
import { withRetries, type RetryOptions } from '../../core/backoff';
import { InvalidEffectError, messageOf, OutOfTimeError } from '../../core/errors';
import { UNLIMITED_TIME, WorkPace, type TimeBudget } from '../../core/time-budget';
import { dedupKey, dedupNamespace } from '../../consumer/namespace';
import { invokeHandlers, notAttempted, type Outcome, type Strategy } from '../../consumer/strategy';
import { payloadHash } from '../../events/event-id';
import { aggregateIncrements, isIncrement, type SqlEffect, type SqlEffects, type SqlIncrement } from './effects';
import { classifySqlFailure, SqlStatementError } from './errors';
import type { SqlSession, SqlTransaction } from './session';
import { statementRuns } from './statement-runs';
import { joinSql, sql, sqlIdentifier, type SqlIdentifier, type SqlStatement } from './sql';

/** 30 days, as the DynamoDB store's records: longer than SQS retention (4 d) + DLQ retention (14 d) + a redrive allowance. */
export const DEFAULT_SQL_DEDUP_TTL_SECONDS = 30 * 24 * 60 * 60;

/** Where and for how long a consumer keeps its dedup rows. */
export interface SqlDedupSettings {
  /** The dedup table ({@link dedupTableDdl}), optionally schema-qualified. */
  readonly table: string;
  /** Part of every dedup key, so that two consumers of one event each apply it once. */
  readonly consumer: string;
  /** The consumer's generation: a rebuilt generation keeps its dedup rows apart from the live one's. @default 1 */
  readonly generation?: number;
  /** How long a dedup row is kept: its `expires_at`, for the job that deletes expired rows. @default DEFAULT_SQL_DEDUP_TTL_SECONDS */
  readonly ttlSeconds?: number;
}

/** The isolation level of the strategy's transactions. */
export type SqlIsolation = 'read committed' | 'repeatable read' | 'serializable';

/** Options of {@link sqlStrategy}. */
export interface SqlStrategyOptions {
  /** How the strategy reaches the database (a Data API client on AWS, a PostgreSQL connection locally). */
  readonly session: SqlSession;
  readonly dedup: SqlDedupSettings;
  /**
   * The transactions' isolation level. Read committed (PostgreSQL's default) is enough for the
   * dedup rows, increments and versioned upserts; a stricter level makes concurrent batches fail
   * with serialization failures, which are retried.
   * @default 'read committed'
   */
  readonly isolation?: SqlIsolation;
  /** Retries of a transaction that failed transiently (serialization failure, deadlock, lock timeout, lost connection). */
  readonly retry?: RetryOptions;
  /** @default () => new Date() */
  readonly now?: () => Date;
}

/**
 * The dedup table's DDL, for a migration: one row per applied event, keyed by
 * `<consumer namespace>#<eventId>`, with the hash of its payload (to tell a conflicting duplicate)
 * and when it may be deleted (epoch seconds, as DynamoDB's TTL), indexed for the expiry job.
 *
 * @example
 * ```ts
 * import { dedupTableDdl } from 'effectively-once/runtime';
 * const [createTable, createIndex] = dedupTableDdl('eo_dedup');
 * ```
 * @throws InvalidEffectError when the name is not a plain identifier
 */
export function dedupTableDdl(table: string): readonly string[] {
  // Checked here first, so that a bad name is the effect's error; the statements are the construct's migration too.
  sqlIdentifier(table);
  return sqlDedupTableStatements(table);
}

/** An event whose handler ran: its dedup key, payload hash and effects. */
interface Pending {
  readonly index: number;
  readonly key: string;
  readonly payloadHash: string;
  readonly statements: readonly SqlStatement[];
  readonly increments: readonly SqlIncrement[];
}

/**
 * Dedup in SQL (docs/patterns/sql-dedup.md): each event's dedup row is inserted in the same
 * transaction as its effects, one transaction per run of events. Handlers return {@link SqlEffects}
 * and must not write to the database themselves.
 *
 * The transaction: (1) one multi-row `INSERT ... ON CONFLICT DO NOTHING RETURNING` of the events'
 * dedup rows, in key order (so two batches lock the same keys in the same order); the keys it did
 * not return are duplicates, whose stored payload hash is read to flag a conflicting payload; (2)
 * the new events' statements in batch order, then their increments summed to one statement per
 * row, all under one savepoint; (3) commit. When a statement fails for its event's own reason (a
 * constraint, a bad value: {@link SqlStatementError}), the transaction rolls back to that savepoint
 * and applies the events one by one, each under a savepoint of its own: the failing event alone
 * fails, permanently, and its dedup row is deleted (its own transaction inserted it, so no other
 * sees it), and the others commit. A transient failure (serialization failure, deadlock, lock or
 * statement timeout, lost connection) retries the whole transaction within the time budget, then
 * fails the events transiently. An ordered run stops at its first failing event: the rest are
 * not attempted, and their dedup rows are deleted too.
 */
export function sqlStrategy(options: SqlStrategyOptions): Strategy<SqlEffects> {
  const now = options.now ?? (() => new Date());
  const namespace = dedupNamespace(options.dedup.consumer, options.dedup.generation);
  const table = sqlIdentifier(options.dedup.table);
  return {
    async apply(events, run) {
      const { prepared: pending, outcomes } = invokeHandlers(events, run, (accepted): Pending => ({
        index: accepted.index,
        key: dedupKey(namespace, accepted.event.eventId),
        payloadHash: payloadHash(accepted.event.payload),
        ...splitEffects(accepted.invoke(), accepted.event.eventId),
      }));
      if (pending.length === 0) return outcomes;
      const budget = run.budget ?? UNLIMITED_TIME;
      const pace = new WorkPace(budget);
      if (!pace.canStart()) return setAll(outcomes, pending, { status: 'failed', error: new OutOfTimeError(pace.remainingMs()) });
      const expiresAt = Math.floor(now().getTime() / 1000) + (options.dedup.ttlSeconds ?? DEFAULT_SQL_DEDUP_TTL_SECONDS);
      const commit = new BatchCommit(table, pending, expiresAt, run.ordered, options.isolation ?? 'read committed', budget);
      try {
        const committed = await withRetries(() => pace.time(() => inTransaction(options.session, (transaction) => commit.run(transaction))), { ...options.retry, budget });
        for (const [index, outcome] of committed) outcomes.set(index, outcome);
      } catch (error) {
        setAll(outcomes, pending, { status: 'failed', error });
      }
      return outcomes;
    },
    async applied(eventIds) {
      if (eventIds.length === 0) return new Set();
      const keys = new Map(eventIds.map((eventId) => [dedupKey(namespace, eventId), eventId]));
      const select = sql`SELECT dedup_key FROM ${table} WHERE dedup_key IN (${list([...keys.keys()])})`;
      const result = await withRetries(() => inTransaction(options.session, (transaction) => execute(transaction, select, 'reading dedup rows')), options.retry);
      return new Set(result.rows.map((row) => keys.get(String(row.dedup_key))).filter((eventId): eventId is string => eventId !== undefined));
    },
  };
}

/** One run's transaction; `run` is called again for each retry, and starts from nothing each time. */
class BatchCommit {
  public constructor(
    private readonly table: SqlIdentifier,
    private readonly events: readonly Pending[],
    private readonly expiresAt: number,
    private readonly ordered: boolean,
    private readonly isolation: SqlIsolation,
    private readonly budget: TimeBudget,
  ) {}

  public async run(transaction: SqlTransaction): Promise<Map<number, Outcome>> {
    const outcomes = new Map<number, Outcome>();
    if (this.isolation !== 'read committed') await this.execute(transaction, { sql: `SET TRANSACTION ISOLATION LEVEL ${this.isolation.toUpperCase()}`, parameters: [] }, 'setting the isolation level');
    await this.boundStatements(transaction);
    const fresh = await this.claim(transaction, outcomes);
    if (fresh.length === 0) return outcomes;
    const failure = await this.applyTogether(transaction, fresh, outcomes);
    const failedKeys = failure === undefined ? [] : await this.isolate(transaction, fresh, failure, outcomes);
    if (failedKeys.length > 0) await this.execute(transaction, sql`DELETE FROM ${this.table} WHERE dedup_key IN (${list(failedKeys)})`, 'deleting the dedup rows of failed events');
    return outcomes;
  }

  /** Inserts the dedup rows; returns the events that are new, in batch order, and marks the duplicates. */
  private async claim(transaction: SqlTransaction, outcomes: Map<number, Outcome>): Promise<Pending[]> {
    // One row per key, in key order: every batch takes its keys' locks in the same order.
    const rows = new Map<string, Pending>();
    for (const event of this.events) if (!rows.has(event.key)) rows.set(event.key, event);
    const sorted = [...rows.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const values = joinSql(sorted.map((event) => sql`(${event.key}, ${event.payloadHash}, ${this.expiresAt})`), ', ');
    const inserted = await this.execute(transaction, sql`INSERT INTO ${this.table} (dedup_key, payload_hash, expires_at) VALUES ${values} ON CONFLICT (dedup_key) DO NOTHING RETURNING dedup_key`, 'inserting the dedup rows');
    const claimed = new Set(inserted.rows.map((row) => String(row.dedup_key)));
    const fresh = this.events.filter((event) => claimed.has(event.key) && rows.get(event.key) === event);
    const duplicates = this.events.filter((event) => !fresh.includes(event));
    if (duplicates.length > 0) {
      const keys = [...new Set(duplicates.map((event) => event.key))];
      const stored = await this.execute(transaction, sql`SELECT dedup_key, payload_hash FROM ${this.table} WHERE dedup_key IN (${list(keys)})`, 'reading the duplicates\' dedup rows');
      const hashes = new Map(stored.rows.map((row) => [String(row.dedup_key), String(row.payload_hash)]));
      for (const event of duplicates) {
        const earlier = claimed.has(event.key) ? rows.get(event.key)?.payloadHash : hashes.get(event.key);
        outcomes.set(event.index, { status: 'duplicate', conflictingPayload: earlier !== undefined && earlier !== event.payloadHash });
      }
    }
    return fresh;
  }

  /** The fast path: every new event's statements, then the increments summed per row, under one savepoint. Returns the error of a statement that failed for its event's reason. */
  private async applyTogether(transaction: SqlTransaction, fresh: readonly Pending[], outcomes: Map<number, Outcome>): Promise<SqlStatementError | undefined> {
    await this.execute(transaction, sql`SAVEPOINT eo_batch`, 'a savepoint');
    try {
      await this.executeAll(transaction, fresh.flatMap((event) => event.statements), 'an effect');
      await this.executeAll(transaction, aggregateIncrements(fresh.flatMap((event) => event.increments)), 'an increment');
    } catch (error) {
      if (!(error instanceof SqlStatementError)) throw error;
      await this.execute(transaction, sql`ROLLBACK TO SAVEPOINT eo_batch`, 'rolling back to a savepoint');
      return error;
    }
    await this.execute(transaction, sql`RELEASE SAVEPOINT eo_batch`, 'releasing a savepoint');
    for (const event of fresh) outcomes.set(event.index, { status: 'applied' });
    return undefined;
  }

  /** After a failure of the fast path, finds the failing event (a single one is it); returns the keys whose dedup rows must go. */
  private async isolate(transaction: SqlTransaction, fresh: readonly Pending[], failure: SqlStatementError, outcomes: Map<number, Outcome>): Promise<string[]> {
    if (fresh.length > 1) return this.applyOneByOne(transaction, fresh, outcomes);
    const [event] = fresh as [Pending];
    outcomes.set(event.index, { status: 'failed', error: failure });
    return [event.key];
  }

  /** After a failure of the fast path: each event under its own savepoint. Returns the keys whose dedup rows must go. */
  private async applyOneByOne(transaction: SqlTransaction, fresh: readonly Pending[], outcomes: Map<number, Outcome>): Promise<string[]> {
    const failedKeys: string[] = [];
    let stopped = false;
    for (const event of fresh) {
      if (stopped) {
        outcomes.set(event.index, notAttempted());
        failedKeys.push(event.key);
        continue;
      }
      await this.execute(transaction, sql`SAVEPOINT eo_event`, 'a savepoint');
      try {
        for (const statement of event.statements) await this.execute(transaction, statement, 'an effect');
        for (const statement of aggregateIncrements(event.increments)) await this.execute(transaction, statement, 'an increment');
        await this.execute(transaction, sql`RELEASE SAVEPOINT eo_event`, 'releasing a savepoint');
        outcomes.set(event.index, { status: 'applied' });
      } catch (error) {
        if (!(error instanceof SqlStatementError)) throw error;
        await this.execute(transaction, sql`ROLLBACK TO SAVEPOINT eo_event`, 'rolling back to a savepoint');
        outcomes.set(event.index, { status: 'failed', error });
        failedKeys.push(event.key);
        stopped = this.ordered;
      }
    }
    return failedKeys;
  }

  /**
   * No statement of the transaction may outlive the invocation: PostgreSQL cancels one that runs,
   * or waits for a lock, past the time left (57014, transient). Without it, a statement blocked on
   * another transaction's dedup row would run on after Lambda ended the invocation, its
   * transaction open (the Data API keeps it three minutes), holding the rows that the batch's
   * redelivery then waits for in turn.
   */
  private async boundStatements(transaction: SqlTransaction): Promise<void> {
    const remainingMs = this.budget.remainingMs();
    if (!Number.isFinite(remainingMs)) return;
    await this.execute(transaction, sql`SELECT set_config('statement_timeout', ${String(Math.max(1, Math.floor(remainingMs)))}, true)`, 'bounding the statements by the time left');
  }

  /** Runs the statements in order, neighbours of one shape in one call where the session can batch them. */
  private async executeAll(transaction: SqlTransaction, statements: readonly SqlStatement[], what: string): Promise<void> {
    for (const run of statementRuns(statements)) {
      if (run.length === 1 || transaction.executeBatch === undefined) {
        for (const statement of run) await this.execute(transaction, statement, what);
        continue;
      }
      this.checkTime();
      try {
        await transaction.executeBatch(run);
      } catch (error) {
        throw classifySqlFailure(error, `${what} (a batch of ${run.length})`);
      }
    }
  }

  /** Runs a statement, unless the time is up (then the transaction rolls back, and the run fails transiently). */
  private execute(transaction: SqlTransaction, statement: SqlStatement, what: string): ReturnType<SqlTransaction['execute']> {
    this.checkTime();
    return execute(transaction, statement, what);
  }

  private checkTime(): void {
    if (this.budget.exhausted()) throw new OutOfTimeError(0);
  }
}

/**
 * Runs `work` in a transaction of the session. A failure of the session's own (BEGIN, COMMIT: a
 * serialization failure at commit, a deferred constraint, a lost connection) comes out classified
 * too, so that the retries know it.
 */
async function inTransaction<T>(session: SqlSession, work: (transaction: SqlTransaction) => Promise<T>): Promise<T> {
  try {
    return await session.transaction(work);
  } catch (error) {
    throw classifySqlFailure(error, 'the transaction');
  }
}

/** Runs a statement; its failure comes out classified ({@link classifySqlFailure}). */
async function execute(transaction: SqlTransaction, statement: SqlStatement, what: string): ReturnType<SqlTransaction['execute']> {
  try {
    return await transaction.execute(statement);
  } catch (error) {
    throw classifySqlFailure(error, what);
  }
}

/** `:p0, :p1, ...` for an `IN (...)` list. */
function list(values: readonly string[]): SqlStatement {
  return joinSql(values.map((value) => sql`${value}`), ', ');
}

/** A handler's result, checked: statements apart from increments. Anything else fails its event alone, permanently. */
function splitEffects(effects: unknown, eventId: string): { statements: SqlStatement[]; increments: SqlIncrement[] } {
  if (!Array.isArray(effects)) throw new InvalidEffectError(`the handler of event ${eventId} returned ${typeof effects}, not a list of SQL effects`);
  const statements: SqlStatement[] = [];
  const increments: SqlIncrement[] = [];
  for (const effect of effects as readonly SqlEffect[]) {
    if (typeof effect === 'object' && effect !== null && isIncrement(effect)) increments.push(effect);
    else if (typeof effect === 'object' && effect !== null && typeof effect.sql === 'string' && Array.isArray(effect.parameters)) statements.push(effect);
    else throw new InvalidEffectError(`an effect of event ${eventId} is neither a statement (sql\`...\`) nor an increment: ${messageOf(effect)}`);
  }
  return { statements, increments };
}

function setAll(outcomes: Map<number, Outcome>, events: readonly Pending[], outcome: Outcome): Map<number, Outcome> {
  for (const event of events) outcomes.set(event.index, outcome);
  return outcomes;
}
