/**
 * What a generated SQL consumer (`--pattern sql`) adds to the PostgreSQL database it shares with
 * the stack's other SQL consumers: two tables named after it, their DDL (run at deploy by
 * `SqlEffectDatabase.addSchema`, safe to run again), and the variables that tell its function their
 * names. The handler's effects, written with `sqlInsert` and `sqlIncrement`, are shared
 * by the in-repo and the team-app handlers.
 */
import { identifiersOf } from './names';
import { Pattern, Source, type ConsumerRequest } from './options';

/** PostgreSQL's longest identifier (NAMEDATALEN - 1), which `sqlIdentifier` also holds to. */
const MAX_IDENTIFIER = 63;

/** The tables, by what each holds; the consumer's name in snake case before each suffix. */
const SUFFIX = { entries: '_entries', totals: '_totals' } as const;

/** The variables the construct sets and the handler reads the tables' names from. */
export const SQL_TABLE_ENV = { entries: 'ENTRIES_TABLE', totals: 'TOTALS_TABLE' } as const;

/** A SQL consumer's tables in the shared database. */
export interface SqlTables {
  /** One row per event applied: its event id (the primary key), its key and its amount. */
  readonly entries: string;
  /** One row per key: the sum of its amounts. */
  readonly totals: string;
}

/** `audit-trail` -> `{ entries: 'audit_trail_entries', totals: 'audit_trail_totals' }`. */
export function sqlTablesOf(name: string): SqlTables {
  const snake = name.replace(/-/g, '_');
  return { entries: `${snake}${SUFFIX.entries}`, totals: `${snake}${SUFFIX.totals}` };
}

/** Why the SQL pattern cannot take `name`; empty when it can (or the pattern is another). */
export function sqlNameProblems(request: ConsumerRequest): string[] {
  if (request.pattern !== Pattern.SQL) return [];
  const longest = Object.values(sqlTablesOf(request.name)).sort((a, b) => b.length - a.length)[0] ?? '';
  if (longest.length <= MAX_IDENTIFIER) return [];
  const most = MAX_IDENTIFIER - Math.max(...Object.values(SUFFIX).map((suffix) => suffix.length));
  return [`"${request.name}" is too long for --pattern sql: its table ${longest} would be over PostgreSQL's ${MAX_IDENTIFIER} characters; use at most ${most}`];
}

/** The DDL of the consumer's tables, each statement safe to run again. */
export function sqlSchemaOf(name: string): string[] {
  const tables = sqlTablesOf(name);
  return [
    `CREATE TABLE IF NOT EXISTS ${tables.entries} (event_id text PRIMARY KEY, key text NOT NULL, amount bigint NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS ${tables.totals} (key text PRIMARY KEY, total bigint NOT NULL)`,
  ];
}

/** `audit-trail` -> `AUDIT_TRAIL`: the prefix of the construct file's exported constants. */
export function sqlConstantOf(name: string): string {
  return name.replace(/-/g, '_').toUpperCase();
}

/**
 * The construct file's exported tables and schema (`AUDIT_TRAIL_TABLES`, `AUDIT_TRAIL_SCHEMA`),
 * which the construct hands to `addSchema` and its function's environment, and the in-repo test
 * runs on its PostgreSQL.
 */
export function sqlSchemaDeclarations(name: string): string {
  const constant = sqlConstantOf(name);
  const tables = sqlTablesOf(name);
  const statements = sqlSchemaOf(name).map((statement) => `  '${statement}',`);
  return [
    `/** ${name}'s tables in the stack's SQL database (PostgreSQL), which its function finds in ${SQL_TABLE_ENV.entries} and ${SQL_TABLE_ENV.totals}. */`,
    `export const ${constant}_TABLES = { entries: '${tables.entries}', totals: '${tables.totals}' } as const;`,
    '',
    '/** Their DDL, run at deploy after the dedup table\'s (`SqlEffectDatabase.addSchema`); IF NOT EXISTS makes a second run harmless. */',
    `export const ${constant}_SCHEMA: readonly string[] = [`,
    ...statements,
    '];',
  ].join('\n');
}

/** The `environment` prop that names the tables to the function. */
export function sqlEnvironmentProp(name: string): string {
  const constant = sqlConstantOf(name);
  return `environment: { ${SQL_TABLE_ENV.entries}: ${constant}_TABLES.entries, ${SQL_TABLE_ENV.totals}: ${constant}_TABLES.totals },`;
}

/** The effects' declarations, after the payload's: the tables' type and the effect function. */
export function sqlEffectDeclarations(request: ConsumerRequest): string {
  return request.source === Source.DYNAMODB_STREAM ? CHANGE_EFFECTS : ENTRY_EFFECTS;
}

const TABLES_TYPE = `/** The consumer's tables, as the construct named them in ${SQL_TABLE_ENV.entries} and ${SQL_TABLE_ENV.totals}. */
export interface {{Pascal}}Tables {
  readonly entries: string;
  readonly totals: string;
}`;

const ENTRY_EFFECTS = `${TABLES_TYPE}

/**
 * The placeholder effects of one event: its row in the entries table (the database refuses a
 * second row with its event id), and its amount added to its key's total. Values are parameters,
 * table names checked identifiers: never SQL built from strings. Both are structured effects, so
 * the strategy may batch them where the tables' catalog proves the order cannot show.
 */
export function entryEffects(tables: {{Pascal}}Tables, eventId: string, entry: {{Pascal}}Payload): SqlEffects {
  return [
    sqlInsert(tables.entries, { event_id: eventId, key: entry.key, amount: entry.amount }),
    sqlIncrement(tables.totals, { key: entry.key }, 'total', entry.amount),
  ];
}`;

const CHANGE_EFFECTS = `${TABLES_TYPE}

/** How a change moves its item between categories: -1 for the one it left, +1 for the one it entered (none when it stayed). */
export function categoryMoves(changed: {{Pascal}}Change): [category: string, delta: number][] {
  const [before, after] = [changed.oldImage?.category, changed.newImage?.category];
  const moves: [category: string, delta: number][] = [];
  if (before === after) return moves;
  if (before !== undefined) moves.push([before, -1]);
  if (after !== undefined) moves.push([after, 1]);
  return moves;
}

/**
 * The placeholder effects of one change: its row in the entries table (the item's key, and what
 * the change did to the count of items), and the count of items per category in the totals
 * table. Values are parameters, table names checked identifiers: never SQL built from strings.
 * Both are structured effects, so the strategy may batch them where the tables' catalog proves
 * the order cannot show.
 */
export function changeEffects(tables: {{Pascal}}Tables, eventId: string, changed: {{Pascal}}Change): SqlEffects {
  const moves = categoryMoves(changed);
  const item = changed.newImage ?? changed.oldImage;
  const net = moves.reduce((sum, [, delta]) => sum + delta, 0);
  return [
    sqlInsert(tables.entries, { event_id: eventId, key: item?.pk ?? '', amount: net }),
    ...moves.map(([category, delta]) => sqlIncrement(tables.totals, { key: category }, 'total', delta)),
  ];
}`;

/** The routes' tables, read from the environment the construct set (`env` is the one-call handler's `HandlerEnv`). */
export const SQL_TABLES_FROM_ENV = `const tables = { entries: env.require('${SQL_TABLE_ENV.entries}'), totals: env.require('${SQL_TABLE_ENV.totals}') };`;

/** The construct's id for the consumer's `addSchema` group: its PascalCase name. */
export function sqlSchemaId(name: string): string {
  return identifiersOf(name).pascal;
}
