import { classifyError } from '../../core/classify';
import { EffectivelyOnceError, FailureKind, messageOf, PermanentError, TransientError } from '../../core/errors';
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
export class SqlStatementError extends PermanentError {
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
 * The waits after a {@link DatabaseResumingError}: an Aurora Serverless v2 instance paused at zero
 * capacity takes about 15 seconds to resume (AWS's figure, quoted by InfoQ's report of the
 * feature, republished at https://mobilemonitoringsolutions.com/?p=616096), so waits start at a
 * second and grow to 8 s where the runtime's own start at 50 ms and stop at 2 s.
 */
export const RESUMING_BACKOFF = { baseMs: 1_000, capMs: 8_000 } as const;

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

/** Whether a SQLSTATE is one event's fault ({@link PERMANENT_SQLSTATE_CLASSES}). */
export function isPermanentSqlState(sqlState: string): boolean {
  return PERMANENT_SQLSTATE_CLASSES.includes(sqlState.slice(0, 2));
}

/**
 * What a failed statement means: a {@link SqlStatementError} for one event's fault, a
 * {@link SqlTransientError} for anything a retry of the whole transaction may clear: a
 * serialization failure (40001), a deadlock (40P01), a lock not available (55P03, lock_timeout), a
 * cancelled query (57014, statement_timeout), the server shutting down or starting (57P01-57P03),
 * too many connections (53300), a lost connection (class 08, or no SQLSTATE at all), and any
 * SQLSTATE not in {@link PERMANENT_SQLSTATE_CLASSES}, as every unrecognised failure is transient
 * in the runtime (core/classify.ts). The runtime's own errors stay as they are.
 */
export function classifySqlFailure(error: unknown, what: string): EffectivelyOnceError {
  if (error instanceof EffectivelyOnceError) return error;
  const sqlState = sqlStateOf(error);
  const message = `${what} failed${sqlState === undefined ? '' : ` (SQLSTATE ${sqlState})`}: ${messageOf(error)}`;
  const permanent = sqlState === undefined ? classifyError(error) === FailureKind.PERMANENT : isPermanentSqlState(sqlState);
  return permanent ? new SqlStatementError(message, sqlState, { cause: error }) : new SqlTransientError(message, sqlState, { cause: error });
}
