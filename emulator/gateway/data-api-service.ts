/**
 * The RDS Data API in front of a real PostgreSQL: what stands behind the Data API gateway, as the
 * local functions stand behind Lambda's. The contract layer has decided the request (signature,
 * IAM) before it gets here; this finds the cluster and its secret, runs the statement, and
 * answers in the Data API's shapes (data-api-answers.ts).
 *
 * A transaction is one connection of its own from `BeginTransaction` to `CommitTransaction` or
 * `RollbackTransaction`, as the Data API keeps one for it; a call without a transaction id runs on
 * a fresh connection and commits at once. What the Data API enforces and local mode does too: a
 * transaction that sees no call for three minutes is rolled back (then `TransactionNotFoundException`),
 * a statement that runs past 45 s is cancelled (`StatementTimeoutException`), a second call on a
 * transaction that is still running one is refused, a request over 4 MiB, a row over 64 KB and a
 * response over 1 MiB are refused (DATA_API_LIMITS). Not enforced: the 24-hour cap of a transaction.
 *
 * What becomes of a transaction when one of its statements fails is a setting, because AWS does
 * not say which its service does: its troubleshooting page lists "Transaction has been aborted due
 * to an error from a previous call" among the causes of `TransactionNotFoundException`, and says
 * no more. `abort-transaction` (the default: what that page describes, and the stricter of the
 * two) rolls the transaction back with the failed call, so that every later call with its id
 * answers `TransactionNotFoundException` with that cause. `keep-transaction` leaves it open in
 * PostgreSQL's aborted state, as PostgreSQL itself does, so that a `ROLLBACK TO SAVEPOINT`
 * recovers it; a commit of such a transaction rolls it back and answers
 * `TransactionNotFoundException`. The runtime is tested under both (docs/patterns/sql-dedup.md).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { DATA_API_LIMITS } from '../../aws/limits';
import { dataApiTargetOf } from '../contract';
import { positionalText, type PositionalValue } from '../engines/named-parameters';
import type { PostgresTextResult } from '../engines/postgres-session';
import { dataApiAnswer, dataApiError, executeAnswer, statementErrorMessage, type ResultFormat } from './data-api-answers';
import type { EngineAnswer } from './forward';
import type { Random } from '../types';

/** One connection to the database behind a cluster: `PostgresSession` is one. */
export interface DataApiConnection {
  queryText(text: string, values?: readonly unknown[]): Promise<PostgresTextResult>;
  close(): Promise<void>;
}

/** A cluster the local Data API serves: its ARN, the secrets that open it, and how to reach its database. */
export interface DataApiCluster {
  /** `arn:aws:rds:<region>:<account>:cluster:<name>`. */
  readonly resourceArn: string;
  /** The ARNs (or names) of the secrets a request may name. */
  readonly secretArns: readonly string[];
  /** Opens a connection to `database` (the cluster's default when undefined). */
  readonly connect: (database: string | undefined) => Promise<DataApiConnection>;
}

/** What a failed statement can do to its transaction (see the file's comment), as local mode's settings spell them. */
export const STATEMENT_FAILURE_BEHAVIOURS = ['abort-transaction', 'keep-transaction'] as const;

/** What a failed statement does to its transaction (see the file's comment). */
export type StatementFailureBehaviour = (typeof STATEMENT_FAILURE_BEHAVIOURS)[number];

/** The behaviour local mode runs with unless told otherwise: the one AWS's troubleshooting page describes. */
export const DEFAULT_STATEMENT_FAILURE_BEHAVIOUR: StatementFailureBehaviour = 'abort-transaction';

/** The most aborted transactions whose ids are remembered, to answer why they are gone. */
const ABORTED_REMEMBERED = 1_000;

/** Options of {@link LocalDataApiService}. */
export interface LocalDataApiServiceOptions {
  /** What a failed statement does to its transaction. @default DEFAULT_STATEMENT_FAILURE_BEHAVIOUR ('abort-transaction') */
  readonly statementFailures?: StatementFailureBehaviour;
  /** A transaction with no call for this long is rolled back. @default DATA_API_LIMITS.transactionIdleSeconds * 1000 */
  readonly transactionIdleMs?: number;
  /** A statement running longer is cancelled. @default DATA_API_LIMITS.statementTimeoutSeconds * 1000 */
  readonly statementTimeoutMs?: number;
  /**
   * A fault of local mode, not a behaviour of the service: this share of the statements run in a
   * transaction fail as a concurrent transaction would make them fail under load, with a real
   * serialization failure (SQLSTATE 40001) raised inside that transaction, which PostgreSQL then
   * holds aborted until it is rolled back. Drawn from `random`. @default - none
   */
  readonly serializationFailures?: { readonly random: Random; readonly rate: number };
}

