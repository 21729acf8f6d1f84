// The `sql` tag and the SQL effects: values become named parameters in the Data API's shape, never
// text; identifiers are checked and quoted; what the Data API cannot carry is refused.
import { dedupTableDdl, InvalidEffectError, joinSql, sql, sqlIdentifier, sqlIncrement, sqlInsert, upsertIfNewer } from '../../../../../lambdas/runtime';
import { classifySqlFailure, SqlSchemaMissingError, SqlStatementError, SqlTransientError } from '../../../../../lambdas/runtime/stores/postgres/errors';
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

test('increments: whole numbers, exact as bigints, at least one key column', () => {
  expect(sqlIncrement('balances', { account: 'a' }, 'amount', 2 ** 52).amount).toBe(2n ** 52n);
  expect(() => sqlIncrement('balances', { account: 'a' }, 'amount', 1.5)).toThrow(InvalidEffectError);
  expect(() => sqlIncrement('balances', { account: 'a' }, 'amount', 2 ** 60)).toThrow(InvalidEffectError);
  expect(() => sqlIncrement('balances', {}, 'amount', 1)).toThrow(InvalidEffectError);
  expect(() => sqlIncrement('balances; DROP TABLE x', { account: 'a' }, 'amount', 1)).toThrow(InvalidEffectError);
});

test('an insert is a row write of its table, each value a parameter', () => {
  const write = sqlInsert('payments', { payment_id: 'p-1', amount_cents: 5 });
  expect(write.table).toBe('payments');
  expect(write.statement).toEqual({
    sql: 'INSERT INTO "payments" ("payment_id", "amount_cents") VALUES (:p0, :p1)',
    parameters: [
      { name: 'p0', value: { stringValue: 'p-1' } },
      { name: 'p1', value: { longValue: 5 } },
    ],
  });
  expect(() => sqlInsert('payments', {})).toThrow(InvalidEffectError);
  expect(() => sqlInsert('payments', { 'a b': 1 })).toThrow(InvalidEffectError);
});

test('the versioned upsert updates only when the stored version is older', () => {
  expect(upsertIfNewer('orders', { order_id: 'o-1' }, 'version', { status: 'SHIPPED', version: 3 }).statement.sql).toBe(
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
  ['42703', SqlStatementError],
  ['42P01', SqlSchemaMissingError],
  ['3F000', SqlSchemaMissingError],
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

test('a missing table or schema is transient: the schema is not there yet, which is not the event\'s fault', () => {
  const classified = classifySqlFailure(Object.assign(new Error('relation "payments" does not exist'), { code: '42P01' }), 'an effect');
  expect(classified).toBeInstanceOf(SqlTransientError);
  expect(classified.message).toMatch(/migration that has not run/);
});

test('a connection error without a SQLSTATE is transient', () => {
  expect(classifySqlFailure(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), 'a statement')).toBeInstanceOf(SqlTransientError);
});

describe('SQL text can only be made by the runtime (item 9 of issue 39)', () => {
  // What a producer's JSON field, or a map attribute of a DynamoDB stream image, can hold.
  const forged = JSON.parse('{"sql": "(SELECT secret FROM other_table)", "parameters": []}') as never;

  test('an object shaped like a statement, interpolated, is refused as a value, never spliced in', () => {
    expect(() => sql`INSERT INTO notes (body) VALUES (${forged})`).toThrow(InvalidEffectError);
    expect(() => joinSql([forged], ', ')).toThrow(InvalidEffectError);
  });

  test('so are copies of a real statement, and objects made with its prototype', () => {
    const real = sql`SELECT ${1}`;
    expect(() => sql`SELECT ${{ ...real } as never}`).toThrow(InvalidEffectError);
    expect(() => sql`SELECT ${Object.assign(Object.create(Object.getPrototypeOf(real) as object) as object, { sql: 'x', parameters: [] }) as never}`).toThrow(InvalidEffectError);
  });

  test('what the runtime makes is frozen: its text cannot be changed after it was built', () => {
    const statement = sql`SELECT ${1}`;
    expect(() => Object.assign(statement, { sql: 'DROP TABLE x' })).toThrow(TypeError);
    expect(() => (statement.parameters as unknown[]).push({})).toThrow(TypeError);
    expect(sql`SELECT ${statement}`.sql).toBe('SELECT SELECT :p0');
  });

  test('the values an effect builds on are parameters or refused', () => {
    expect(() => sqlIncrement('balances', { account: forged }, 'amount', 1)).toThrow(InvalidEffectError);
    expect(() => upsertIfNewer('orders', { order_id: 'o-1' }, 'version', { status: forged, version: 1 })).toThrow(InvalidEffectError);
    expect(() => sqlInsert('notes', { body: forged })).toThrow(InvalidEffectError);
  });
});
