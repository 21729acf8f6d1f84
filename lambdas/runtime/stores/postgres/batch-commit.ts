/**
 * One transaction of the SQL strategy over a run of events (docs/patterns/sql-dedup.md, "How a
 * batch commits"): (0) the time bounds and, where the plan could use them, the tables' catalog
 * facts, in one statement; (1) the events' dedup rows, in one multi-row insert in key order, the
 * keys it did not return being duplicates; (2) the new events' effects, as effect-plan.ts orders
 * them; (3) the commit, by the session.
 *
 * A statement that fails for its event's reason ({@link SqlStatementError}) is handled by the
 * commit's {@link FailureScope}: under `savepoints`, the effects run under a savepoint, and on such
 * a failure the transaction rolls back to it and applies the events one at a time, each under a
 * savepoint of its own, so that the failing event fails alone and its dedup row is deleted; under
 * `whole` (a part of a run whose transaction the Data API aborted: aborted-runs.ts), the failure
 * ends the transaction, and the caller splits the part. Any other failure rolls the transaction
 * back for the strategy's retries.
 */
import { OutOfTimeError } from '../../core/errors';
import type { TimeBudget } from '../../core/time-budget';
import { notAttempted, type Outcome } from '../../consumer/strategy';
import { eventStatements, planStatements, tablesToInspect } from './effect-plan';
import type { SqlEffect } from './effects';
import { classifySqlFailure, SqlStatementError, SqlTransactionAbortedError, SqlTransactionLostError } from './errors';
import type { SqlResult, SqlTransaction } from './session';
import { joinSql, sql, type SqlIdentifier, type SqlStatement } from './sql';
import { statementRuns } from './statement-runs';
import { tableFactsOf, tableFactsStatement, type TableFacts } from './table-facts';

/** The isolation level of the strategy's transactions. */
export type SqlIsolation = 'read committed' | 'repeatable read' | 'serializable';

/** An event whose handler ran: its dedup key, payload hash and effects. */
export interface PendingEvent {
  readonly index: number;
  readonly key: string;
  readonly payloadHash: string;
  readonly effects: readonly SqlEffect[];
}

/** What every transaction of one run shares. */
export interface CommitSettings {
  /** The dedup table. */
  readonly table: SqlIdentifier;
  /** The dedup rows' `expires_at`, in epoch seconds. */
  readonly expiresAt: number;
  /** The run is one order group: after a failing event, the rest are not attempted. */
  readonly ordered: boolean;
  readonly isolation: SqlIsolation;
  readonly budget: TimeBudget;
}

/** How a statement that fails for its event's reason is handled (see the file's comment). */
export type FailureScope = 'savepoints' | 'whole';

/**
 * The longest a statement waits for a row lock (`lock_timeout`), and at most this share of the
 * time left: a lock held by a transaction that will not end soon (one whose commit's answer was
 * lost, left open until the Data API's three minutes pass) then fails the statement with 55P03,
 * which is transient, and leaves the invocation the time for its retries and to settle, rather
 * than spend it all on one wait. A concurrent invocation's transaction on the same rows commits in
 * far less.
 */
export const LOCK_WAIT = { maxMs: 5_000, shareOfTimeLeft: 1 / 4 } as const;

