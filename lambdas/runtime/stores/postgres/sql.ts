import { quotedSqlIdentifier, SQL_IDENTIFIER_PATTERN } from '../../../../aws/sql-dedup-table';
import { InvalidEffectError } from '../../core/errors';
import { RuntimeBrand } from './runtime-brand';

/**
 * A typed parameter value, in the shape of the RDS Data API's `Field`: exactly one member is set.
 * `isNull` stands for SQL NULL.
 */
export type SqlField =
  | { readonly stringValue: string }
  | { readonly longValue: number }
  | { readonly booleanValue: boolean }
  | { readonly blobValue: Uint8Array }
  | { readonly isNull: true };

/** How the database should read a string parameter (the Data API's `typeHint`). */
export type SqlTypeHint = 'DECIMAL' | 'TIMESTAMP';

/** One named parameter of a statement, in the Data API's `SqlParameter` shape: `:p0` in the text is `{ name: 'p0', ... }`. */
export interface SqlParameter {
  readonly name: string;
  readonly value: SqlField;
  readonly typeHint?: SqlTypeHint;
}

/** The statements this module made: a brand no copy of their fields can carry. */
const STATEMENTS = new RuntimeBrand<SqlStatement>();
let makeStatement: (text: string, parameters: readonly SqlParameter[]) => SqlStatement;

/**
 * A parameterized statement: SQL text with `:p0`, `:p1`, ... placeholders, and their values. Only
 * this module makes one (the {@link sql} tag, {@link joinSql}, and the effects built on them): its
 * constructor is private, and what it makes is frozen and remembered, so that an object of the
 * same shape that came from elsewhere (a producer's JSON field, a map attribute of a stream image)
 * is never taken for a statement. Interpolated, such an object is refused as a value; returned as
 * an effect, it is refused as an effect.
 */
export class SqlStatement {
  static {
    makeStatement = (text, parameters) => STATEMENTS.mark(new SqlStatement(text, Object.freeze([...parameters])));
  }

  private constructor(
    /** The text, with `:p<n>` placeholders. */
    public readonly sql: string,
    /** The values of the placeholders, in the Data API's `SqlParameter` shape. */
    public readonly parameters: readonly SqlParameter[],
  ) {}
}

/** True only for a statement the `sql` tag (or an effect built on it) made: never for a look-alike object. */
export function isSqlStatement(value: unknown): value is SqlStatement {
  return STATEMENTS.has(value);
}

/**
 * What may be interpolated into {@link sql}: a value (sent as a parameter), an {@link SqlIdentifier}
 * (a validated, quoted table or column name), or another statement that this module made
 * (spliced in, its parameters renumbered; see {@link SqlStatement}).
 *
 * Values: a string; a number (an integer is a `longValue`, any other finite number a DECIMAL
 * string); a bigint (a DECIMAL string, exact at any size); a boolean; `null`; a `Date` (a
 * TIMESTAMP in UTC); a `Uint8Array` (a blob). Anything else (undefined, an object, an array, NaN,
 * an integer beyond 2^53) is refused with an {@link InvalidEffectError}: the Data API has no field
 * for it, or it would lose precision.
 */
export type SqlValue = string | number | bigint | boolean | null | Date | Uint8Array;

/** A table or column name, checked by {@link sqlIdentifier}. */
export class SqlIdentifier {
  /** The name, double-quoted for SQL. */
  public readonly quoted: string;

  /** @throws InvalidEffectError when `name` is not a plain identifier (see {@link sqlIdentifier}) */
  public constructor(public readonly name: string) {
    checkIdentifier(name);
    this.quoted = quotedSqlIdentifier(name);
  }
}

/** A plain SQL identifier: see aws/sql-dedup-table.ts, where the construct reads it too. */
export const IDENTIFIER_PATTERN = SQL_IDENTIFIER_PATTERN;

/**
 * A table or column name for {@link sql}: `sql\`SELECT * FROM ${sqlIdentifier(table)}\``.
 * @throws InvalidEffectError when the name is not letters, digits and underscores (with at most one schema prefix)
 */
export function sqlIdentifier(name: string): SqlIdentifier {
  return new SqlIdentifier(name);
}

function checkIdentifier(name: unknown): void {
  if (typeof name !== 'string' || !IDENTIFIER_PATTERN.test(name)) {
    throw new InvalidEffectError(`not a plain SQL identifier: ${JSON.stringify(name)} (letters, digits and underscores, not starting with a digit, at most 63 characters, optionally schema.name)`);
  }
}

