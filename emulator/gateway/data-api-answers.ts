/**
 * The RDS Data API's answers (API Reference: ExecuteStatement, BatchExecuteStatement,
 * BeginTransaction, CommitTransaction, RollbackTransaction): 200 with a JSON body; an error is
 * REST-JSON, its name in `x-amzn-errortype` and `{ "message": ... }` in the body, with the status
 * of its shape in the Data API's model. A statement's error carries PostgreSQL's own message and
 * its SQLSTATE as the Data API writes them: `ERROR: <message>; SQLState: <code>`.
 *
 * A result is `records` (one `Field` per column: `longValue`, `doubleValue`, `stringValue`,
 * `booleanValue`, `blobValue` in base64, or `isNull`), with `columnMetadata` when asked, in the
 * types the Data API maps PostgreSQL's to; `resultSetOptions` turn longs and decimals into strings.
 * Arrays come back as their text (the Data API's `arrayValue` is not emulated).
 */
import { randomUUID } from 'node:crypto';
import { DATA_API_LIMITS } from '../../aws/limits';
import type { PostgresTextResult } from '../engines/postgres-session';
import type { EngineAnswer } from './forward';

/** The Data API's errors that local mode answers with, and their HTTP statuses (its model). */
export const DATA_API_ERROR_STATUS = {
  BadRequestException: 400,
  DatabaseErrorException: 400,
  DatabaseResumingException: 400,
  NotFoundException: 404,
  SecretsErrorException: 400,
  StatementTimeoutException: 400,
  TransactionNotFoundException: 404,
  UnsupportedResultException: 400,
} as const;

/** An error the local Data API answers with. */
export type DataApiErrorName = keyof typeof DATA_API_ERROR_STATUS;

/** An error answer. */
export function dataApiError(name: DataApiErrorName, message: string): EngineAnswer {
  const body = Buffer.from(JSON.stringify({ message }));
  return { status: DATA_API_ERROR_STATUS[name], headers: { ...headersFor(body), 'x-amzn-errortype': name }, body };
}

/** A 200 with `value` as its JSON body. */
export function dataApiAnswer(value: unknown): EngineAnswer {
  const body = Buffer.from(JSON.stringify(value));
  return { status: 200, headers: headersFor(body), body };
}

/** PostgreSQL's error as the Data API words it. */
export function statementErrorMessage(message: string, sqlState: string): string {
  return `ERROR: ${message}; SQLState: ${sqlState}`;
}

/** How the caller asked for the result (ExecuteStatement's `includeResultMetadata` and `resultSetOptions`). */
export interface ResultFormat {
  readonly includeResultMetadata?: boolean;
  readonly longReturnType?: string;
  readonly decimalReturnType?: string;
}

/** A type the Data API maps a PostgreSQL type to: its name in `columnMetadata`, its JDBC type, and the field it fills. */
interface ColumnType {
  readonly typeName: string;
  readonly jdbc: number;
  readonly field: 'long' | 'double' | 'decimal' | 'boolean' | 'blob' | 'string';
}

/** PostgreSQL's built-in types by OID (`pg_type`); any other is read as text. */
const TYPES: ReadonlyMap<number, ColumnType> = new Map([
  [16, { typeName: 'bool', jdbc: -7, field: 'boolean' }],
  [17, { typeName: 'bytea', jdbc: -2, field: 'blob' }],
  [20, { typeName: 'int8', jdbc: -5, field: 'long' }],
  [21, { typeName: 'int2', jdbc: 5, field: 'long' }],
  [23, { typeName: 'int4', jdbc: 4, field: 'long' }],
  [26, { typeName: 'oid', jdbc: -5, field: 'long' }],
  [700, { typeName: 'float4', jdbc: 7, field: 'double' }],
  [701, { typeName: 'float8', jdbc: 8, field: 'double' }],
  [1700, { typeName: 'numeric', jdbc: 2, field: 'decimal' }],
  [25, { typeName: 'text', jdbc: 12, field: 'string' }],
  [1043, { typeName: 'varchar', jdbc: 12, field: 'string' }],
  [1042, { typeName: 'bpchar', jdbc: 1, field: 'string' }],
  [1082, { typeName: 'date', jdbc: 91, field: 'string' }],
  [1114, { typeName: 'timestamp', jdbc: 93, field: 'string' }],
  [1184, { typeName: 'timestamptz', jdbc: 93, field: 'string' }],
  [2950, { typeName: 'uuid', jdbc: 1111, field: 'string' }],
  [114, { typeName: 'json', jdbc: 1111, field: 'string' }],
  [3802, { typeName: 'jsonb', jdbc: 1111, field: 'string' }],
]);
const OTHER: ColumnType = { typeName: 'unknown', jdbc: 1111, field: 'string' };

/**
 * ExecuteStatement's answer to a statement's result, or the error the Data API answers when the
 * result is over its limits: a row over 64 KB, a response over 1 MiB.
 */
export function executeAnswer(result: PostgresTextResult, format: ResultFormat): EngineAnswer {
  const types = result.columns.map((column) => TYPES.get(column.typeId) ?? OTHER);
  const records = result.rows.map((row) => row.map((text, index) => fieldOf(text, types[index] ?? OTHER, format)));
  if (records.some((record) => Buffer.byteLength(JSON.stringify(record)) > DATA_API_LIMITS.maxRowBytes)) return dataApiError('UnsupportedResultException', 'Packet for query is too large.');
  const writes = result.command === 'INSERT' || result.command === 'UPDATE' || result.command === 'DELETE';
  const answer = dataApiAnswer({
    ...(result.columns.length > 0 && { records }),
    ...(format.includeResultMetadata === true && { columnMetadata: result.columns.map((column, index) => columnMetadata(column.name, types[index] ?? OTHER)) }),
    numberOfRecordsUpdated: writes ? result.rowCount : 0,
    generatedFields: [],
  });
  return answer.body.length > DATA_API_LIMITS.maxResponseBytes ? dataApiError('UnsupportedResultException', `Database response exceeded size limit: the response is ${answer.body.length} bytes, more than the Data API's ${DATA_API_LIMITS.maxResponseBytes}.`) : answer;
}

function columnMetadata(name: string, type: ColumnType): Record<string, unknown> {
  return { name, label: name, typeName: type.typeName, type: type.jdbc, schemaName: '', tableName: '', isAutoIncrement: false, isSigned: type.field === 'long' || type.field === 'double' || type.field === 'decimal', isCurrency: false, isCaseSensitive: type.field === 'string', nullable: 2, precision: 0, scale: 0, arrayBaseColumnType: 0 };
}

/** One value as the Data API's `Field`. */
function fieldOf(text: string | null, type: ColumnType, format: ResultFormat): Record<string, unknown> {
  if (text === null) return { isNull: true };
  switch (type.field) {
    case 'boolean':
      return { booleanValue: text === 't' };
    case 'blob':
      return { blobValue: Buffer.from(text.replace(/^\\x/, ''), 'hex').toString('base64') };
    case 'long':
      return format.longReturnType === 'STRING' ? { stringValue: text } : { longValue: Number(text) };
    case 'double':
      return { doubleValue: Number(text) };
    case 'decimal':
      return format.decimalReturnType === 'DOUBLE_OR_LONG' ? (/^-?\d+$/.test(text) ? { longValue: Number(text) } : { doubleValue: Number(text) }) : { stringValue: text };
    default:
      return { stringValue: text };
  }
}

function headersFor(body: Buffer): Record<string, string> {
  return { 'content-type': 'application/json', 'content-length': String(body.length), 'x-amzn-requestid': randomUUID() };
}
