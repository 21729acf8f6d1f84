/**
 * The statements that apply a run's events: the state they leave is the state of applying the
 * events one at a time in their order, each event's effects in its handler's order, whatever the
 * batch holds (docs/patterns/sql-dedup.md, "Results in event order"). An opaque statement (the
 * `sql` tag) runs in its place. Between two of them, the structured effects may go in another
 * order, and a row's increments as one sum, only where the tables' catalog facts (table-facts.ts)
 * prove that nothing could tell the difference:
 *
 * - effects on different tables move past each other when every one of those tables commutes with
 *   the others (`tablesCommute`): they are then grouped by table, each table's own effects in
 *   their order, so that a table's rows go in one call and two runs lock tables in one order;
 * - a table's consecutive increments go in key order when its rows commute (`rowsCommute`), and a
 *   row's increments become one statement of their sum when every counter merges
 *   (`incrementsMerge`) and each counter's amounts have one sign (so that every value it passes
 *   through one at a time lies between its first and its last, inside its type's range).
 *
 * Nothing else moves: a batch is an optimisation, never a semantics.
 */
import { incrementStatement, isIncrement, isRowWrite, type SqlEffect, type SqlIncrement } from './effects';
import { sqlIdentifier, type SqlIdentifier, type SqlStatement, type SqlValue } from './sql';
import { incrementsMerge, rowsCommute, tablesCommute, type TableFacts } from './table-facts';

/** A structured effect with the table it touches, or an opaque statement. */
type Step = { readonly table: SqlIdentifier; readonly increment: SqlIncrement } | { readonly table: SqlIdentifier; readonly write: SqlStatement } | { readonly opaque: SqlStatement };

/** One event's statements, in its handler's order, each increment alone: the one-at-a-time application. */
export function eventStatements(effects: readonly SqlEffect[]): SqlStatement[] {
  return effects.map((effect) => statementOf(stepOf(effect)));
}

/**
 * The tables whose facts could change the plan: those of each stretch between opaque statements
 * that touches two tables or more, or increments one table twice. None: the plan is the events'
 * statements one after another, and no catalog read is worth its round trip.
 */
export function tablesToInspect(events: readonly (readonly SqlEffect[])[]): SqlIdentifier[] {
  const tables = new Map<string, SqlIdentifier>();
  for (const segment of segmentsOf(events)) {
    const touched = new Map(segment.map((step) => [step.table.quoted, step.table]));
    const incremented = segment.filter((step) => 'increment' in step);
    if (touched.size > 1) for (const [quoted, table] of touched) tables.set(quoted, table);
    else if (incremented.length > 1) tables.set(segment[0]!.table.quoted, segment[0]!.table);
  }
  return [...tables.values()];
}

/** The run's statements, in the order that applies the events as one at a time would, reordered and summed only where `facts` prove it. */
export function planStatements(events: readonly (readonly SqlEffect[])[], facts: ReadonlyMap<string, TableFacts>): SqlStatement[] {
  const statements: SqlStatement[] = [];
  const steps = events.flatMap((effects) => effects.map(stepOf));
  let segment: StructuredStep[] = [];
  for (const step of steps) {
    if ('opaque' in step) {
      statements.push(...segmentStatements(segment, facts), step.opaque);
      segment = [];
    } else segment.push(step);
  }
  return [...statements, ...segmentStatements(segment, facts)];
}

type StructuredStep = Exclude<Step, { readonly opaque: SqlStatement }>;

function stepOf(effect: SqlEffect): Step {
  if (isIncrement(effect)) return { table: sqlIdentifier(effect.table), increment: effect };
  if (isRowWrite(effect)) return { table: sqlIdentifier(effect.table), write: effect.statement };
  return { opaque: effect };
}

function statementOf(step: Step): SqlStatement {
  if ('opaque' in step) return step.opaque;
  return 'write' in step ? step.write : incrementAlone(step.increment);
}

function incrementAlone(increment: SqlIncrement): SqlStatement {
  return incrementStatement(increment.table, increment.key, new Map([[increment.column, increment.amount]]));
}

