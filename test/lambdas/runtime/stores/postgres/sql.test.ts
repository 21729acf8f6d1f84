// The `sql` tag and the SQL effects: values become named parameters in the Data API's shape, never
// text; identifiers are checked and quoted; what the Data API cannot carry is refused.
import { dedupTableDdl, InvalidEffectError, joinSql, sql, sqlIdentifier, sqlIncrement, upsertIfNewer } from '../../../../../lambdas/runtime';
import { aggregateIncrements } from '../../../../../lambdas/runtime/stores/postgres/effects';
import { classifySqlFailure, SqlStatementError, SqlTransientError } from '../../../../../lambdas/runtime/stores/postgres/errors';
import { positional } from '../../../../../emulator/engines/postgres-session';

test('each value is a named parameter :p0, :p1, ... with its Data API field', () => {
  const amount = 12;
  const account = "acc-1'; DROP TABLE balances; --";
  expect(sql`UPDATE balances SET amount = amount + ${amount} WHERE account = ${account}`).toEqual({
    sql: 'UPDATE balances SET amount = amount + :p0 WHERE account = :p1',
    parameters: [
      { name: 'p0', value: { longValue: 12 } },
      { name: 'p1', value: { stringValue: account } },
    ],
  });
});

test('typed values: booleans, null, decimals, bigints, Dates and blobs', () => {
  const { parameters } = sql`${true} ${null} ${1.5} ${12345678901234567890n} ${new Date('2026-12-01T10:00:00.123Z')} ${new Uint8Array([1, 2])}`;
  expect(parameters).toEqual([
    { name: 'p0', value: { booleanValue: true } },
    { name: 'p1', value: { isNull: true } },
    { name: 'p2', value: { stringValue: '1.5' }, typeHint: 'DECIMAL' },
    { name: 'p3', value: { stringValue: '12345678901234567890' }, typeHint: 'DECIMAL' },
    { name: 'p4', value: { stringValue: '2026-12-01 10:00:00.123' }, typeHint: 'TIMESTAMP' },
    { name: 'p5', value: { blobValue: new Uint8Array([1, 2]) } },
  ]);
});

test.each([
  ['undefined', undefined],
  ['an object', { a: 1 }],
  ['an array', [1, 2]],
  ['NaN', Number.NaN],
  ['Infinity', Number.POSITIVE_INFINITY],
  ['an integer beyond 2^53', 2 ** 60],
  ['an invalid Date', new Date('not a date')],
])('refuses %s with an InvalidEffectError', (_name, value) => {
  expect(() => sql`SELECT ${value as never}`).toThrow(InvalidEffectError);
});

test('identifiers are checked and quoted, never parameters', () => {
  expect(sql`SELECT * FROM ${sqlIdentifier('ledger.balances')} WHERE ${sqlIdentifier('account')} = ${'a'}`.sql).toBe('SELECT * FROM "ledger"."balances" WHERE "account" = :p0');
  for (const bad of ['', '1table', 'bal ances', 'a"b', 'a;b', 'a.b.c', 'x'.repeat(64), 'tåble']) {
    expect(() => sqlIdentifier(bad)).toThrow(InvalidEffectError);
  }
});

test('nested statements and lists are renumbered after the parameters before them', () => {
  const rows = joinSql([sql`(${'a'}, ${1})`, sql`(${'b'}, ${2})`], ', ');
  expect(sql`INSERT INTO t (k, n) VALUES ${rows} RETURNING ${sqlIdentifier('k')}, ${true}`).toEqual({
    sql: 'INSERT INTO t (k, n) VALUES (:p0, :p1), (:p2, :p3) RETURNING "k", :p4',
    parameters: [
      { name: 'p0', value: { stringValue: 'a' } },
      { name: 'p1', value: { longValue: 1 } },
      { name: 'p2', value: { stringValue: 'b' } },
      { name: 'p3', value: { longValue: 2 } },
      { name: 'p4', value: { booleanValue: true } },
    ],
  });
  const inner = sql`n = ${5}`;
  expect(sql`SELECT ${1}, ${inner}, ${inner}`.sql).toBe('SELECT :p0, n = :p1, n = :p2');
});

