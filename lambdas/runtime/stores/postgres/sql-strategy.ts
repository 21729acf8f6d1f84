import { sqlDedupTableStatements } from '../../../../aws/sql-dedup-table';
import { withRetries, type RetryOptions } from '../../core/backoff';
import { InvalidEffectError, messageOf, OutOfTimeError } from '../../core/errors';
import { UNLIMITED_TIME, WorkPace } from '../../core/time-budget';
import { dedupKey, dedupNamespace } from '../../consumer/namespace';
import { invokeHandlers, type Outcome, type Strategy } from '../../consumer/strategy';
import { payloadHash } from '../../events/event-id';
import { commitInParts } from './aborted-runs';
import { BatchCommit, executeStatement, keyList, type CommitSettings, type FailureScope, type PendingEvent, type SqlIsolation } from './batch-commit';
import { isIncrement, isRowWrite, type SqlEffect, type SqlEffects } from './effects';
import { classifySqlFailure, SqlTransactionAbortedError } from './errors';
import type { SqlSession, SqlTransaction } from './session';
import { isSqlStatement, sql, sqlIdentifier } from './sql';

export type { SqlIsolation } from './batch-commit';

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

/**
 * Dedup in SQL (docs/patterns/sql-dedup.md): each event's dedup row is inserted in the same
 * transaction as its effects, one transaction per run of events (batch-commit.ts). Handlers return
 * {@link SqlEffects} and must not write to the database themselves. The state a run leaves is the
 * state of applying its events one at a time in their order (effect-plan.ts), however the events
 * were batched. A statement that fails for its event's reason fails that event alone; the others
 * commit, whether the session keeps a transaction open after a failed statement (PostgreSQL's own
 * behaviour, recovered with a savepoint) or ends it (as the Data API may: aborted-runs.ts). A
 * transient failure (serialization failure, deadlock, lock or statement timeout, lost connection,
 * a missing table during a deploy, a cluster resuming) retries the whole transaction within the
 * time budget, then fails the events transiently. An ordered run stops at its first failing
 * event: the rest are not attempted.
 */
export function sqlStrategy(options: SqlStrategyOptions): Strategy<SqlEffects> {
  const now = options.now ?? (() => new Date());
  const namespace = dedupNamespace(options.dedup.consumer, options.dedup.generation);
  const table = sqlIdentifier(options.dedup.table);
  return {
    async apply(events, run) {
      const { prepared: pending, outcomes } = invokeHandlers(events, run, (accepted): PendingEvent => ({
        index: accepted.index,
        key: dedupKey(namespace, accepted.event.eventId),
        payloadHash: payloadHash(accepted.event.payload),
        effects: checkedEffects(accepted.invoke(), accepted.event.eventId),
      }));
      if (pending.length === 0) return outcomes;
      const budget = run.budget ?? UNLIMITED_TIME;
      const pace = new WorkPace(budget);
      if (!pace.canStart()) return setAll(outcomes, pending, { status: 'failed', error: new OutOfTimeError(pace.remainingMs()) });
      const expiresAt = Math.floor(now().getTime() / 1000) + (options.dedup.ttlSeconds ?? DEFAULT_SQL_DEDUP_TTL_SECONDS);
      const settings: CommitSettings = { table, expiresAt, ordered: run.ordered, isolation: options.isolation ?? 'read committed', budget };
      const commit = (part: readonly PendingEvent[], scope: FailureScope) =>
        withRetries(() => pace.time(() => inTransaction(options.session, (transaction) => new BatchCommit(settings, part, scope).run(transaction))), { ...options.retry, budget });
      return merge(outcomes, await commitRun(pending, commit, { ordered: run.ordered, pace }));
    },
    async applied(eventIds) {
      if (eventIds.length === 0) return new Set();
      const keys = new Map(eventIds.map((eventId) => [dedupKey(namespace, eventId), eventId]));
      const select = sql`SELECT dedup_key FROM ${table} WHERE dedup_key IN (${keyList([...keys.keys()])})`;
      const result = await withRetries(() => inTransaction(options.session, (transaction) => executeStatement(transaction, select, 'reading dedup rows')), options.retry);
      return new Set(result.rows.map((row) => keys.get(String(row.dedup_key))).filter((eventId): eventId is string => eventId !== undefined));
    },
  };
}

/** The run in one transaction; again in parts when the session aborted that transaction on a failed statement. */
async function commitRun(
  pending: readonly PendingEvent[],
  commit: (part: readonly PendingEvent[], scope: FailureScope) => Promise<Map<number, Outcome>>,
  run: { readonly ordered: boolean; readonly pace: WorkPace },
): Promise<Map<number, Outcome>> {
  try {
    return await commit(pending, 'savepoints');
  } catch (error) {
    if (error instanceof SqlTransactionAbortedError) return commitInParts(pending, (part) => commit(part, 'whole'), run);
    return setAll(new Map(), pending, { status: 'failed', error });
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

/**
 * A handler's result, checked: a list of effects the runtime made (`sql`, `sqlInsert`,
 * `upsertIfNewer`, `sqlIncrement`). Anything else, an object of the same shape included (one that
 * came from an event's data, say), fails its event alone, permanently.
 */
function checkedEffects(effects: unknown, eventId: string): SqlEffect[] {
  if (!Array.isArray(effects)) throw new InvalidEffectError(`the handler of event ${eventId} returned ${typeof effects}, not a list of SQL effects`);
  for (const effect of effects as readonly unknown[]) {
    if (!isSqlStatement(effect) && !isRowWrite(effect) && !isIncrement(effect)) {
      throw new InvalidEffectError(`an effect of event ${eventId} is none the runtime made (sql\`...\`, sqlInsert, upsertIfNewer, sqlIncrement): ${messageOf(effect)}`);
    }
  }
  return effects as SqlEffect[];
}

function merge(outcomes: Map<number, Outcome>, more: ReadonlyMap<number, Outcome>): Map<number, Outcome> {
  for (const [index, outcome] of more) outcomes.set(index, outcome);
  return outcomes;
}

function setAll(outcomes: Map<number, Outcome>, events: readonly PendingEvent[], outcome: Outcome): Map<number, Outcome> {
  for (const event of events) outcomes.set(event.index, outcome);
  return outcomes;
}
