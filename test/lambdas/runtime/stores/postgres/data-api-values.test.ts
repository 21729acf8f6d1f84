/**
 * The `sql` tag's statements as ExecuteStatement's input, and its records as rows: parameters go
 * as they are (the tag builds the Data API's shape), results ask for exact longs and decimals, and
 * rows read as node-postgres's would.
 */
import { executeStatementInput, resultOf, valueOf } from '../../../../../lambdas/runtime/stores/postgres/data-api-values';
import { sql } from '../../../../../lambdas/runtime';

const target = { resourceArn: 'arn:aws:rds:us-east-1:000000000000:cluster:c', secretArn: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:s-AbCdEf', database: 'ledger' };

test('parameters: each value\'s field and type hint, as the tag made them; longs and decimals asked for as strings; metadata asked for', () => {
  const when = new Date('2026-12-01T10:00:00.250Z');
  const input = executeStatementInput(sql`INSERT INTO t VALUES (${'a'}, ${7}, ${1.5}, ${10n ** 20n}, ${true}, ${null}, ${when}, ${Uint8Array.from([9])})`, { ...target, transactionId: 'tx-1' });
  expect(input).toMatchObject({ ...target, transactionId: 'tx-1', sql: 'INSERT INTO t VALUES (:p0, :p1, :p2, :p3, :p4, :p5, :p6, :p7)', includeResultMetadata: true, resultSetOptions: { longReturnType: 'STRING', decimalReturnType: 'STRING' } });
  expect(input.parameters).toEqual([
    { name: 'p0', value: { stringValue: 'a' } },
    { name: 'p1', value: { longValue: 7 } },
    { name: 'p2', value: { stringValue: '1.5' }, typeHint: 'DECIMAL' },
    { name: 'p3', value: { stringValue: '100000000000000000000' }, typeHint: 'DECIMAL' },
    { name: 'p4', value: { booleanValue: true } },
    { name: 'p5', value: { isNull: true } },
    { name: 'p6', value: { stringValue: '2026-12-01 10:00:00.250' }, typeHint: 'TIMESTAMP' },
    { name: 'p7', value: { blobValue: Uint8Array.from([9]) } },
  ]);
});

test('records: keyed by column label, int4 as a number, int8 and numeric exact strings, nulls, booleans and bytes', () => {
  const columns = [
    { name: 'id', label: 'id', typeName: 'int4' },
    { name: 'big', label: 'big', typeName: 'int8' },
    { name: 'amount', label: 'amount', typeName: 'numeric' },
    { name: 'ok', label: 'ok', typeName: 'bool' },
    { name: 'note', label: 'note', typeName: 'text' },
    { name: 'raw', label: 'raw', typeName: 'bytea' },
  ];
  const records = [[{ stringValue: '1' }, { stringValue: '9007199254740993' }, { stringValue: '12.50' }, { booleanValue: true }, { isNull: true }, { blobValue: Uint8Array.from([1]) }]];
  expect(resultOf({ records, columnMetadata: columns, numberOfRecordsUpdated: 0 })).toEqual({
    rows: [{ id: 1, big: '9007199254740993', amount: '12.50', ok: true, note: null, raw: Uint8Array.from([1]) }],
    updatedCount: 0,
  });
});

test('an answer without records (an INSERT without RETURNING) has no rows and the rows it changed', () => {
  expect(resultOf({ numberOfRecordsUpdated: 3 })).toEqual({ rows: [], updatedCount: 3 });
});

test('the other fields: longs, doubles and arrays as they come', () => {
  expect(valueOf({ longValue: 5 })).toBe(5);
  expect(valueOf({ doubleValue: 0.25 })).toBe(0.25);
  expect(valueOf({ arrayValue: { stringValues: ['a', 'b'] } })).toEqual(['a', 'b']);
  expect(valueOf({ arrayValue: { arrayValues: [{ longValues: [1] }, { longValues: [2] }] } })).toEqual([[1], [2]]);
});
