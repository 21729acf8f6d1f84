/**
 * The effects a handler of the SQL strategy returns. A statement of the `sql` tag is opaque: the
 * runtime cannot tell what it reads or writes, so it runs in its event's place, in event order. The
 * structured effects say what they touch: an increment names its row and counter, a row write its
 * table. Only those may the strategy reorder or sum, and only where the database's catalog proves
 * that nothing can tell the difference (effect-plan.ts).
 */
import { InvalidEffectError } from '../../core/errors';
import { RuntimeBrand } from './runtime-brand';
import { fieldOf, joinSql, sql, sqlIdentifier, type SqlStatement, type SqlValue } from './sql';

const INCREMENTS = new RuntimeBrand<SqlIncrement>();
const ROW_WRITES = new RuntimeBrand<SqlRowWrite>();
let makeIncrement: (table: string, key: Readonly<Record<string, SqlValue>>, column: string, amount: bigint) => SqlIncrement;
let makeRowWrite: (table: string, statement: SqlStatement) => SqlRowWrite;

/** Adds `amount` to `column` of the row with `key` in `table`, creating the row when it is missing. Made by {@link sqlIncrement} only. */
export class SqlIncrement {
  public readonly kind = 'increment';

  static {
    makeIncrement = (table, key, column, amount) => INCREMENTS.mark(new SqlIncrement(table, Object.freeze({ ...key }), column, amount));
  }

  private constructor(
    public readonly table: string,
    /** The row's key: the columns of a unique constraint (or primary key) of the table, and their values. */
    public readonly key: Readonly<Record<string, SqlValue>>,
    public readonly column: string,
    /** A whole number, exact at any size. */
    public readonly amount: bigint,
  ) {}
}

/**
 * A statement that writes rows of one table and reads nothing but the rows it writes: an insert, a
 * versioned upsert. Made by {@link sqlInsert} and {@link upsertIfNewer} only, which build its text.
 */
export class SqlRowWrite {
  public readonly kind = 'row-write';

  static {
    makeRowWrite = (table, statement) => ROW_WRITES.mark(new SqlRowWrite(table, statement));
  }

  private constructor(
    /** The table, as given (checked by `sqlIdentifier`). */
    public readonly table: string,
    public readonly statement: SqlStatement,
  ) {}
}

/** One effect of an event: an opaque statement, a row write or an increment. */
export type SqlEffect = SqlStatement | SqlRowWrite | SqlIncrement;

/** What a handler of {@link sqlStrategy} returns: the effects to commit with the event's dedup row, in the order they apply. */
export type SqlEffects = readonly SqlEffect[];

/**
 * An increment of a counter column: the row's column plus `amount`, or a new row with `amount`
 * when there is none (see {@link incrementStatement}; the table needs a unique constraint on the
 * key columns, and defaults for its other columns). A CHECK on the column sees the value the row
 * would take. The strategy sums a batch's increments of one row into one statement where the
 * database's catalog proves that no constraint, trigger or index could see the difference.
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
  // Checked now, as the sql tag checks its values, so that a bad key fails the handler's event, not the batch's statement.
  for (const value of Object.values(key)) fieldOf(value);
  if (typeof amount === 'bigint') return makeIncrement(table, key, column, amount);
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount)) {
    throw new InvalidEffectError(`an increment of ${table}.${column} is a whole number within 2^53, or a bigint (given ${String(amount)})`);
  }
  return makeIncrement(table, key, column, BigInt(amount));
}

/**
 * An insert of one row: `INSERT INTO table (columns) VALUES (...)`, each value a parameter. Unlike
 * the same insert written with the `sql` tag, the strategy knows that it writes only `table`, so it
 * may send a batch's inserts into one table in one call ahead of other tables' effects, where the
 * catalog proves the tables independent (no trigger, rule or foreign key between them).
 *
 * @example
 * ```ts
 * import { sqlInsert } from 'effectively-once/runtime';
 * const effect = sqlInsert('payments', { payment_id: 'p-1', invoice_id: 'inv-1', amount_cents: 500 });
 * ```
 * @throws InvalidEffectError when a name is not a plain identifier, the row is empty or a value is one the Data API cannot carry
 */
export function sqlInsert(table: string, row: Readonly<Record<string, SqlValue>>): SqlRowWrite {
  const columns = Object.keys(row);
  if (columns.length === 0) throw new InvalidEffectError(`an insert into ${table} needs at least one column`);
  const values = joinSql(columns.map((column) => sql`${row[column] as SqlValue}`), ', ');
  return makeRowWrite(table, sql`INSERT INTO ${sqlIdentifier(table)} (${joinSql(columns.map(sqlIdentifier), ', ')}) VALUES (${values})`);
}

