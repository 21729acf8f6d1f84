/**
 * What PostgreSQL's catalog says about the tables a run's structured effects touch: the facts that
 * decide whether the strategy may reorder those effects or sum increments (effect-plan.ts). Read in
 * the run's own transaction, with its first statement, so that the proof is about the schema the
 * effects then meet, never a cached one from before a migration.
 *
 * The rules lean on PostgreSQL's own: a CHECK constraint sees only its row ("PostgreSQL assumes
 * that CHECK constraints' conditions are immutable, that is, they will always give the same result
 * for the same input row", CREATE TABLE, https://www.postgresql.org/docs/17/sql-createtable.html),
 * so it cannot tell the order in which other rows were written; but it sees every value its own
 * row takes, so a sum of increments would skip what it would have refused. What else could see an
 * order or an intermediate value: a trigger, a rule or row-level security (which run code on each
 * write), a foreign key (which reads another row), a unique or exclusion index on a counter (which
 * compares its values with other rows'), a sequence a default draws from (whose numbers follow the
 * order of the inserts), a generated column (computed from each value).
 */
import { joinSql, sql, type SqlIdentifier, type SqlStatement } from './sql';
import type { SqlResult } from './session';

/** One table's facts. */
export interface TableFacts {
  /** The table exists, as the transaction's search path resolves its name. */
  readonly found: boolean;
  /** Its oid, to match foreign keys and sequences between tables. */
  readonly oid: string;
  /** An ordinary table with no user trigger, no rule and no row-level security: a write runs no code of its own. */
  readonly plain: boolean;
  /** It has a CHECK constraint or a generated column: something computed from each value a row takes. */
  readonly checked: boolean;
  /** The tables its foreign keys reference or that reference it (its own oid for a self-reference). */
  readonly linked: ReadonlySet<string>;
  /** The sequences its columns' defaults draw from, and whether it has an identity column. */
  readonly sequences: ReadonlySet<string>;
  readonly identity: boolean;
  /** Columns in a unique or exclusion index; `*` when such an index has expressions or a predicate. */
  readonly uniqueColumns: ReadonlySet<string>;
  /** Columns of smallint, integer, bigint or numeric type (not a domain): sums of whole numbers are exact there. */
  readonly exactColumns: ReadonlySet<string>;
}

/** The catalog's columns, as the statement names them. */
const FACT_COLUMNS = sql`c.oid::text AS table_oid,
  coalesce(c.relkind = 'r' AND NOT c.relhasrules AND NOT c.relrowsecurity
    AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger g WHERE g.tgrelid = c.oid AND NOT g.tgisinternal), false) AS plain,
  coalesce(EXISTS (SELECT 1 FROM pg_catalog.pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'c')
    OR EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated <> ''), false) AS checked,
  (SELECT string_agg(DISTINCT f.peer::text, ',') FROM (SELECT k.confrelid AS peer FROM pg_catalog.pg_constraint k WHERE k.contype = 'f' AND k.conrelid = c.oid
    UNION SELECT k.conrelid FROM pg_catalog.pg_constraint k WHERE k.contype = 'f' AND k.confrelid = c.oid) AS f) AS linked,
  (SELECT string_agg(DISTINCT d.refobjid::text, ',') FROM pg_catalog.pg_attrdef ad
    JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_attrdef'::regclass AND d.objid = ad.oid AND d.refclassid = 'pg_catalog.pg_class'::regclass
    JOIN pg_catalog.pg_class s ON s.oid = d.refobjid AND s.relkind = 'S' WHERE ad.adrelid = c.oid) AS sequences,
  coalesce(EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attidentity <> ''), false) AS identity,
  (SELECT string_agg(DISTINCT CASE WHEN i.indexprs IS NOT NULL OR i.indpred IS NOT NULL THEN '*' ELSE a.attname::text END, ',') FROM pg_catalog.pg_index i
    LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey) WHERE i.indrelid = c.oid AND (i.indisunique OR i.indisexclusion)) AS unique_columns,
  (SELECT string_agg(a.attname::text, ',') FROM pg_catalog.pg_attribute a
    WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.atttypid IN (20, 21, 23, 1700)) AS exact_columns`;

/**
 * A `SELECT` of the tables' facts, a row per table (in the order given), beside `leading` (other
 * expressions the same round trip should evaluate, such as the transaction's time bounds).
 */
export function tableFactsStatement(tables: readonly SqlIdentifier[], leading?: SqlStatement): SqlStatement {
  const names = joinSql(tables.map((table) => sql`(${table.quoted})`), ', ');
  const lead = leading === undefined ? sql`` : sql`${leading}, `;
  return sql`SELECT ${lead}t.name AS table_name, ${FACT_COLUMNS} FROM (VALUES ${names}) AS t(name) LEFT JOIN pg_catalog.pg_class c ON c.oid = pg_catalog.to_regclass(t.name)`;
}

/** The facts the statement read, by the quoted table name. */
export function tableFactsOf(result: SqlResult): Map<string, TableFacts> {
  return new Map(result.rows.map((row) => [String(row.table_name), factsOfRow(row)]));
}

function factsOfRow(row: Readonly<Record<string, unknown>>): TableFacts {
  const oid = row.table_oid === null || row.table_oid === undefined ? '' : String(row.table_oid);
  return {
    found: oid !== '',
    oid,
    plain: row.plain === true,
    checked: row.checked !== false,
    linked: listOf(row.linked),
    sequences: listOf(row.sequences),
    identity: row.identity !== false,
    uniqueColumns: listOf(row.unique_columns),
    exactColumns: listOf(row.exact_columns),
  };
}

function listOf(value: unknown): Set<string> {
  return typeof value === 'string' && value !== '' ? new Set(value.split(',')) : new Set();
}

/** Writes to the table's rows commute with each other: no code runs on a write, no row points at another row of it, no sequence numbers them. */
export function rowsCommute(facts: TableFacts | undefined): facts is TableFacts {
  return facts !== undefined && facts.found && facts.plain && !facts.linked.has(facts.oid) && facts.sequences.size === 0 && !facts.identity;
}

/** Increments of `column` may be summed: rows commute, and no constraint, index or computed column sees each value the column takes. */
export function incrementsMerge(facts: TableFacts | undefined, column: string): boolean {
  return rowsCommute(facts) && !facts.checked && facts.exactColumns.has(column) && !facts.uniqueColumns.has(column) && !facts.uniqueColumns.has('*');
}

/** Writes to these tables commute across tables: each is plain, no foreign key joins two of them (or one to itself), no sequence serves two. */
export function tablesCommute(facts: readonly (TableFacts | undefined)[]): boolean {
  if (!facts.every((each) => each !== undefined && each.found && each.plain)) return false;
  const known = facts as readonly TableFacts[];
  const oids = new Set(known.map((each) => each.oid));
  if (known.some((each) => [...each.linked].some((peer) => oids.has(peer)))) return false;
  const sequences = known.flatMap((each) => [...each.sequences]);
  return new Set(sequences).size === sequences.length;
}