/** How an injected serialization failure is raised: in the transaction itself, with PostgreSQL's own SQLSTATE. */
const RAISE_SERIALIZATION_FAILURE = "DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = '40001', MESSAGE = 'could not serialize access due to concurrent update (injected by local mode)'; END $$";

interface OpenTransaction {
  readonly connection: DataApiConnection;
  readonly resourceArn: string;
  timer: NodeJS.Timeout;
  busy: boolean;
}

/** The fields of a Data API request that local mode reads. */
interface DataApiInput {
  readonly resourceArn?: string;
  readonly secretArn?: string;
  readonly database?: string;
  readonly transactionId?: string;
  readonly sql?: string;
  readonly parameters?: readonly WireParameter[];
  readonly parameterSets?: readonly (readonly WireParameter[])[];
  readonly includeResultMetadata?: boolean;
  readonly resultSetOptions?: ResultFormat;
}

interface WireParameter {
  readonly name?: string;
  readonly typeHint?: string;
  readonly value?: Readonly<Record<string, unknown>>;
}

/** The casts that stand for the Data API's type hints. */
const CASTS: Readonly<Record<string, string>> = { DECIMAL: '::numeric', TIMESTAMP: '::timestamp', DATE: '::date', TIME: '::time', UUID: '::uuid', JSON: '::json' };

export class LocalDataApiService {
  private readonly clusters = new Map<string, DataApiCluster>();
  private readonly transactions = new Map<string, OpenTransaction>();
  /** Transactions a failed statement aborted, oldest first: their later calls are told so. */
  private readonly aborted = new Set<string>();
  private readonly idleMs: number;
  private readonly statementTimeoutMs: number;
  private pausedCalls = 0;
  private injected = 0;

  public constructor(private readonly options: LocalDataApiServiceOptions = {}) {
    this.idleMs = options.transactionIdleMs ?? DATA_API_LIMITS.transactionIdleSeconds * 1000;
    this.statementTimeoutMs = options.statementTimeoutMs ?? DATA_API_LIMITS.statementTimeoutSeconds * 1000;
  }

  /** Serves `cluster` from now on, beside those served already. */
  public serve(cluster: DataApiCluster): void {
    this.clusters.set(cluster.resourceArn, cluster);
  }

  /**
   * A test hook, not a behaviour of the service: the next `calls` requests that name a served
   * cluster and secret are answered `DatabaseResumingException`, as an Aurora Serverless v2
   * cluster paused at zero capacity answers while it resumes.
   */
  public simulatePause(calls: number): void {
    this.pausedCalls = calls;
  }

  /** The serialization failures injected so far (`serializationFailures`). */
  public serializationFailuresInjected(): number {
    return this.injected;
  }

  /** Transactions begun and not yet ended or expired. */
  public openTransactions(): number {
    return this.transactions.size;
  }

  /** Rolls back every open transaction and closes its connection. */
  public async close(): Promise<void> {
    await Promise.all([...this.transactions.keys()].map((id) => this.end(id, 'ROLLBACK').catch(() => undefined)));
  }

  /** Answers one request the layer admitted; an engine's `forward`, so a gateway can stand in front of it. */
  public readonly answer = async (req: IncomingMessage, body: Buffer): Promise<EngineAnswer> => {
    const target = dataApiTargetOf(req.method, new URL(req.url ?? '/', 'http://gateway').pathname);
    if (!target) return dataApiError('BadRequestException', `local mode's Data API does not serve ${req.method ?? ''} ${req.url ?? ''}`);
    if (body.length > DATA_API_LIMITS.maxRequestBytes) return dataApiError('BadRequestException', `Request size ${body.length} bytes exceeds the Data API's limit of ${DATA_API_LIMITS.maxRequestBytes} bytes.`);
    const input = parseInput(body);
    const cluster = this.clusters.get(input.resourceArn ?? '');
    if (!cluster) return dataApiError('NotFoundException', `Unknown resourceArn: ${input.resourceArn ?? '(none)'} is no cluster local mode serves.`);
    if (!cluster.secretArns.includes(input.secretArn ?? '')) return dataApiError('SecretsErrorException', `The secret provided wasn't found: ${input.secretArn ?? '(none)'} is no secret of ${cluster.resourceArn}.`);
    if (this.pausedCalls > 0) {
      this.pausedCalls -= 1;
      return dataApiError('DatabaseResumingException', `The Aurora DB instance ${cluster.resourceArn} is resuming after being auto-paused. Please wait a few seconds and try again.`);
    }
    return this.run(target.operation, input, cluster);
  };

