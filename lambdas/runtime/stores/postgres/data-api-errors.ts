/**
 * What the RDS Data API's errors mean to the SQL strategy. Sources: the error shapes and their
 * HTTP statuses in the Data API's model (`@aws-sdk/client-rds-data`, and the API Reference's
 * "Errors" of ExecuteStatement, BeginTransaction, CommitTransaction and RollbackTransaction:
 * https://docs.aws.amazon.com/rdsdataservice/latest/APIReference/API_ExecuteStatement.html);
 * "Troubleshooting Amazon RDS Data API"
 * (https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/data-api.troubleshooting.html);
 * "Controlling Data API timeout behavior"
 * (https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/data-api-timeouts.html).
 */
import { messageOf } from '../../core/errors';
import { DatabaseResumingError, DataApiRefusedError, SqlTransactionLostError, SqlTransientError } from './errors';

/**
 * How the strategy treats one Data API error: by the SQLSTATE in its message, transient, permanent,
 * resuming (transient, waited out), or lost (transient: the transaction is gone, and right after a
 * failed statement of its own that means the Data API aborted it).
 */
export type DataApiErrorKind = 'sqlstate' | 'transient' | 'permanent' | 'resuming' | 'lost';

/** One row of {@link DATA_API_ERRORS}. */
export interface DataApiErrorRule {
  readonly kind: DataApiErrorKind;
  /** The HTTP status the Data API answers it with; undefined where its model does not say (throttling). */
  readonly status?: number;
  readonly reason: string;
}

/**
 * Every error of the Data API's model, and `ThrottlingException` (the AWS-wide throttling code,
 * which the model does not list), with what the strategy does with it and why.
 */
export const DATA_API_ERRORS: Readonly<Record<string, DataApiErrorRule>> = {
  DatabaseErrorException: { kind: 'sqlstate', status: 400, reason: 'PostgreSQL refused a statement: its message ends in "; SQLState: NNNNN", classified as the SQLSTATE says (class 22, 23, 42 permanent; the rest transient)' },
  BadRequestException: { kind: 'sqlstate', status: 400, reason: 'the deprecated form of a statement error (Aurora Serverless v1), with its SQLSTATE; without one, the call itself is malformed: permanent' },
  DatabaseResumingException: { kind: 'resuming', status: 400, reason: 'an Aurora Serverless v2 instance paused at zero capacity is resuming (about 15 s): retried with longer waits' },
  StatementTimeoutException: { kind: 'transient', status: 400, reason: 'the statement ran past the 45 s synchronous limit and was cancelled (the session never sets continueAfterTimeout), so it left nothing; a retry may find the lock or the load gone' },
  TransactionNotFoundException: { kind: 'lost', status: 404, reason: 'the transaction expired (no call for 3 minutes), was ended, or was aborted by an earlier error: it was rolled back, so the whole transaction is retried from its start; right after a failed statement, the run goes on one part at a time, so that the bad event fails alone' },
  DatabaseUnavailableException: { kind: 'transient', status: 504, reason: 'the writer instance is not available (a failover, a restart)' },
  DatabaseNotFoundException: { kind: 'transient', status: 404, reason: 'the cluster has no DB instance right now (one being replaced); a cluster that has none at all fails every try, and the source\'s own redrive ends that' },
  InvalidResourceStateException: { kind: 'transient', status: 400, reason: 'the cluster is in a state that refuses calls (being modified); the state passes' },
  InternalServerErrorException: { kind: 'transient', status: 500, reason: 'a server fault' },
  ServiceUnavailableError: { kind: 'transient', status: 503, reason: 'the service is not available: a server fault, and how the Data API throttles' },
  ThrottlingException: { kind: 'transient', reason: 'throttled' },
  AccessDeniedException: { kind: 'permanent', status: 403, reason: 'the role may not call the Data API on this cluster (rds-data:*) or read its secret (secretsmanager:GetSecretValue): a deployment fault no retry fixes' },
  ForbiddenException: { kind: 'permanent', status: 403, reason: 'insufficient privileges for the call' },
  HttpEndpointNotEnabledException: { kind: 'permanent', status: 400, reason: 'the Data API is not enabled on the cluster' },
  InvalidSecretException: { kind: 'permanent', status: 400, reason: 'the secret is not valid for the cluster' },
  SecretsErrorException: { kind: 'permanent', status: 400, reason: 'the secret was not found or could not be decrypted; a timeout reading it is transient (told by its message)' },
  NotFoundException: { kind: 'permanent', status: 404, reason: 'the resourceArn or secretArn names nothing; a transactionId that names nothing is transient, as TransactionNotFoundException' },
  UnsupportedResultException: { kind: 'permanent', status: 400, reason: 'the result has a type the Data API cannot return, or is over its size limits (1 MiB a response, 64 KB a row): the same statement gets the same result' },
};

