// The plan of a run's statements (effect-plan.ts): the events' effects in their order, moved and
// summed only where the tables' facts prove nothing could tell. Facts are given here; table-facts.int
// reads them from a real PostgreSQL.
import { sql, sqlIdentifier, sqlIncrement, sqlInsert } from '../../../../../lambdas/runtime';
import { eventStatements, planStatements, tablesToInspect } from '../../../../../lambdas/runtime/stores/postgres/effect-plan';
import type { TableFacts } from '../../../../../lambdas/runtime/stores/postgres/table-facts';

/** A plain counter table: nothing sees the order of its writes or the values a counter passes through. */
function facts(overrides: Partial<TableFacts> & { oid: string }): TableFacts {
  return { found: true, plain: true, checked: false, linked: new Set(), sequences: new Set(), identity: false, uniqueColumns: new Set(['account', 'id']), exactColumns: new Set(['amount']), ...overrides };
}

const BALANCES = '"balances"';
const ENTRIES = '"entries"';
const deposit = (account: string, amount: number) => sqlIncrement('balances', { account }, 'amount', amount);
const entryRow = (id: string) => sqlInsert('entries', { id });
/** A statement as `table:key=amount` (an increment) or its text, to read a plan at a glance. */
const shown = (statement: { sql: string; parameters: readonly { value: object }[] }) => {
  const values = statement.parameters.map((parameter) => Object.values(parameter.value)[0] as string | number);
  // An increment's parameters: its amount, the key it matches, then the key and amount of the row it would insert.
  if (statement.sql.startsWith(`WITH updated AS (UPDATE ${BALANCES}`)) return `balances:${String(values[1])}=${String(values[0])}`;
  if (statement.sql.startsWith(`INSERT INTO ${ENTRIES}`)) return `entries:${String(values[0])}`;
  return statement.sql;
};

describe('with no facts, or facts that prove nothing, the plan is the events one at a time', () => {
  test('each event\'s effects in its handler\'s order, each increment alone, zero sums included', () => {
    const events = [[deposit('a', 5), entryRow('e1')], [deposit('a', -5), entryRow('e2')], [deposit('b', 0)]];
    const expected = ['balances:a=5', 'entries:e1', 'balances:a=-5', 'entries:e2', 'balances:b=0'];
    expect(planStatements(events, new Map()).map(shown)).toEqual(expected);
    expect(events.flatMap(eventStatements).map(shown)).toEqual(expected);
  });

  test.each([
    ['a CHECK constraint or a generated column', { checked: true }],
    ['a trigger, a rule or row-level security', { plain: false }],
    ['a serial column', { sequences: new Set(['900']) }],
    ['an identity column', { identity: true }],
    ['a unique index on the counter', { uniqueColumns: new Set(['account', 'amount']) }],
    ['a unique index with expressions', { uniqueColumns: new Set(['*']) }],
    ['a counter of a type sums could round (double precision)', { exactColumns: new Set<string>() }],
    ['the table missing', { found: false }],
  ])('no sum with %s', (_what, overrides) => {
    const plan = planStatements([[deposit('a', 1)], [deposit('a', 2)]], new Map([[BALANCES, facts({ oid: '1', ...overrides })]]));
    expect(plan.map(shown)).toEqual(['balances:a=1', 'balances:a=2']);
  });

  test('an opaque statement keeps its place: nothing moves across it', () => {
    const snapshot = sql`INSERT INTO snapshots (balance) SELECT amount FROM balances WHERE account = ${'a'}`;
    const plan = planStatements([[deposit('a', 1)], [snapshot], [deposit('a', 2)]], new Map([[BALANCES, facts({ oid: '1' })]]));
    expect(plan.map(shown)).toEqual(['balances:a=1', snapshot.sql, 'balances:a=2']);
  });
});

describe('where the facts prove it, effects move and sum', () => {
  const plain = new Map([
    [BALANCES, facts({ oid: '1' })],
    [ENTRIES, facts({ oid: '2', checked: true, exactColumns: new Set() })],
  ]);

  test('a row\'s increments of one sign become one statement of their sum, rows in key order', () => {
    expect(planStatements([[deposit('b', 1)], [deposit('a', 2)], [deposit('b', 3)]], plain).map(shown)).toEqual(['balances:a=2', 'balances:b=4']);
  });

  test('amounts of both signs on a row stay one at a time (a sum could skip what a value in between would refuse)', () => {
    expect(planStatements([[deposit('a', 100)], [deposit('a', -100)], [deposit('b', 1)], [deposit('b', 1)]], plain).map(shown)).toEqual(['balances:a=100', 'balances:a=-100', 'balances:b=2']);
  });

  test('tables that commute go table by table, in name order, each table\'s effects in their order', () => {
    const events = [[entryRow('e1'), deposit('a', 1)], [entryRow('e2'), deposit('a', 2)]];
    expect(planStatements(events, plain).map(shown)).toEqual(['balances:a=3', 'entries:e1', 'entries:e2']);
    expect(tablesToInspect(events).map((table) => table.quoted).sort()).toEqual([BALANCES, ENTRIES]);
  });

  test.each([
    ['a foreign key between them', { linked: new Set(['1']) }],
    ['a sequence both draw from', { sequences: new Set(['900']) }],
    ['a trigger on one of them', { plain: false }],
  ])('tables do not move past each other with %s', (_what, overrides) => {
    const linked = new Map([
      [BALANCES, facts({ oid: '1', ...('sequences' in overrides ? overrides : {}) })],
      [ENTRIES, facts({ oid: '2', ...overrides })],
    ]);
    const events = [[entryRow('e1'), deposit('a', 1)], [entryRow('e2'), deposit('a', 2)]];
    expect(planStatements(events, linked).map(shown)).toEqual(['entries:e1', 'balances:a=1', 'entries:e2', 'balances:a=2']);
  });

  test('a row that points at another row of its table keeps its rows in order', () => {
    const selfLinked = new Map([[BALANCES, facts({ oid: '1', linked: new Set(['1']) })]]);
    expect(planStatements([[deposit('b', 1)], [deposit('a', 1)]], selfLinked).map(shown)).toEqual(['balances:b=1', 'balances:a=1']);
  });
});

describe('what the plan asks the catalog about', () => {
  test('nothing, where the facts could not change the plan: one table written once per stretch, or stretches of one effect', () => {
    const opaque = sql`UPDATE notes SET seen = true`;
    expect(tablesToInspect([[deposit('a', 1)], [opaque], [deposit('a', 1)]])).toEqual([]);
    expect(tablesToInspect([[entryRow('e1')], [entryRow('e2')]])).toEqual([]);
  });

  test('a table incremented twice in a stretch, or every table of a stretch that touches two', () => {
    expect(tablesToInspect([[deposit('a', 1)], [deposit('b', 1)]])).toEqual([sqlIdentifier('balances')]);
  });
});
