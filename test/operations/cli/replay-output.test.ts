/** What `eo replay` prints for a replay that changed nothing, one that applied, one that stopped, and a dry run. */
import { formatReplay } from '../../../operations/cli/replay-output';
import type { ReplaySummary } from '../../../operations/replay';

const plan: ReplaySummary['plan'] = {
  consumer: { functionName: 'fn-orders', consumer: 'order-projection', sourceArn: 'arn:aws:kinesis:us-east-1:000000000000:stream/orders', batchSize: 100 },
  source: { kind: 'kinesis', arn: 'arn:aws:kinesis:us-east-1:000000000000:stream/orders', retentionHours: 24 },
  window: { fromMs: Date.parse('2026-12-02T10:00:00Z'), toMs: Date.parse('2026-12-02T11:00:00Z') },
  archives: [],
};
const zero = { records: 0, applied: 0, duplicates: 0, skipped: 0, permanent: 0, reported: 0 };

test('a no-op replay says it changed nothing, with each count', () => {
  const text = formatReplay('Stack (local)', { plan, dryRun: false, complete: true, shards: [{ shardId: 's-0', inWindow: 7, sent: 7, invocations: 1 }], totals: { ...zero, records: 7, skipped: 6, permanent: 1 } });
  expect(text).toBe([
    'replay of order-projection (function fn-orders) in Stack (local): kinesis arn:aws:kinesis:us-east-1:000000000000:stream/orders, 2026-12-02T10:00:00.000Z to 2026-12-02T11:00:00.000Z',
    '  s-0: 7 record(s) in the window, 7 sent in 1 invocation(s)',
    '  records: 7; applied 0, duplicates 0, skipped (not newer) 6, failed permanently 1 (not sent to the DLQ again), reported 0',
    '  result: no change: every record was applied before, not newer than what is stored, or failed as it did then',
  ].join('\n'));
});

test('a replay that applied, one that stopped, and the notes on retention and the dedup window', () => {
  const applied = formatReplay('S', { plan: { ...plan, trimmedBefore: Date.parse('2026-12-02T10:30:00Z') }, dryRun: false, complete: true, shards: [], totals: { ...zero, records: 3, applied: 2, duplicates: 1 } });
  expect(applied).toContain('note: the stream keeps 24 h; records before 2026-12-02T10:30:00.000Z are gone and were not replayed');
  expect(applied).toContain('result: 2 record(s) applied that had not been');
  const stopped = formatReplay('S', { plan: { ...plan, pastDedupWindow: 'events before X are past the TTL' }, dryRun: false, complete: false, shards: [{ shardId: 's-0', inWindow: 5, sent: 2, invocations: 4, retries: 3, stoppedAt: { sequenceNumber: '42', reason: 'the function reported it' } }], totals: { ...zero, records: 2, applied: 1, reported: 1 } });
  expect(stopped).toContain('note: events before X are past the TTL (allowed by --allow-past-dedup-window)');
  expect(stopped).toContain('  s-0: 5 record(s) in the window, 2 sent in 4 invocation(s) (3 sending a batch again from a record the function reported)');
  expect(stopped).toContain('    stopped at 42: the function reported it');
  expect(stopped).toContain('result: incomplete: a shard stopped (above)');
});

test('a dry run counts and invokes nothing', () => {
  const text = formatReplay('S', { plan, dryRun: true, complete: false, shards: [{ shardId: 's-0', inWindow: 4, sent: 0, invocations: 0 }, { shardId: 's-1', inWindow: 3, sent: 0, invocations: 0 }], totals: zero });
  expect(text.split('\n')).toEqual([expect.stringMatching(/^dry run: replay of order-projection/), '  s-0: 4 record(s) in the window', '  s-1: 3 record(s) in the window', '  7 record(s) would be sent; nothing was invoked']);
});