  private async run(operation: string, input: DataApiInput, cluster: DataApiCluster): Promise<EngineAnswer> {
    switch (operation) {
      case 'BeginTransaction':
        return this.begin(cluster, input.database);
      case 'CommitTransaction':
        return this.finish(input, 'COMMIT');
      case 'RollbackTransaction':
        return this.finish(input, 'ROLLBACK');
      default:
        return this.statement(operation, input, cluster);
    }
  }

  private async begin(cluster: DataApiCluster, database: string | undefined): Promise<EngineAnswer> {
    const connection = await this.open(cluster, database);
    try {
      await connection.queryText('BEGIN');
    } catch (error) {
      await connection.close();
      return databaseError(error);
    }
    const transactionId = randomBytes(48).toString('base64');
    this.transactions.set(transactionId, { connection, resourceArn: cluster.resourceArn, busy: false, timer: this.expiry(transactionId) });
    return dataApiAnswer({ transactionId });
  }

  private async finish(input: DataApiInput, verb: 'COMMIT' | 'ROLLBACK'): Promise<EngineAnswer> {
    const found = this.find(input);
    if ('status' in found) return found;
    try {
      const ended = await this.end(input.transactionId as string, verb);
      if (verb === 'COMMIT' && ended.command === 'ROLLBACK') return transactionNotFound(input.transactionId as string, 'Transaction has been aborted due to an error from a previous call.');
      return dataApiAnswer({ transactionStatus: verb === 'COMMIT' ? 'Transaction Committed' : 'Rollback Complete' });
    } catch (error) {
      return databaseError(error);
    }
  }

  /** ExecuteStatement, or BatchExecuteStatement (the statement once per parameter set). */
  private async statement(operation: string, input: DataApiInput, cluster: DataApiCluster): Promise<EngineAnswer> {
    const batch = operation === 'BatchExecuteStatement';
    const sets = batch ? (input.parameterSets ?? []) : [input.parameters ?? []];
    if (input.transactionId === undefined) return this.autocommit(cluster, input, sets, batch);
    const found = this.find(input);
    if ('status' in found) return found;
    if (found.busy) return dataApiError('DatabaseErrorException', 'Transaction is still running a query.');
    found.busy = true;
    let answer: EngineAnswer | undefined;
    try {
      answer = this.drawSerializationFailure() ? await this.raiseSerializationFailure(found.connection) : await this.runSets(found.connection, input, sets, batch);
      return answer;
    } finally {
      found.busy = false;
      if (answer !== undefined && answer.status !== 200 && this.abortsOnFailure()) await this.abort(input.transactionId);
      else this.touch(input.transactionId);
    }
  }

  private abortsOnFailure(): boolean {
    return (this.options.statementFailures ?? DEFAULT_STATEMENT_FAILURE_BEHAVIOUR) === 'abort-transaction';
  }

  /** Rolls back a transaction whose statement failed, and remembers why it is gone. */
  private async abort(transactionId: string): Promise<void> {
    this.aborted.add(transactionId);
    if (this.aborted.size > ABORTED_REMEMBERED) this.aborted.delete(this.aborted.values().next().value as string);
    await this.end(transactionId, 'ROLLBACK').catch(() => undefined);
  }

  private drawSerializationFailure(): boolean {
    const faults = this.options.serializationFailures;
    return faults !== undefined && faults.rate > 0 && faults.random() < faults.rate;
  }

  private async raiseSerializationFailure(connection: DataApiConnection): Promise<EngineAnswer> {
    this.injected += 1;
    try {
      await connection.queryText(RAISE_SERIALIZATION_FAILURE);
      return dataApiError('DatabaseErrorException', 'the injected serialization failure did not fail');
    } catch (error) {
      return databaseError(error);
    }
  }

  private async autocommit(cluster: DataApiCluster, input: DataApiInput, sets: readonly (readonly WireParameter[])[], batch: boolean): Promise<EngineAnswer> {
    const connection = await this.open(cluster, input.database);
    try {
      if (!batch) return await this.runSets(connection, input, sets, batch);
      // A batch outside a transaction commits as one.
      await connection.queryText('BEGIN');
      const answer = await this.runSets(connection, input, sets, batch);
      await connection.queryText(answer.status === 200 ? 'COMMIT' : 'ROLLBACK');
      return answer;
    } finally {
      await connection.close();
    }
  }

