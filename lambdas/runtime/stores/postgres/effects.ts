import { InvalidEffectError } from '../../core/errors';
import { joinSql, sql, sqlIdentifier, type SqlStatement, type SqlValue } from './sql';

/** Adds `amount` to `column` of the row with `key` in `table`, creating the row when it is missing. */
export interface SqlIncrement {
  readonly kind: 'increment';
  readonly table: string;
  /** The row's key: the columns of a unique constraint (or primary key) of the table, and their values. */
  readonly key: Readonly<Record<string, SqlValue>>;
  readonly column: string;
  /** A whole number (a bigint beyond 2^53): sums stay exact. */
  readonly amount: number | bigint;
}

/** One effect of an event: a statement, or an increment that the strategy sums with the batch's others on the same row. */
export type SqlEffect = SqlStatement | SqlIncrement;

/** What a handler of {@link sqlStrategy} returns: the effects to commit with the event's dedup row. */
export type SqlEffects = readonly SqlEffect[];

/**
 * An increment of a counter column: the strategy sums a batch's increments of one row into one
 * statement, an `INSERT ... ON CONFLICT (key) DO UPDATE SET column = column + amount` (so the table
 * needs a unique constraint on the key columns, and defaults for its other columns).
 *
 * @example
 * ```ts
 * import { sqlIncrement } from 'effectively-once/runtime';
 * const effect = sqlIncrement('balances', { account: 'acc-1' }, 'amount', 25);
 * ```
 * @throws InvalidEffectError when a name is not a plain identifier, or the amount is not a whole number
 */
export function sqlIncrement(table: string, key: Readonly<Record<string, SqlValue>>, column: string, amount: number | bigint): SqlIncrement {
  for (const name of [table, column, ...Object.keys(key)]) sqlIdentifier(name);
  if (Object.keys(key).length === 0) throw new InvalidEffectError(`an increment of ${table}.${column} needs at least one key column`);
  if (typeof amount === 'number' && !Number.isSafeInteger(amount)) {
    throw new InvalidEffectError(`an increment of ${table}.${column} is a whole number within 2^53, or a bigint (given ${amount})`);
  }
  return { kind: 'increment', table, key, column, amount };
}

/** True for an {@link SqlIncrement}, false for a statement. */
export function isIncrement(effect: SqlEffect): effect is SqlIncrement {
  return (effect as SqlIncrement).kind === 'increment';
}

/**
 * A versioned upsert: inserts `row`, or replaces the stored row with the same key only when the
 * stored version is older (`INSERT ... ON CONFLICT (key) DO UPDATE ... WHERE stored.version <
 * EXCLUDED.version`), so that an older event replayed late changes nothing.
 *
 * @param key - the columns of a unique constraint (or primary key) of the table, and their values
 * @param versionColumn - the column that orders versions; `row` must hold it
 * @param row - the other columns' values
 * @example
 * ```ts
 * import { upsertIfNewer } from 'effectively-once/runtime';
 * const effect = upsertIfNewer('orders', { order_id: 'o-1' }, 'version', { status: 'SHIPPED', version: 3 });
 * ```
 * @throws InvalidEffectError when a name is not a plain identifier, or `row` lacks the version
 */
export function upsertIfNewer(table: string, key: Readonly<Record<string, SqlValue>>, versionColumn: string, row: Readonly<Record<string, SqlValue>>): SqlStatement {
  if (row[versionColumn] === undefined || row[versionColumn] === null) {
    throw new InvalidEffectError(`an upsert into ${table} needs a value for its version column ${versionColumn}`);
  }
  const keyColumns = Object.keys(key);
  const others = Object.keys(row).filter((column) => !(column in key));
  const columns = [...keyColumns, ...others].map(sqlIdentifier);
  const values = joinSql([...keyColumns.map((column) => sql`${key[column] as SqlValue}`), ...others.map((column) => sql`${row[column] as SqlValue}`)], ', ');
  const updates = joinSql(others.map((column) => sql`${sqlIdentifier(column)} = EXCLUDED.${sqlIdentifier(column)}`), ', ');
  const version = sqlIdentifier(versionColumn);
  return sql`INSERT INTO ${sqlIdentifier(table)} AS stored (${joinSql(columns, ', ')}) VALUES (${values}) ON CONFLICT (${joinSql(keyColumns.map(sqlIdentifier), ', ')}) DO UPDATE SET ${updates} WHERE stored.${version} < EXCLUDED.${version}`;
}

/**
 * The batch's increments, summed per row: one statement per (table, key), in a fixed order (by
 * table, then key), so that two batches that touch the same rows lock them in the same order and
 * cannot deadlock. A row whose increments sum to zero in every column is left alone.
 */
export function aggregateIncrements(increments: readonly SqlIncrement[]): SqlStatement[] {
  const rows = new Map<string, { table: string; key: Readonly<Record<string, SqlValue>>; sums: Map<string, bigint> }>();
  for (const each of increments) {
    const id = JSON.stringify([each.table, Object.entries(each.key).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([column, value]) => [column, keyText(value)])]);
    const row = rows.get(id) ?? { table: each.table, key: each.key, sums: new Map<string, bigint>() };
    row.sums.set(each.column, (row.sums.get(each.column) ?? 0n) + BigInt(each.amount));
    rows.set(id, row);
  }
  return [...rows.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .filter(([, row]) => [...row.sums.values()].some((sum) => sum !== 0n))
    .map(([, row]) => incrementStatement(row.table, row.key, row.sums));
}

function incrementStatement(table: string, key: Readonly<Record<string, SqlValue>>, sums: ReadonlyMap<string, bigint>): SqlStatement {
  const keyColumns = Object.keys(key);
  const counters = [...sums.keys()];
  const columns = [...keyColumns, ...counters].map(sqlIdentifier);
  const values = joinSql([...keyColumns.map((column) => sql`${key[column] as SqlValue}`), ...counters.map((column) => sql`${amountValue(sums.get(column) as bigint)}`)], ', ');
  const updates = joinSql(counters.map((column) => sql`${sqlIdentifier(column)} = stored.${sqlIdentifier(column)} + EXCLUDED.${sqlIdentifier(column)}`), ', ');
  return sql`INSERT INTO ${sqlIdentifier(table)} AS stored (${joinSql(columns, ', ')}) VALUES (${values}) ON CONFLICT (${joinSql(keyColumns.map(sqlIdentifier), ', ')}) DO UPDATE SET ${updates}`;
}

/** A sum as a long when it fits a JavaScript number exactly, else as a DECIMAL string. */
function amountValue(sum: bigint): number | bigint {
  return sum >= BigInt(Number.MIN_SAFE_INTEGER) && sum <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(sum) : sum;
}

function keyText(value: SqlValue): string {
  if (value instanceof Date) return `date:${value.toISOString()}`;
  if (value instanceof Uint8Array) return `blob:${Buffer.from(value).toString('base64')}`;
  return `${typeof value}:${String(value)}`;
}