test('a ::type cast is not a placeholder, for the local session either', () => {
  const statement = sql`SELECT ${'5'}::int + ${1.5}`;
  expect(statement.sql).toBe('SELECT :p0::int + :p1');
  expect(positional(statement)).toEqual({ text: 'SELECT $1::int + $2::numeric', values: ['5', '1.5'] });
});

test('increments are summed per row, in a fixed order, exactly, zero sums left out', () => {
  const statements = aggregateIncrements([
    sqlIncrement('balances', { account: 'b' }, 'amount', 5),
    sqlIncrement('balances', { account: 'a' }, 'amount', 2 ** 52),
    sqlIncrement('balances', { account: 'b' }, 'amount', -2),
    sqlIncrement('balances', { account: 'a' }, 'amount', 2 ** 52),
    sqlIncrement('balances', { account: 'c' }, 'amount', 3),
    sqlIncrement('balances', { account: 'c' }, 'amount', -3),
  ]);
  expect(statements.map((statement) => statement.parameters.map((parameter) => parameter.value))).toEqual([
    [{ stringValue: 'a' }, { stringValue: String(2n ** 53n) }],
    [{ stringValue: 'b' }, { longValue: 3 }],
  ]);
  expect(statements[0]?.sql).toBe('INSERT INTO "balances" AS stored ("account", "amount") VALUES (:p0, :p1) ON CONFLICT ("account") DO UPDATE SET "amount" = stored."amount" + EXCLUDED."amount"');
  expect(() => sqlIncrement('balances', { account: 'a' }, 'amount', 1.5)).toThrow(InvalidEffectError);
  expect(() => sqlIncrement('balances', {}, 'amount', 1)).toThrow(InvalidEffectError);
});

test('the versioned upsert updates only when the stored version is older', () => {
  expect(upsertIfNewer('orders', { order_id: 'o-1' }, 'version', { status: 'SHIPPED', version: 3 }).sql).toBe(
    'INSERT INTO "orders" AS stored ("order_id", "status", "version") VALUES (:p0, :p1, :p2) ON CONFLICT ("order_id") DO UPDATE SET "status" = EXCLUDED."status", "version" = EXCLUDED."version" WHERE stored."version" < EXCLUDED."version"',
  );
  expect(() => upsertIfNewer('orders', { order_id: 'o-1' }, 'version', { status: 'SHIPPED' })).toThrow(InvalidEffectError);
});

test('the dedup table: a primary key on the dedup key, an index on the expiry', () => {
  expect(dedupTableDdl('app.eo_dedup')).toEqual([
    'CREATE TABLE IF NOT EXISTS "app"."eo_dedup" (dedup_key text PRIMARY KEY, payload_hash text NOT NULL, expires_at bigint NOT NULL)',
    'CREATE INDEX IF NOT EXISTS "eo_dedup_expires_at" ON "app"."eo_dedup" (expires_at)',
  ]);
});

test.each([
  ['23505', SqlStatementError],
  ['23514', SqlStatementError],
  ['22003', SqlStatementError],
  ['42P01', SqlStatementError],
  ['40001', SqlTransientError],
  ['40P01', SqlTransientError],
  ['55P03', SqlTransientError],
  ['57014', SqlTransientError],
  ['08006', SqlTransientError],
])('SQLSTATE %s is a %p', (code, kind) => {
  const classified = classifySqlFailure(Object.assign(new Error('from the database'), { code }), 'a statement');
  expect(classified).toBeInstanceOf(kind);
  expect(classified.message).toContain(`SQLSTATE ${code}`);
});

test('a connection error without a SQLSTATE is transient', () => {
  expect(classifySqlFailure(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), 'a statement')).toBeInstanceOf(SqlTransientError);
});
