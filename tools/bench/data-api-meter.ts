/**
 * Counts what the SQL strategy asks of the RDS Data API: every call (each one a round trip: the
 * session's client makes one attempt) by operation, and the rows each `INSERT` wrote, as the Data
 * API answered them (`numberOfRecordsUpdated`: PostgreSQL's own count of the rows an `INSERT ... ON
 * CONFLICT` inserted or updated), by the table it writes. A `BatchExecuteStatement` answers no
 * count: its rows are one per parameter set, what each set of the strategy's batches (an `INSERT`,
 * an increment's upsert) writes when the call succeeds. Recorded by SDK middleware, like the
 * DynamoDB meter (`metering.ts`).
 */
import type { RDSDataClient } from '@aws-sdk/client-rds-data';

/** The Data API's calls that a transaction is made of, in the report's order. */
export const DATA_API_OPERATIONS = ['BeginTransaction', 'ExecuteStatement', 'BatchExecuteStatement', 'CommitTransaction', 'RollbackTransaction'] as const;
export type DataApiOperation = (typeof DATA_API_OPERATIONS)[number];

/** What the meter counted since its last `reset`. */
export interface DataApiCounts {
  /** Calls by operation, failed ones included. */
  readonly calls: Readonly<Record<DataApiOperation, number>>;
  /** Rows written by table, summed over the `INSERT`s that succeeded. */
  readonly rowsWritten: Readonly<Record<string, number>>;
}

export interface DataApiMeter {
  counts(): DataApiCounts;
  reset(): void;
}

/** Records every call `client` sends from now on. */
export function meterDataApi(client: RDSDataClient): DataApiMeter {
  let calls = noCalls();
  let rowsWritten: Record<string, number> = {};
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = operationOf(context.commandName);
      if (operation !== undefined) calls[operation] += 1;
      const result = await next(args);
      const table = insertedTable((args.input as { sql?: unknown }).sql);
      const rows = operation === 'BatchExecuteStatement' ? ((args.input as { parameterSets?: unknown[] }).parameterSets?.length ?? 0) : ((result.output as { numberOfRecordsUpdated?: number }).numberOfRecordsUpdated ?? 0);
      if (table !== undefined && rows > 0) rowsWritten[table] = (rowsWritten[table] ?? 0) + rows;
      return result;
    },
    // Inside the retry middleware, so that each attempt would be counted (the session's client makes one).
    { step: 'finalizeRequest', priority: 'low', name: 'benchDataApiMeter' },
  );
  return {
    counts: () => ({ calls: { ...calls }, rowsWritten: { ...rowsWritten } }),
    reset: () => {
      calls = noCalls();
      rowsWritten = {};
    },
  };
}

function noCalls(): Record<DataApiOperation, number> {
  return { BeginTransaction: 0, ExecuteStatement: 0, BatchExecuteStatement: 0, CommitTransaction: 0, RollbackTransaction: 0 };
}

/** `ExecuteStatementCommand` -> `ExecuteStatement`; undefined for a command the report does not name. */
export function operationOf(commandName: string | undefined): DataApiOperation | undefined {
  const name = commandName?.replace(/Command$/, '');
  return (DATA_API_OPERATIONS as readonly string[]).includes(name ?? '') ? (name as DataApiOperation) : undefined;
}

/** The table an `INSERT INTO` statement writes, unquoted; undefined for any other statement. */
export function insertedTable(sql: unknown): string | undefined {
  if (typeof sql !== 'string') return undefined;
  const match = /^\s*INSERT\s+INTO\s+("(?:[^"]|"")+"|[A-Za-z_][\w.]*)/i.exec(sql);
  return match?.[1]?.replace(/^"|"$/g, '').replace(/""/g, '"');
}
