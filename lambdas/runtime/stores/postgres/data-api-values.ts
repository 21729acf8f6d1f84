/**
 * The `sql` tag's statements as the Data API's `ExecuteStatement` input, and its result as rows.
 *
 * Results are read from `records` and `columnMetadata`, not `formatRecordsAs: 'JSON'`: in the
 * JSON format a BIGINT is a JSON number, which `JSON.parse` rounds beyond 2^53, and a bytea and a
 * string look alike ("Processing Amazon RDS Data API query results in JSON format",
 * https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/data-api-json.html); the records
 * keep each value's type, and with `longReturnType` and `decimalReturnType` set to STRING
 * (ExecuteStatement's `resultSetOptions`) a BIGINT or a NUMERIC comes back as its exact text.
 * The rows then read as node-postgres's do: int2 and int4 as numbers, int8 and numeric as
 * decimal strings, booleans, strings (timestamps too, in the Data API's text), blobs as bytes.
 */
import type { ArrayValue, BatchExecuteStatementCommandInput, ColumnMetadata, ExecuteStatementCommandInput, ExecuteStatementCommandOutput, Field, SqlParameter } from '@aws-sdk/client-rds-data';
import type { SqlResult } from './session';
import type { SqlStatement } from './sql';

/** Column types whose values fit a JavaScript number exactly, read back as numbers. */
const NUMBER_TYPES: ReadonlySet<string> = new Set(['int2', 'int4', 'serial', 'smallserial', 'float4', 'float8', 'oid']);

/** Where a statement runs: the cluster, its secret, the database, and the transaction (none: autocommit). */
export interface DataApiTarget {
  readonly resourceArn: string;
  readonly secretArn: string;
  readonly database?: string;
  readonly transactionId?: string;
}

/** The `ExecuteStatement` input of a statement: its `:p0` parameters are the Data API's own shape already. */
export function executeStatementInput(statement: SqlStatement, target: DataApiTarget): ExecuteStatementCommandInput {
  return {
    ...target,
    sql: statement.sql,
    parameters: parametersOf(statement),
    includeResultMetadata: true,
    resultSetOptions: { longReturnType: 'STRING', decimalReturnType: 'STRING' },
  };
}

/** A statement's parameters in the Data API's form: a name, a typed value, and the type hint when it has one. */
export function parametersOf(statement: SqlStatement): SqlParameter[] {
  return statement.parameters.map((parameter) => ({ name: parameter.name, value: parameter.value, ...(parameter.typeHint !== undefined && { typeHint: parameter.typeHint }) }));
}

/**
 * One `BatchExecuteStatement` for statements of one shape (`statementRuns`): their common text,
 * and each one's parameters as a set, in order.
 */
export function batchExecuteStatementInput(statements: readonly SqlStatement[], target: DataApiTarget): BatchExecuteStatementCommandInput {
  return { ...target, sql: statements[0]?.sql ?? '', parameterSets: statements.map(parametersOf) };
}

/** An `ExecuteStatement` answer as the session's result: rows keyed by column label, and the rows changed. */
export function resultOf(output: Pick<ExecuteStatementCommandOutput, 'records' | 'columnMetadata' | 'numberOfRecordsUpdated'>): SqlResult {
  const columns = output.columnMetadata ?? [];
  const rows = (output.records ?? []).map((record) => Object.fromEntries(record.map((field, index) => [columnName(columns[index], index), valueOf(field, columns[index]?.typeName)])));
  return { rows, updatedCount: output.numberOfRecordsUpdated ?? 0 };
}

function columnName(column: ColumnMetadata | undefined, index: number): string {
  return column?.label ?? column?.name ?? `column${index}`;
}

/** One field's value: exact text for longs and decimals, a number only where the column's type fits one. */
export function valueOf(field: Field, typeName?: string): unknown {
  if (field.isNull === true) return null;
  if (field.stringValue !== undefined) return typeName !== undefined && NUMBER_TYPES.has(typeName) ? Number(field.stringValue) : field.stringValue;
  if (field.longValue !== undefined) return field.longValue;
  if (field.doubleValue !== undefined) return field.doubleValue;
  if (field.booleanValue !== undefined) return field.booleanValue;
  if (field.blobValue !== undefined) return field.blobValue;
  if (field.arrayValue !== undefined) return arrayOf(field.arrayValue);
  return null;
}

function arrayOf(array: ArrayValue): unknown[] {
  return array.stringValues ?? array.longValues ?? array.doubleValues ?? array.booleanValues ?? (array.arrayValues ?? []).map((item) => (item === null ? null : arrayOf(item)));
}
