/**
 * The `eo dlq redrive` summary for messages held back at the dedup window: counted in the table,
 * each with its reason, the flag that redrives them named once, and the sources that could not be
 * checked listed.
 */
import { formatRedrive } from '../../../operations/cli/dlq-output';
import type { RedriveResult } from '../../../operations/dlq';

const QUEUE = { name: 'PageViewCounterDlq', url: 'http://sqs/000000000000/PageViewCounterDlq' };
const REASON = 'a redriven copy could be processed until 2026-12-21T12:00:00Z (the source keeps it 4 d), after page-view-counter\'s dedup record of an earlier copy may have expired at 2026-12-20T00:00:00Z';

function result(parts: Partial<RedriveResult>): RedriveResult {
  return { queue: QUEUE, dryRun: false, filter: '', selected: 0, cameBack: 0, cameBackSent: 0, redriven: 0, skipped: 0, failed: 0, refused: 0, pastRetention: 0, pastDedupWindow: 0, uncheckedSources: [], records: 0, details: [], ...parts };
}

test('a message held at the dedup window is counted, listed with its reason, and the way past it named', () => {
  const text = formatRedrive('stack S', result({ pastDedupWindow: 1, details: [{ messageId: 'm-1', kind: 'wrapper', errorType: 'SchemaViolationError', consumer: 'page-view-counter', status: 'past-dedup-window', target: QUEUE.url, records: 1, reason: REASON }] }));
  expect(text).toMatch(/\| past the dedup window \(left in the DLQ\) +\| 1 +\|/);
  expect(text).toContain('1 message(s) past the dedup window were left in the DLQ: a copy could be applied twice (reasons below). Check each event\'s effect, then run again with --allow-past-dedup-window, or delete them.');
  expect(text).toContain(`  past-dedup-window m-1  SchemaViolationError (page-view-counter): ${REASON}`);
});

test('a message redriven past the window on the flag keeps its note in the list', () => {
  const text = formatRedrive('stack S', result({ redriven: 1, records: 1, details: [{ messageId: 'm-1', kind: 'wrapper', errorType: 'SchemaViolationError', status: 'redriven', target: QUEUE.url, records: 1, note: `past the dedup window, redriven on --allow-past-dedup-window: ${REASON}` }] }));
  expect(text).toContain('Messages that need a look:');
  expect(text).toContain('past the dedup window, redriven on --allow-past-dedup-window');
});

test('sources no consumer declares a dedup TTL for are named once', () => {
  const text = formatRedrive('stack S', result({ redriven: 2, uncheckedSources: ['arn:aws:sqs:us-east-1:000000000000:legacy-orders'] }));
  expect(text).toContain('Not checked against a dedup window (no consumer of the stack declares DEDUP_TTL_SECONDS for them): queue legacy-orders.');
  expect(formatRedrive('stack S', result({ redriven: 2 }))).not.toContain('Not checked');
});