type Fragment = SqlValue | SqlIdentifier | SqlStatement;

/**
 * A tagged template that builds a {@link SqlStatement}: each interpolated value becomes a named
 * parameter (`:p0`, `:p1`, ...), never text.
 *
 * @example
 * ```ts
 * import { sql } from 'effectively-once/runtime';
 * const statement = sql`UPDATE balances SET amount = amount + ${12} WHERE account = ${'acc-1'}`;
 * // { sql: 'UPDATE balances SET amount = amount + :p0 WHERE account = :p1', parameters: [...] }
 * ```
 * @throws InvalidEffectError for a value the Data API cannot carry
 */
export function sql(strings: TemplateStringsArray, ...values: readonly Fragment[]): SqlStatement {
  let text = strings[0] ?? '';
  const parameters: SqlParameter[] = [];
  values.forEach((value, position) => {
    text += fragmentText(value, parameters) + (strings[position + 1] ?? '');
  });
  return makeStatement(text, parameters);
}

/** Statements and identifiers joined by `separator`, for lists in {@link sql}: `joinSql(rows.map(...), ', ')`. */
export function joinSql(fragments: readonly (SqlStatement | SqlIdentifier)[], separator: string): SqlStatement {
  const parameters: SqlParameter[] = [];
  const text = fragments.map((fragment) => fragmentText(fragment, parameters)).join(separator);
  return makeStatement(text, parameters);
}

function fragmentText(value: Fragment, parameters: SqlParameter[]): string {
  if (value instanceof SqlIdentifier) return value.quoted;
  if (isSqlStatement(value)) {
    // Renumber the inner statement's parameters after the ones so far: `:p0` inside becomes `:p<n>`.
    const offset = parameters.length;
    const renamed = new Map(value.parameters.map((parameter, index) => [parameter.name, `p${offset + index}`]));
    value.parameters.forEach((parameter) => parameters.push({ ...parameter, name: renamed.get(parameter.name) as string }));
    return value.sql.replace(PLACEHOLDER, (placeholder: string, name: string) => (renamed.has(name) ? `:${renamed.get(name)}` : placeholder));
  }
  const name = `p${parameters.length}`;
  parameters.push({ name, ...fieldOf(value) });
  return `:${name}`;
}

/** A `:name` placeholder, not a `::type` cast. */
export const PLACEHOLDER = /(?<![:\w]):(p\d+)\b/g;

/** The Data API field (and type hint) for a value. */
export function fieldOf(value: SqlValue): { value: SqlField; typeHint?: SqlTypeHint } {
  switch (typeof value) {
    case 'string':
      return { value: { stringValue: value } };
    case 'boolean':
      return { value: { booleanValue: value } };
    case 'bigint':
      return { value: { stringValue: value.toString() }, typeHint: 'DECIMAL' };
    case 'number':
      if (!Number.isFinite(value)) throw refused(value, 'a SQL number is finite');
      if (Number.isInteger(value)) {
        if (!Number.isSafeInteger(value)) throw refused(value, 'an integer beyond 2^53 has lost its exact value already: pass a bigint');
        return { value: { longValue: value } };
      }
      return { value: { stringValue: String(value) }, typeHint: 'DECIMAL' };
    case 'object':
      if (value === null) return { value: { isNull: true } };
      if (value instanceof Date) {
        if (Number.isNaN(value.getTime())) throw refused(value, 'an invalid Date');
        // The Data API's TIMESTAMP format: YYYY-MM-DD HH:MM:SS[.FFF], here in UTC.
        return { value: { stringValue: value.toISOString().replace('T', ' ').replace('Z', '') }, typeHint: 'TIMESTAMP' };
      }
      if (value instanceof Uint8Array) return { value: { blobValue: value } };
      break;
    default:
      break;
  }
  throw refused(value, 'the Data API takes strings, numbers, bigints, booleans, null, Dates and Uint8Arrays');
}

function refused(value: unknown, why: string): InvalidEffectError {
  const shown = typeof value === 'bigint' || typeof value === 'number' ? String(value) : value === undefined ? 'undefined' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : typeof value;
  return new InvalidEffectError(`a SQL parameter cannot be ${shown}: ${why}`);
}
