import { BatchExecuteStatementCommand, BeginTransactionCommand, CommitTransactionCommand, ExecuteStatementCommand, RollbackTransactionCommand, type RDSDataClient } from '@aws-sdk/client-rds-data';
import { ConfigurationError } from '../../core/errors';
import { dataApiFailure } from './data-api-errors';
import { DataApiRefusedError, SqlTransactionLostError } from './errors';
import { batchExecuteStatementInput, executeStatementInput, resultOf, type DataApiTarget } from './data-api-values';
import type { SqlResult, SqlSession, SqlTransaction } from './session';
import type { SqlStatement } from './sql';

/** Tries of a rollback: the first, and one more when its answer is lost. */
const ROLLBACK_ATTEMPTS = 2;

/** Where a {@link DataApiSession} runs its transactions. */
export interface DataApiSessionOptions {
  /**
   * The Data API client, with `maxAttempts: 1` (a client with more is refused at the first
   * transaction): the strategy retries whole transactions, and the SDK's own retry of a statement
   * whose answer was lost would run it twice in one transaction. Give it a request timeout over the
   * Data API's 45 s ("Controlling Data API timeout behavior"), so that the client never gives up on
   * a call that still completes.
   */
  readonly client: RDSDataClient;
  /** The Aurora cluster's ARN (`arn:aws:rds:<region>:<account>:cluster:<name>`). */
  readonly resourceArn: string;
  /** The ARN of the Secrets Manager secret holding the database user's credentials. */
  readonly secretArn: string;
  /** @default - the secret's or the cluster's default database */
  readonly database?: string;
}

/**
 * The SQL strategy's session over the RDS Data API (Aurora PostgreSQL Serverless v2 and
 * provisioned clusters): a transaction is `BeginTransaction`, its statements `ExecuteStatement`
 * with the transaction id, then `CommitTransaction`, or `RollbackTransaction` when the work
 * fails. No VPC, no connection pool: each call is an HTTPS request.
 *
 * Its failures come out as the strategy classifies them (data-api-errors.ts): a statement error's
 * SQLSTATE is read out of the Data API's message, `DatabaseResumingException` is retried with
 * longer waits, `TransactionNotFoundException` and the 5xx errors are transient, and a refusal of
 * the call itself (access denied, a result over 1 MiB) is permanent.
 *
 * @example
 * ```ts
 * import { RDSDataClient } from '@aws-sdk/client-rds-data';
 * import { DataApiSession, sqlStrategy } from 'effectively-once/runtime';
 *
 * const session = new DataApiSession({
 *   client: new RDSDataClient({ maxAttempts: 1 }),
 *   resourceArn: process.env.CLUSTER_ARN ?? '',
 *   secretArn: process.env.SECRET_ARN ?? '',
 *   database: 'ledger',
 * });
 * const strategy = sqlStrategy({ session, dedup: { table: 'eo_dedup', consumer: 'ledger' } });
 * ```
 */
export class DataApiSession implements SqlSession {
  private clientChecked?: Promise<void>;

  public constructor(private readonly options: DataApiSessionOptions) {}

  /** @throws ConfigurationError when the client would retry a call by itself (`maxAttempts` other than 1) */
  public async transaction<T>(work: (transaction: SqlTransaction) => Promise<T>): Promise<T> {
    await this.checkClient();
    const { client, resourceArn, secretArn, database } = this.options;
    const begun = await call(() => client.send(new BeginTransactionCommand({ resourceArn, secretArn, database })));
    const transactionId = begun.transactionId ?? '';
    let result: T;
    try {
      result = await work({ execute: (statement) => this.execute(statement, transactionId), executeBatch: (statements) => this.executeBatch(statements, transactionId) });
      await call(() => client.send(new CommitTransactionCommand({ resourceArn, secretArn, transactionId })));
    } catch (error) {
      await this.rollback(transactionId);
      throw error;
    }
    return result;
  }

  /**
   * Ends a transaction that did not commit: after its work failed, and after a commit whose answer
   * was lost (a timeout, a dropped connection), when nobody knows whether it committed. Left open,
   * it would hold its dedup rows' locks for the Data API's three minutes, and the strategy's retry
   * of the same events would wait on them. A rollback of a transaction that did commit, or that
   * the Data API ended already, finds it gone (`TransactionNotFoundException`): nothing to undo.
   * One more try when the rollback's own answer is lost; past that, the transaction expires on its
   * own, and the strategy's lock timeout keeps the retries from waiting it out.
   */
  private async rollback(transactionId: string): Promise<void> {
    const { client, resourceArn, secretArn } = this.options;
    for (let attempt = 0; attempt < ROLLBACK_ATTEMPTS; attempt += 1) {
      try {
        await call(() => client.send(new RollbackTransactionCommand({ resourceArn, secretArn, transactionId })));
        return;
      } catch (error) {
        if (error instanceof SqlTransactionLostError || error instanceof DataApiRefusedError) return;
      }
    }
  }

  /** Runs one statement outside any transaction (the Data API commits it at once), e.g. a migration's DDL. */
  public async executeAutocommit(statement: SqlStatement): Promise<SqlResult> {
    await this.checkClient();
    return this.execute(statement, undefined);
  }

  /** Refuses, once and for good, a client that would send a statement twice on its own. */
  private checkClient(): Promise<void> {
    this.clientChecked ??= this.options.client.config.maxAttempts().then((attempts) => {
      if (attempts !== 1) {
        throw new ConfigurationError(`DataApiSession needs an RDSDataClient with maxAttempts: 1 (this one makes ${attempts}): the SDK's retry of a statement whose answer was lost would run it twice in one transaction; the strategy retries whole transactions instead`);
      }
    });
    return this.clientChecked;
  }

  private async execute(statement: SqlStatement, transactionId: string | undefined): Promise<SqlResult> {
    return resultOf(await call(() => this.options.client.send(new ExecuteStatementCommand(executeStatementInput(statement, this.target(transactionId))))));
  }

  /** Statements of one shape as one `BatchExecuteStatement` of the transaction. */
  private async executeBatch(statements: readonly SqlStatement[], transactionId: string): Promise<void> {
    if (statements.length === 0) return;
    await call(() => this.options.client.send(new BatchExecuteStatementCommand(batchExecuteStatementInput(statements, this.target(transactionId)))));
  }

  private target(transactionId: string | undefined): DataApiTarget {
    return { resourceArn: this.options.resourceArn, secretArn: this.options.secretArn, database: this.options.database, transactionId };
  }
}

/** A Data API call whose failure is rethrown as the strategy reads it. */
async function call<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    throw dataApiFailure(error);
  }
}
