/**
 * Consecutive statements of one shape, gathered so that a session can send each run in one round
 * trip (the RDS Data API's `BatchExecuteStatement`: one SQL text, a parameter set per statement).
 * Only neighbours are gathered, so the statements still run in the order given: a handler's
 * statements may depend on the ones before them, and reordering could change what they do.
 */
import { DATA_API_LIMITS } from '../../../../aws/limits';
import type { SqlStatement } from './sql';

/** A run's request stays under this share of the Data API's 4 MiB request limit, JSON overhead and headers beside it. */
export const MAX_RUN_BYTES = DATA_API_LIMITS.maxRequestBytes / 4;

/** At most this many statements per run, however small. */
export const MAX_RUN_STATEMENTS = 1_000;

/**
 * The same SQL text, and parameters of the same names, type hints and kinds of value (a long, a
 * string, ...) in the same order: the statement the database prepares once for every set.
 */
export function shapeOf(statement: SqlStatement): string {
  const parameters = statement.parameters.map((parameter) => `${parameter.name}:${parameter.typeHint ?? ''}:${Object.keys(parameter.value).join('|')}`);
  return `${statement.sql}\u0000${parameters.join(',')}`;
}

/** The statements in order, neighbours of one shape together, each run within {@link MAX_RUN_STATEMENTS} and {@link MAX_RUN_BYTES}. */
export function statementRuns(statements: readonly SqlStatement[]): SqlStatement[][] {
  const runs: SqlStatement[][] = [];
  let current: SqlStatement[] = [];
  let shape = '';
  let bytes = 0;
  for (const statement of statements) {
    const size = sizeOf(statement);
    const next = shapeOf(statement);
    if (current.length > 0 && (next !== shape || current.length >= MAX_RUN_STATEMENTS || bytes + size > MAX_RUN_BYTES)) {
      runs.push(current);
      current = [];
      bytes = 0;
    }
    current.push(statement);
    shape = next;
    bytes += size;
  }
  if (current.length > 0) runs.push(current);
  return runs;
}

/** About what a statement adds to a request: its parameters as JSON, and its text once per run. */
function sizeOf(statement: SqlStatement): number {
  return JSON.stringify(statement.parameters).length + statement.sql.length;
}