/** The stretches of structured effects between opaque statements, in order. */
function segmentsOf(events: readonly (readonly SqlEffect[])[]): StructuredStep[][] {
  const segments: StructuredStep[][] = [[]];
  for (const step of events.flatMap((effects) => effects.map(stepOf))) {
    if ('opaque' in step) segments.push([]);
    else segments[segments.length - 1]?.push(step);
  }
  return segments.filter((segment) => segment.length > 0);
}

/** One stretch: grouped by table where the tables commute, then each table's runs of increments. */
function segmentStatements(segment: readonly StructuredStep[], facts: ReadonlyMap<string, TableFacts>): SqlStatement[] {
  const tables = [...new Set(segment.map((step) => step.table.quoted))];
  const ordered = tables.length > 1 && tablesCommute(tables.map((table) => facts.get(table))) ? stableSortBy(segment, (step) => step.table.quoted) : segment;
  return runsOf(ordered).flatMap((run) => ('write' in run ? [run.write] : incrementRun(run.increments, facts.get(run.table))));
}

/** The steps with each stretch of consecutive increments of one table gathered. */
function runsOf(steps: readonly StructuredStep[]): ({ readonly write: SqlStatement } | { readonly table: string; readonly increments: SqlIncrement[] })[] {
  const runs: ({ readonly write: SqlStatement } | { readonly table: string; readonly increments: SqlIncrement[] })[] = [];
  for (const step of steps) {
    const last = runs[runs.length - 1];
    if ('write' in step) runs.push({ write: step.write });
    else if (last !== undefined && 'increments' in last && last.table === step.table.quoted) last.increments.push(step.increment);
    else runs.push({ table: step.table.quoted, increments: [step.increment] });
  }
  return runs;
}

/** A table's consecutive increments: in key order when its rows commute, each row summed where it merges. */
function incrementRun(run: readonly SqlIncrement[], facts: TableFacts | undefined): SqlStatement[] {
  if (run.length === 0) return [];
  if (run.length === 1 || !rowsCommute(facts)) return run.map((increment) => incrementAlone(increment));
  const rows = new Map<string, SqlIncrement[]>();
  for (const increment of stableSortBy(run, rowIdOf)) rows.set(rowIdOf(increment), [...(rows.get(rowIdOf(increment)) ?? []), increment]);
  return [...rows.values()].flatMap((increments) => rowStatements(increments, facts));
}

/** One row's increments: one statement of their sums when every counter merges with one sign, else each alone, in order. */
function rowStatements(increments: readonly SqlIncrement[], facts: TableFacts): SqlStatement[] {
  const sums = new Map<string, bigint>();
  const signs = new Map<string, Set<number>>();
  for (const { column, amount } of increments) {
    sums.set(column, (sums.get(column) ?? 0n) + amount);
    signs.set(column, (signs.get(column) ?? new Set()).add(amount > 0n ? 1 : amount < 0n ? -1 : 0));
  }
  const oneSign = [...signs.values()].every((seen) => !(seen.has(1) && seen.has(-1)));
  if (increments.length > 1 && oneSign && [...sums.keys()].every((column) => incrementsMerge(facts, column))) {
    const [first] = increments as [SqlIncrement];
    return [incrementStatement(first.table, first.key, sums)];
  }
  return increments.map((increment) => incrementAlone(increment));
}

/** A row by its table and key, the same text for equal keys whatever the order of their columns. */
function rowIdOf(increment: SqlIncrement): string {
  const key = Object.entries(increment.key).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([increment.table, key.map(([column, value]) => [column, keyText(value)])]);
}

function keyText(value: SqlValue): string {
  if (value instanceof Date) return `date:${value.toISOString()}`;
  if (value instanceof Uint8Array) return `blob:${Buffer.from(value).toString('base64')}`;
  return `${typeof value}:${String(value)}`;
}

/** `items` sorted by `key`, equal keys in their order. */
function stableSortBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  return items.map((item, position) => ({ item, position, key: key(item) })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.position - b.position)).map(({ item }) => item);
}