const ISOLATION_STATEMENTS: Readonly<Record<Exclude<SqlIsolation, 'read committed'>, SqlStatement>> = {
  'repeatable read': sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`,
  serializable: sql`SET TRANSACTION ISOLATION LEVEL SERIALIZABLE`,
};
const SAVEPOINT = { batch: 'eo_batch', event: 'eo_event' } as const;
const SAVEPOINT_STATEMENTS = {
  eo_batch: { set: sql`SAVEPOINT eo_batch`, release: sql`RELEASE SAVEPOINT eo_batch`, rollback: sql`ROLLBACK TO SAVEPOINT eo_batch` },
  eo_event: { set: sql`SAVEPOINT eo_event`, release: sql`RELEASE SAVEPOINT eo_event`, rollback: sql`ROLLBACK TO SAVEPOINT eo_event` },
} as const;

/** One transaction over `events`; `run` is called again for each retry, and starts from nothing each time. */
export class BatchCommit {
  public constructor(
    private readonly settings: CommitSettings,
    private readonly events: readonly PendingEvent[],
    private readonly scope: FailureScope,
  ) {}

  public async run(transaction: SqlTransaction): Promise<Map<number, Outcome>> {
    const outcomes = new Map<number, Outcome>();
    if (this.settings.isolation !== 'read committed') await this.execute(transaction, ISOLATION_STATEMENTS[this.settings.isolation], 'setting the isolation level');
    const facts = await this.setUp(transaction);
    const fresh = await this.claim(transaction, outcomes);
    if (fresh.length === 0) return outcomes;
    if (this.scope === 'whole') {
      await this.executeAll(transaction, planStatements(fresh.map((event) => event.effects), facts), 'an effect');
      return markApplied(outcomes, fresh);
    }
    const failure = await this.applyTogether(transaction, fresh, facts, outcomes);
    const failedKeys = failure === undefined ? [] : await this.isolate(transaction, fresh, failure, outcomes);
    if (failedKeys.length > 0) await this.execute(transaction, sql`DELETE FROM ${this.settings.table} WHERE dedup_key IN (${keyList(failedKeys)})`, 'deleting the dedup rows of failed events');
    return outcomes;
  }

  /**
   * The transaction's first statement: inside an invocation, no statement may run past the time
   * left (`statement_timeout`: 57014, transient) nor wait for a lock longer than {@link LOCK_WAIT}
   * (`lock_timeout`: 55P03, transient); and, where the plan could use them, the tables' facts.
   * Without the bounds, a statement blocked on another transaction's dedup row would run on after
   * Lambda ended the invocation, its transaction open (the Data API keeps it three minutes),
   * holding the rows that the batch's redelivery then waits for in turn.
   */
  private async setUp(transaction: SqlTransaction): Promise<ReadonlyMap<string, TableFacts>> {
    const bounds = this.bounds();
    const tables = tablesToInspect(this.events.map((event) => event.effects));
    if (tables.length > 0) return tableFactsOf(await this.execute(transaction, tableFactsStatement(tables, bounds), 'reading the tables\' catalog facts'));
    if (bounds !== undefined) await this.execute(transaction, sql`SELECT ${bounds}`, 'bounding the statements by the time left');
    return new Map();
  }

  private bounds(): SqlStatement | undefined {
    const remainingMs = this.settings.budget.remainingMs();
    if (!Number.isFinite(remainingMs)) return undefined;
    const statementMs = Math.max(1, Math.floor(remainingMs));
    const lockMs = Math.max(1, Math.floor(Math.min(LOCK_WAIT.maxMs, remainingMs * LOCK_WAIT.shareOfTimeLeft)));
    return sql`set_config('statement_timeout', ${String(statementMs)}, true) AS statement_timeout, set_config('lock_timeout', ${String(lockMs)}, true) AS lock_timeout`;
  }

  /** Inserts the dedup rows; returns the events that are new, in batch order, and marks the duplicates. */
  private async claim(transaction: SqlTransaction, outcomes: Map<number, Outcome>): Promise<PendingEvent[]> {
    // One row per key, in key order: every batch takes its keys' locks in the same order.
    const rows = new Map<string, PendingEvent>();
    for (const event of this.events) if (!rows.has(event.key)) rows.set(event.key, event);
    const sorted = [...rows.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const values = joinSql(sorted.map((event) => sql`(${event.key}, ${event.payloadHash}, ${this.settings.expiresAt})`), ', ');
    const inserted = await this.execute(transaction, sql`INSERT INTO ${this.settings.table} (dedup_key, payload_hash, expires_at) VALUES ${values} ON CONFLICT (dedup_key) DO NOTHING RETURNING dedup_key`, 'inserting the dedup rows');
    const claimed = new Set(inserted.rows.map((row) => String(row.dedup_key)));
    const fresh = this.events.filter((event) => claimed.has(event.key) && rows.get(event.key) === event);
    const duplicates = this.events.filter((event) => !fresh.includes(event));
    if (duplicates.length > 0) await this.markDuplicates(transaction, duplicates, (key) => (claimed.has(key) ? rows.get(key)?.payloadHash : undefined), outcomes);
    return fresh;
  }

  /** Duplicates, each flagged when its payload differs from the one its dedup row was written with. */
  private async markDuplicates(transaction: SqlTransaction, duplicates: readonly PendingEvent[], claimedHash: (key: string) => string | undefined, outcomes: Map<number, Outcome>): Promise<void> {
    const keys = [...new Set(duplicates.map((event) => event.key))];
    const stored = await this.execute(transaction, sql`SELECT dedup_key, payload_hash FROM ${this.settings.table} WHERE dedup_key IN (${keyList(keys)})`, 'reading the duplicates\' dedup rows');
    const hashes = new Map(stored.rows.map((row) => [String(row.dedup_key), String(row.payload_hash)]));
    for (const event of duplicates) {
      const earlier = claimedHash(event.key) ?? hashes.get(event.key);
      outcomes.set(event.index, { status: 'duplicate', conflictingPayload: earlier !== undefined && earlier !== event.payloadHash });
    }
  }

  /** The new events' effects, as planned, under one savepoint. Returns the error of a statement that failed for its event's reason. */
  private async applyTogether(transaction: SqlTransaction, fresh: readonly PendingEvent[], facts: ReadonlyMap<string, TableFacts>, outcomes: Map<number, Outcome>): Promise<SqlStatementError | undefined> {
    const failure = await this.underSavepoint(transaction, SAVEPOINT.batch, () => this.executeAll(transaction, planStatements(fresh.map((event) => event.effects), facts), 'an effect'));
    if (failure === undefined) markApplied(outcomes, fresh);
    return failure;
  }

  /** After a failure of the fast path, finds the failing event (a single one is it); returns the keys whose dedup rows must go. */
  private async isolate(transaction: SqlTransaction, fresh: readonly PendingEvent[], failure: SqlStatementError, outcomes: Map<number, Outcome>): Promise<string[]> {
    if (fresh.length > 1) return this.applyOneByOne(transaction, fresh, outcomes);
    const [event] = fresh as [PendingEvent];
    outcomes.set(event.index, { status: 'failed', error: failure });
    return [event.key];
  }

  /** Each event under its own savepoint, in order. Returns the keys whose dedup rows must go. */
  private async applyOneByOne(transaction: SqlTransaction, fresh: readonly PendingEvent[], outcomes: Map<number, Outcome>): Promise<string[]> {
    const failedKeys: string[] = [];
    let stopped = false;
    for (const event of fresh) {
      const failure = stopped ? undefined : await this.underSavepoint(transaction, SAVEPOINT.event, () => this.executeAll(transaction, eventStatements(event.effects), 'an effect'));
      if (!stopped && failure === undefined) {
        outcomes.set(event.index, { status: 'applied' });
        continue;
      }
      outcomes.set(event.index, stopped ? notAttempted() : { status: 'failed', error: failure });
      failedKeys.push(event.key);
      stopped ||= this.settings.ordered;
    }
    return failedKeys;
  }

  /** Runs `work` under a savepoint: released when it succeeds, rolled back to when a statement fails for its event's reason (whose error it returns). */
  private async underSavepoint(transaction: SqlTransaction, name: keyof typeof SAVEPOINT_STATEMENTS, work: () => Promise<void>): Promise<SqlStatementError | undefined> {
    const statements = SAVEPOINT_STATEMENTS[name];
    await this.execute(transaction, statements.set, 'a savepoint');
    try {
      await work();
    } catch (error) {
      if (!(error instanceof SqlStatementError)) throw error;
      await this.rollbackTo(transaction, statements.rollback, error);
      return error;
    }
    await this.execute(transaction, statements.release, 'releasing a savepoint');
    return undefined;
  }

  /** Back to a savepoint after `failure`; a transaction found gone there was aborted by that failure. */
  private async rollbackTo(transaction: SqlTransaction, rollback: SqlStatement, failure: SqlStatementError): Promise<void> {
    try {
      await this.execute(transaction, rollback, 'rolling back to a savepoint');
    } catch (error) {
      throw error instanceof SqlTransactionLostError ? new SqlTransactionAbortedError(failure) : error;
    }
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
  private execute(transaction: SqlTransaction, statement: SqlStatement, what: string): Promise<SqlResult> {
    this.checkTime();
    return executeStatement(transaction, statement, what);
  }

  private checkTime(): void {
    if (this.settings.budget.exhausted()) throw new OutOfTimeError(0);
  }
}

/** Runs a statement; its failure comes out classified (`classifySqlFailure`). */
export async function executeStatement(transaction: SqlTransaction, statement: SqlStatement, what: string): Promise<SqlResult> {
  try {
    return await transaction.execute(statement);
  } catch (error) {
    throw classifySqlFailure(error, what);
  }
}

/** `:p0, :p1, ...` for an `IN (...)` list of keys. */
export function keyList(values: readonly string[]): SqlStatement {
  return joinSql(values.map((value) => sql`${value}`), ', ');
}

function markApplied(outcomes: Map<number, Outcome>, events: readonly PendingEvent[]): Map<number, Outcome> {
  for (const event of events) outcomes.set(event.index, { status: 'applied' });
  return outcomes;
}