/** `...; SQLState: 23505` at the end of a statement error's message. */
const SQLSTATE_IN_MESSAGE = /SQLState:\s*([0-9A-Z]{5})\b/;

/**
 * Messages that tell a case apart within one error name (the troubleshooting page's headings):
 * a result over the size limits is permanent whatever the error's name; a transaction still
 * running a query, or a secret that timed out, is transient.
 */
const PERMANENT_MESSAGES = [/packet for query is too large/i, /response (size )?exceeded (the )?size limit/i, /more than the allowed response size/i];
const TRANSIENT_CASES: Readonly<Record<string, RegExp>> = {
  SecretsErrorException: /timed out/i,
  BadRequestException: /still running a query/i,
};
/** Messages of a transaction not found under another error's name (the deprecated BadRequestException, a NotFoundException). */
const LOST_CASES: Readonly<Record<string, RegExp>> = {
  NotFoundException: /transaction/i,
  BadRequestException: /transaction .*not found/i,
};

/** A statement error of the Data API with PostgreSQL's SQLSTATE read out of its message, for {@link classifySqlFailure} to classify. */
export class DataApiStatementError extends Error {
  public constructor(
    message: string,
    /** The Data API's error name, e.g. `DatabaseErrorException`. */
    public readonly errorName: string,
    public readonly sqlState: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DataApiStatementError';
  }
}

/** The SQLSTATE a Data API message carries (`ERROR: ...; SQLState: 40001`), if any. */
export function sqlStateInMessage(message: string): string | undefined {
  return SQLSTATE_IN_MESSAGE.exec(message)?.[1];
}

/**
 * A Data API failure as the strategy's classification reads it: a statement error becomes a
 * {@link DataApiStatementError} with its `sqlState`, which `classifySqlFailure` classifies as any
 * database error; the others become a `SqlTransientError`, a `SqlTransactionLostError`, a
 * {@link DatabaseResumingError} or a {@link DataApiRefusedError} by {@link DATA_API_ERRORS}. Anything else (a network error, the
 * SDK's own timeout) is returned as it is: the runtime's classification knows those.
 */
export function dataApiFailure(error: unknown): unknown {
  const name = typeof error === 'object' && error !== null ? String((error as { name?: unknown }).name) : '';
  const rule = DATA_API_ERRORS[name];
  if (rule === undefined) return error;
  const message = messageOf(error);
  const text = `the Data API answered ${name}: ${message}`;
  if (PERMANENT_MESSAGES.some((pattern) => pattern.test(message))) return new DataApiRefusedError(text, name, { cause: error });
  if (LOST_CASES[name]?.test(message) === true) return new SqlTransactionLostError(text, { cause: error });
  switch (rule.kind) {
    case 'sqlstate':
      return statementFailure(error, name, message, text);
    case 'resuming':
      return new DatabaseResumingError(text, { cause: error });
    case 'transient':
      return new SqlTransientError(text, undefined, { cause: error });
    case 'lost':
      return new SqlTransactionLostError(text, { cause: error });
    case 'permanent':
      return transientAfterAll(name, message) ? new SqlTransientError(text, undefined, { cause: error }) : new DataApiRefusedError(text, name, { cause: error });
  }
}

/** A statement error without a SQLSTATE: a database error is transient (unrecognised), a bad request permanent but for its transient cases. */
function statementFailure(error: unknown, name: string, message: string, text: string): unknown {
  const sqlState = sqlStateInMessage(message);
  if (sqlState !== undefined) return new DataApiStatementError(text, name, sqlState, { cause: error });
  if (name === 'DatabaseErrorException' || transientAfterAll(name, message)) return new SqlTransientError(text, undefined, { cause: error });
  return new DataApiRefusedError(text, name, { cause: error });
}

function transientAfterAll(name: string, message: string): boolean {
  return TRANSIENT_CASES[name]?.test(message) ?? false;
}