  private async runSets(connection: DataApiConnection, input: DataApiInput, sets: readonly (readonly WireParameter[])[], batch: boolean): Promise<EngineAnswer> {
    let last: PostgresTextResult | undefined;
    for (const parameters of sets) {
      let statement: { text: string; values: unknown[] };
      try {
        statement = positionalText(input.sql ?? '', parameterLookup(parameters));
      } catch (error) {
        return dataApiError('BadRequestException', error instanceof Error ? error.message : String(error));
      }
      try {
        last = await connection.queryText(statement.text, statement.values);
      } catch (error) {
        return databaseError(error);
      }
    }
    if (batch) return dataApiAnswer({ updateResults: sets.map(() => ({ generatedFields: [] })) });
    return last === undefined ? dataApiAnswer({ numberOfRecordsUpdated: 0 }) : executeAnswer(last, { includeResultMetadata: input.includeResultMetadata, ...input.resultSetOptions });
  }

  private async open(cluster: DataApiCluster, database: string | undefined): Promise<DataApiConnection> {
    const connection = await cluster.connect(database);
    await connection.queryText(`SET statement_timeout = ${Math.max(1, Math.round(this.statementTimeoutMs))}`);
    return connection;
  }

  private find(input: DataApiInput): OpenTransaction | EngineAnswer {
    const transactionId = input.transactionId ?? '';
    const open = this.transactions.get(transactionId);
    if (this.aborted.has(transactionId)) return transactionNotFound(transactionId, 'Transaction has been aborted due to an error from a previous call.');
    if (!open || open.resourceArn !== input.resourceArn) return transactionNotFound(transactionId, 'Transaction may be expired, or it was ended by a CommitTransaction or RollbackTransaction call.');
    return open;
  }

  private async end(transactionId: string, verb: 'COMMIT' | 'ROLLBACK'): Promise<PostgresTextResult> {
    const open = this.transactions.get(transactionId) as OpenTransaction;
    this.transactions.delete(transactionId);
    clearTimeout(open.timer);
    try {
      return await open.connection.queryText(verb);
    } finally {
      await open.connection.close();
    }
  }

  private touch(transactionId: string): void {
    const open = this.transactions.get(transactionId);
    if (!open) return;
    clearTimeout(open.timer);
    open.timer = this.expiry(transactionId);
  }

  /** The idle timer of a transaction: when it fires, the transaction is rolled back and forgotten. */
  private expiry(transactionId: string): NodeJS.Timeout {
    const timer = setTimeout(() => void this.end(transactionId, 'ROLLBACK').catch(() => undefined), this.idleMs);
    timer.unref();
    return timer;
  }
}

function parseInput(body: Buffer): DataApiInput {
  try {
    const value = JSON.parse(body.toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null ? (value as DataApiInput) : {};
  } catch {
    return {};
  }
}

/** A parameter's value as node-postgres takes it, and its type hint's cast. */
function parameterLookup(parameters: readonly WireParameter[]): (name: string) => PositionalValue | undefined {
  const byName = new Map(parameters.map((parameter) => [parameter.name ?? '', parameter]));
  return (name) => {
    const parameter = byName.get(name);
    if (parameter === undefined) return undefined;
    const field = parameter.value ?? {};
    if ('arrayValue' in field) throw new Error(`parameter ${name}: local mode's Data API does not take array parameters`);
    const value = field.isNull === true ? null : 'blobValue' in field ? Buffer.from(String(field.blobValue), 'base64') : (field.stringValue ?? field.longValue ?? field.doubleValue ?? field.booleanValue ?? null);
    return { value, cast: parameter.typeHint === undefined ? undefined : CASTS[parameter.typeHint] };
  };
}

/** PostgreSQL's error as the Data API answers it: a statement timeout is its own error; any other carries its SQLSTATE. */
function databaseError(error: unknown): EngineAnswer {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code === '57014' && /statement timeout/.test(String(message))) return dataApiError('StatementTimeoutException', 'The execution of the SQL statement timed out.');
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return dataApiError('DatabaseErrorException', statementErrorMessage(String(message), code));
  // No SQLSTATE: the connection failed, which the Data API reports as the writer being unavailable to it.
  return dataApiError('DatabaseErrorException', `Communications link failure: ${String(message)}`);
}

function transactionNotFound(transactionId: string, cause: string): EngineAnswer {
  return dataApiError('TransactionNotFoundException', `Transaction ${transactionId} is not found: ${cause}`);
}