/**
 * A versioned upsert: inserts `row`, or replaces the stored row with the same key only when the
 * stored version is older (`INSERT ... ON CONFLICT (key) DO UPDATE ... WHERE stored.version <
 * EXCLUDED.version`), so that an older event replayed late changes nothing. A row write: it reads
 * only the row it writes.
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
export function upsertIfNewer(table: string, key: Readonly<Record<string, SqlValue>>, versionColumn: string, row: Readonly<Record<string, SqlValue>>): SqlRowWrite {
  if (row[versionColumn] === undefined || row[versionColumn] === null) {
    throw new InvalidEffectError(`an upsert into ${table} needs a value for its version column ${versionColumn}`);
  }
  const keyColumns = Object.keys(key);
  const others = Object.keys(row).filter((column) => !(column in key));
  const columns = [...keyColumns, ...others].map(sqlIdentifier);
  const values = joinSql([...keyColumns.map((column) => sql`${key[column] as SqlValue}`), ...others.map((column) => sql`${row[column] as SqlValue}`)], ', ');
  const updates = joinSql(others.map((column) => sql`${sqlIdentifier(column)} = EXCLUDED.${sqlIdentifier(column)}`), ', ');
  const version = sqlIdentifier(versionColumn);
  return makeRowWrite(table, sql`INSERT INTO ${sqlIdentifier(table)} AS stored (${joinSql(columns, ', ')}) VALUES (${values}) ON CONFLICT (${joinSql(keyColumns.map(sqlIdentifier), ', ')}) DO UPDATE SET ${updates} WHERE stored.${version} < EXCLUDED.${version}`);
}

/** True for an increment {@link sqlIncrement} made, never for a look-alike object. */
export function isIncrement(effect: unknown): effect is SqlIncrement {
  return INCREMENTS.has(effect);
}

/** True for a row write {@link sqlInsert} or {@link upsertIfNewer} made, never for a look-alike object. */
export function isRowWrite(effect: unknown): effect is SqlRowWrite {
  return ROW_WRITES.has(effect);
}

/**
 * The statement of one row's increments (a column each, their amounts summed): an `UPDATE` of the
 * row when it exists, else an `INSERT` of it with the amounts, in one statement:
 *
 * ```sql
 * WITH updated AS (UPDATE t AS stored SET n = stored.n + :a WHERE k = :k RETURNING 1)
 * INSERT INTO t AS stored (k, n) SELECT :k, :a WHERE NOT EXISTS (SELECT 1 FROM updated)
 * ON CONFLICT (k) DO UPDATE SET n = stored.n + EXCLUDED.n
 * ```
 *
 * Not a bare `INSERT ... ON CONFLICT DO UPDATE`: PostgreSQL checks the row an `INSERT` proposes
 * against the table's CHECK constraints before it looks for a conflict, so a withdrawal of 10 from
 * a balance of 100 under `CHECK (amount >= 0)` would fail, as if the row held only -10. Here the
 * CHECK sees the row's new value when it exists, and the amounts when the increment creates it. The
 * `ON CONFLICT` covers a row another transaction inserted after this statement's `UPDATE` looked:
 * the amounts are then added to it.
 */
export function incrementStatement(table: string, key: Readonly<Record<string, SqlValue>>, sums: ReadonlyMap<string, bigint>): SqlStatement {
  const target = sqlIdentifier(table);
  const keyColumns = Object.keys(key);
  const counters = [...sums.keys()];
  const amount = (column: string) => sql`${amountValue(sums.get(column) as bigint)}`;
  const matches = joinSql(keyColumns.map((column) => sql`${sqlIdentifier(column)} = ${key[column] as SqlValue}`), ' AND ');
  const additions = joinSql(counters.map((column) => sql`${sqlIdentifier(column)} = stored.${sqlIdentifier(column)} + ${amount(column)}`), ', ');
  const columns = joinSql([...keyColumns, ...counters].map(sqlIdentifier), ', ');
  const values = joinSql([...keyColumns.map((column) => sql`${key[column] as SqlValue}`), ...counters.map(amount)], ', ');
  const onConflict = joinSql(counters.map((column) => sql`${sqlIdentifier(column)} = stored.${sqlIdentifier(column)} + EXCLUDED.${sqlIdentifier(column)}`), ', ');
  return sql`WITH updated AS (UPDATE ${target} AS stored SET ${additions} WHERE ${matches} RETURNING 1) INSERT INTO ${target} AS stored (${columns}) SELECT ${values} WHERE NOT EXISTS (SELECT 1 FROM updated) ON CONFLICT (${joinSql(keyColumns.map(sqlIdentifier), ', ')}) DO UPDATE SET ${onConflict}`;
}

/** A sum as a long when it fits a JavaScript number exactly, else as a DECIMAL string. */
function amountValue(sum: bigint): number | bigint {
  return sum >= BigInt(Number.MIN_SAFE_INTEGER) && sum <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(sum) : sum;
}
