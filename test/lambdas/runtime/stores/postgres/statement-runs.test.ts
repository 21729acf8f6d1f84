/**
 * statementRuns gathers neighbouring statements of one shape (text, parameter names, hints and
 * kinds of value) for one round trip each, keeps the given order, and caps a run by count and by
 * size, under the Data API's request limit.
 */
import { sql, sqlIdentifier } from '../../../../../lambdas/runtime';
import { MAX_RUN_BYTES, MAX_RUN_STATEMENTS, shapeOf, statementRuns } from '../../../../../lambdas/runtime/stores/postgres/statement-runs';
import type { SqlStatement } from '../../../../../lambdas/runtime/stores/postgres/sql';

const payment = (id: string, cents: number): SqlStatement => sql`INSERT INTO ${sqlIdentifier('payments')} (payment_id, amount_cents) VALUES (${id}, ${cents})`;
const note = (id: string): SqlStatement => sql`UPDATE ${sqlIdentifier('notes')} SET seen = true WHERE id = ${id}`;

test('neighbours of one shape make one run; another shape starts the next; the order is kept', () => {
  const statements = [payment('a', 1), payment('b', 2), note('x'), payment('c', 3)];
  expect(statementRuns(statements)).toEqual([[statements[0], statements[1]], [statements[2]], [statements[3]]]);
});

test('the same text with another kind of value is another shape (an integer is a long, a fraction a decimal string)', () => {
  expect(shapeOf(payment('a', 1))).toBe(shapeOf(payment('b', 99)));
  expect(shapeOf(payment('a', 1))).not.toBe(shapeOf(payment('a', 1.5)));
  expect(statementRuns([payment('a', 1), payment('b', 1.5)])).toHaveLength(2);
});

test('a run holds at most MAX_RUN_STATEMENTS statements', () => {
  const statements = Array.from({ length: MAX_RUN_STATEMENTS * 2 + 1 }, (_, n) => payment(`p-${n}`, n + 1));
  expect(statementRuns(statements).map((run) => run.length)).toEqual([MAX_RUN_STATEMENTS, MAX_RUN_STATEMENTS, 1]);
});

test('a run stays under MAX_RUN_BYTES of parameters', () => {
  const big = 'x'.repeat(200_000);
  const statements = Array.from({ length: 12 }, () => payment(big, 1));
  const runs = statementRuns(statements);
  expect(runs.length).toBeGreaterThan(1);
  for (const run of runs) expect(run.reduce((bytes, statement) => bytes + JSON.stringify(statement.parameters).length, 0)).toBeLessThanOrEqual(MAX_RUN_BYTES);
  expect(runs.flat()).toEqual(statements);
});

test('nothing gives no run', () => {
  expect(statementRuns([])).toEqual([]);
});
