import { classifyError } from '../../core/classify';
import { EffectivelyOnceError, FailureKind, messageOf, PermanentError, StateRefusalError, TransientError } from '../../core/errors';
import type { SlowRetryHint } from '../../core/backoff';
import { sqlStateOf } from './session';

/**
 * SQLSTATE classes that one event's statements caused and no retry can fix: data exceptions (22: a
 * value out of range, a division by zero), integrity constraint violations (23: a CHECK, UNIQUE,
 * NOT NULL or foreign key), and syntax or access rule violations (42: a missing table or column, a
 * type mismatch, a missing privilege).
 */
export const PERMANENT_SQLSTATE_CLASSES: readonly string[] = ['22', '23', '42'];

/** A statement failed for a reason of its own event's making (a constraint, a bad value): the event fails alone, permanently. */
export class SqlStatementError extends StateRefusalError {
  /** The database's SQLSTATE, e.g. `23514` for a CHECK violation. */
  public readonly sqlState: string | undefined;

  public constructor(message: string, sqlState: string | undefined, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SqlStatementError';
    this.sqlState = sqlState;
  }
}

/** The transaction failed in a way a retry can clear (a serialization failure, a deadlock, a lost connection). */
export class SqlTransientError extends TransientError {
  /** The database's SQLSTATE, when the failure came from the database, e.g. `40001`. */
  public readonly sqlState: string | undefined;

  public constructor(message: string, sqlState: string | undefined, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SqlTransientError';
    this.sqlState = sqlState;
  }
}

/**
 * The transaction is gone: the Data API's `TransactionNotFoundException` (it expired after three
 * minutes without a call, was ended, or "has been aborted due to an error from a previous call",
 * as its troubleshooting page lists). Transient as a whole: the transaction runs again from its
 * start. Right after a statement of its own failed, it tells the strategy that the Data API ended
 * the transaction on that failure (aborted-runs.ts).
 */
export class SqlTransactionLostError extends SqlTransientError {
  public constructor(message: string, options?: { cause?: unknown }) {
    super(message, undefined, options);
    this.name = 'SqlTransactionLostError';
  }
}

/**
 * A statement failed for its event's reason, and the transaction did not survive it: the rollback
 * to the savepoint before it found the transaction gone ({@link SqlTransactionLostError}), as the
 * Data API may end a transaction on an error. Not retried as it is (the same statement would end
 * it again): the strategy commits the run again part by part, so that the bad event fails alone
 * (aborted-runs.ts). Never an event's outcome.
 */
export class SqlTransactionAbortedError extends PermanentError {
  public constructor(public readonly failure: SqlStatementError) {
    super(`the transaction was aborted after a failed statement: ${failure.message}`, { cause: failure });
    this.name = 'SqlTransactionAbortedError';
  }
}

/**
 * SQLSTATEs of an object that is not there yet: undefined table (42P01), undefined schema
 * (3F000). During a deploy they are the schema's state, not the event's fault: a function that
 * starts before its migration has run meets them, and so does one whose `addSchema` statements are
 * still on their way. Transient, so that the events wait for the migration rather than fill the
 * DLQ; a name that stays missing fails every delivery and reaches the DLQ on its last attempt.
 */
export const SCHEMA_NOT_READY_SQLSTATES: readonly string[] = ['42P01', '3F000'];

/** A table or schema a statement names does not exist (yet): see {@link SCHEMA_NOT_READY_SQLSTATES}. */
export class SqlSchemaMissingError extends SqlTransientError {
  public constructor(message: string, sqlState: string, options?: { cause?: unknown }) {
    super(`${message} (the schema is not there yet: a migration that has not run, not the event's fault)`, sqlState, options);
    this.name = 'SqlSchemaMissingError';
  }
}

/**
 * The waits after a {@link DatabaseResumingError}: an Aurora Serverless v2 instance paused at zero
 * capacity takes about 15 seconds to resume (AWS's figure, quoted by InfoQ's report of the
 * feature, republished at https://mobilemonitoringsolutions.com/?p=616096), so waits start at a
 * second and grow to 8 s where the runtime's own start at 50 ms and stop at 2 s. A resume is not
 * the run's failure: it is waited out without using up the retries' attempts, for as long as the
 * invocation's time budget allows (its margin kept to settle the batch), and at most `waitOutMs`
 * (four times the resume) where there is no budget.
 */
export const RESUMING_BACKOFF = { baseMs: 1_000, capMs: 8_000, waitOutMs: 60_000 } as const;

/**
 * The database is resuming from a pause (the Data API's `DatabaseResumingException`): transient,
 * and retried with the longer waits of {@link RESUMING_BACKOFF}, which the retries read from its
 * `retryBackoff`.
 */
export class DatabaseResumingError extends SqlTransientError implements SlowRetryHint {
  public readonly retryBackoff = RESUMING_BACKOFF;

  public constructor(message: string, options?: { cause?: unknown }) {
    super(message, undefined, options);
    this.name = 'DatabaseResumingError';
  }
}

/**
 * The Data API refused a call for a reason no retry changes (access denied, an unknown secret or
 * cluster, a result over its size limits): every event of the run fails permanently, with the
 * Data API's error as the cause. Not an {@link SqlStatementError}: no one event caused it.
 */
export class DataApiRefusedError extends PermanentError {
  /** The Data API's error name, e.g. `AccessDeniedException`. */
  public readonly errorName: string;

  public constructor(message: string, errorName: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DataApiRefusedError';
    this.errorName = errorName;
  }
}

/** Whether a SQLSTATE is one event's fault ({@link PERMANENT_SQLSTATE_CLASSES}, but for {@link SCHEMA_NOT_READY_SQLSTATES}). */
export function isPermanentSqlState(sqlState: string): boolean {
  return PERMANENT_SQLSTATE_CLASSES.includes(sqlState.slice(0, 2)) && !SCHEMA_NOT_READY_SQLSTATES.includes(sqlState);
}

/**
 * What a failed statement means: a {@link SqlStatementError} for one event's fault, a
 * {@link SqlTransientError} for anything a retry of the whole transaction may clear: a
 * serialization failure (40001), a deadlock (40P01), a lock not available (55P03, lock_timeout), a
 * cancelled query (57014, statement_timeout), the server shutting down or starting (57P01-57P03),
 * too many connections (53300), a lost connection (class 08, or no SQLSTATE at all), and any
 * SQLSTATE not in {@link PERMANENT_SQLSTATE_CLASSES}, as every unrecognised failure is transient
 * in the runtime (core/classify.ts); a missing table or schema is a {@link SqlSchemaMissingError}
 * (transient). The runtime's own errors stay as they are.
 */
export function classifySqlFailure(error: unknown, what: string): EffectivelyOnceError {
  if (error instanceof EffectivelyOnceError) return error;
  const sqlState = sqlStateOf(error);
  const message = `${what} failed${sqlState === undefined ? '' : ` (SQLSTATE ${sqlState})`}: ${messageOf(error)}`;
  if (sqlState !== undefined && SCHEMA_NOT_READY_SQLSTATES.includes(sqlState)) return new SqlSchemaMissingError(message, sqlState, { cause: error });
  const permanent = sqlState === undefined ? classifyError(error) === FailureKind.PERMANENT : isPermanentSqlState(sqlState);
  return permanent ? new SqlStatementError(message, sqlState, { cause: error }) : new SqlTransientError(message, sqlState, { cause: error });
}
