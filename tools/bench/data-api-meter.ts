/**
 * Counts what the SQL strategy asks of the RDS Data API: every call (each one a round trip: the
 * session's client makes one attempt) by operation, and the rows each `INSERT` wrote, as the Data
 * API answered them (`numberOfRecordsUpdated`: PostgreSQL's own count of the rows an `INSERT ... ON
 * CONFLICT` inserted or updated), by the table it writes. Two writes answer no count of their own:
 * a `BatchExecuteStatement`, whose rows are one per parameter set, and an increment
 * (`sqlIncrement`'s `WITH updated AS (UPDATE ...) INSERT ...`), whose count is its `INSERT`'s alone
 * (0 when the row was there and the `UPDATE` wrote it), so it is counted as the one row that each
 * increment that succeeds writes (its key is the table's unique key). Recorded by SDK middleware,
 * like the DynamoDB meter (`metering.ts`).
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
      const written = writtenTable((args.input as { sql?: unknown }).sql);
      const rows = rowsWrittenBy(operation, written, args.input as { parameterSets?: unknown[] }, result.output as { numberOfRecordsUpdated?: number });
      if (written !== undefined && rows > 0) rowsWritten[written.table] = (rowsWritten[written.table] ?? 0) + rows;
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

/** The table a statement writes, unquoted, and whether it is an increment; undefined for a statement that is neither an `INSERT` nor an increment. */
export function writtenTable(sql: unknown): { readonly table: string; readonly increment: boolean } | undefined {
  if (typeof sql !== 'string') return undefined;
  const increment = new RegExp(`^\\s*WITH\\s+updated\\s+AS\\s+\\(\\s*UPDATE\\s+${TABLE_NAME}`, 'i').exec(sql);
  if (increment?.[1] !== undefined) return { table: unquoted(increment[1]), increment: true };
  const table = insertedTable(sql);
  return table === undefined ? undefined : { table, increment: false };
}

/** The table an `INSERT INTO` statement writes, unquoted; undefined for any other statement. */
export function insertedTable(sql: unknown): string | undefined {
  if (typeof sql !== 'string') return undefined;
  const match = new RegExp(`^\\s*INSERT\\s+INTO\\s+${TABLE_NAME}`, 'i').exec(sql);
  return match?.[1] === undefined ? undefined : unquoted(match[1]);
}

/** A table's name as a statement spells it: quoted (with `""` for a quote) or bare, schema-qualified or not. */
const TABLE_NAME = '("(?:[^"]|"")+"|[A-Za-z_][\\w.]*)';

function unquoted(name: string): string {
  return name.replace(/^"|"$/g, '').replace(/""/g, '"');
}

/** The rows one call wrote: a parameter set's each for a batch, one for an increment, else the count the Data API answered. */
function rowsWrittenBy(
  operation: DataApiOperation | undefined,
  written: { readonly increment: boolean } | undefined,
  input: { readonly parameterSets?: readonly unknown[] },
  output: { readonly numberOfRecordsUpdated?: number },
): number {
  if (operation === 'BatchExecuteStatement') return input.parameterSets?.length ?? 0;
  if (written?.increment === true) return operation === 'ExecuteStatement' ? 1 : 0;
  return output.numberOfRecordsUpdated ?? 0;
}
