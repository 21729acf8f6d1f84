/** What `eo compare` prints for generations that hold the same, ones that differ, and values holding escape sequences. */
import { formatComparison } from '../../../operations/cli/compare-output';
import type { TableDiff } from '../../../operations/replay/table-diff';

const sameOrders: TableDiff = {
  variable: 'ORDERS_TABLE',
  live: { table: 'orders-1', items: 120, shardItems: 0 },
  next: { table: 'orders-2', items: 120, shardItems: 0 },
  equal: 120,
  onlyLive: 0,
  onlyNext: 0,
  differing: 0,
  examples: [],
  same: true,
};

test('generations that hold the same say so, table by table', () => {
  const counters: TableDiff = { ...sameOrders, variable: 'COUNTERS_TABLE', live: { table: 'counters-1', items: 40, shardItems: 32 }, next: { table: 'counters-2', items: 12, shardItems: 4 }, equal: 8 };
  expect(formatComparison('order-projection', 1, 2, [sameOrders, counters])).toBe(
    [
      'compare order-projection: generation 1 (live) against generation 2',
      '  ORDERS_TABLE: orders-1 (120 items) against orders-2 (120 items): 120 equal',
      '  COUNTERS_TABLE: counters-1 (40 items, 32 of them counter shards) against counters-2 (12 items, 4 of them counter shards): 8 equal',
      '  result: the same',
    ].join('\n'),
  );
});

test('differences are counted, the first shown, and the result counts them per table', () => {
  const orders: TableDiff = {
    ...sameOrders,
    next: { table: 'orders-2', items: 121, shardItems: 0 },
    equal: 116,
    onlyLive: 1,
    onlyNext: 2,
    differing: 3,
    same: false,
    examples: [
      { kind: 'differs', key: 'pk=order#o-1', attributes: [{ name: 'status', live: '"PAID"', next: '"SHIPPED"' }] },
      { kind: 'differs', key: 'pk=order#o-2', attributes: [{ name: 'note', next: '"late"' }, { name: 'version', live: '2', next: '3' }] },
      { kind: 'only-next', key: 'pk=order#o-3' },
      { kind: 'only-live', key: 'pk=order#o-9' },
    ],
  };
  const counters: TableDiff = { ...sameOrders, variable: 'COUNTERS_TABLE', live: { table: 'counters-1', items: 3, shardItems: 2 }, next: { table: 'counters-2', items: 1, shardItems: 1 }, equal: 0, differing: 1, same: false, examples: [{ kind: 'differs', key: 'pk=day#2026-12-01', attributes: [{ name: 'views', live: '5', next: '6' }] }] };
  expect(formatComparison('order-projection', 3, 4, [orders, sameOrders, counters])).toBe(
    [
      'compare order-projection: generation 3 (live) against generation 4',
      '  ORDERS_TABLE: orders-1 (120 items) against orders-2 (121 items): 116 equal, 3 differing, 1 only in generation 3, 2 only in generation 4',
      '    differs pk=order#o-1: status "PAID" (generation 3), "SHIPPED" (generation 4)',
      '    differs pk=order#o-2:',
      '      note absent (generation 3), "late" (generation 4)',
      '      version 2 (generation 3), 3 (generation 4)',
      '    only in generation 4: pk=order#o-3',
      '    only in generation 3: pk=order#o-9',
      '    ... and 2 more difference(s)',
      '  ORDERS_TABLE: orders-1 (120 items) against orders-2 (120 items): 120 equal',
      '  COUNTERS_TABLE: counters-1 (3 items, 2 of them counter shards) against counters-2 (1 items, 1 of them counter shards): 0 equal, 1 differing',
      '    differs pk=day#2026-12-01: views 5 (generation 3), 6 (generation 4)',
      '  result: 6 difference(s) in ORDERS_TABLE, 1 in COUNTERS_TABLE',
    ].join('\n'),
  );
});

test('keys and values holding control characters print escaped, one line each', () => {
  const hostile = '\u001b]52;c;cHduZWQ=\u0007\n\u202e';
  const orders: TableDiff = { ...sameOrders, equal: 119, differing: 1, same: false, examples: [{ kind: 'differs', key: `pk=order#${hostile}`, attributes: [{ name: `status${hostile}`, live: JSON.stringify(hostile), next: '"PAID"' }] }] };
  const lines = formatComparison(`order${hostile}`, 1, 2, [orders]).split('\n');
  expect(lines).toEqual([
    'compare order\\x1b]52;c;cHduZWQ=\\x07\\n\\u202e: generation 1 (live) against generation 2',
    '  ORDERS_TABLE: orders-1 (120 items) against orders-2 (120 items): 119 equal, 1 differing',
    '    differs pk=order#\\x1b]52;c;cHduZWQ=\\x07\\n\\u202e: status\\x1b]52;c;cHduZWQ=\\x07\\n\\u202e "\\u001b]52;c;cHduZWQ=\\u0007\\n\\u202e" (generation 1), "PAID" (generation 2)',
    '  result: 1 difference(s) in ORDERS_TABLE',
  ]);
});
