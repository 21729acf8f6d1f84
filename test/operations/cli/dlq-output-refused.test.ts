/**
 * The `eo dlq redrive` summary for messages whose target is not a source of the DLQ: counted in
 * the table, each listed with the ARN it names and who sent it, and what to do about them said once.
 */
import { formatRedrive } from '../../../operations/cli/dlq-output';
import type { RedriveResult } from '../../../operations/dlq';

const QUEUE = { name: 'PageViewCounterDlq', url: 'http://sqs/000000000000/PageViewCounterDlq' };
const PAYMENTS = 'arn:aws:sqs:us-east-1:000000000000:payments';
const REASON = `target not a source of this DLQ: ${PAYMENTS} (the sources of PageViewCounterDlq: arn:aws:sqs:us-east-1:000000000000:PageViewCounterQueue); nothing was sent, the message stays in the DLQ; sent to the DLQ by AROAEXAMPLE:page-view-counter`;

function result(parts: Partial<RedriveResult>): RedriveResult {
  return { queue: QUEUE, dryRun: false, filter: '', selected: 0, cameBack: 0, cameBackSent: 0, redriven: 0, skipped: 0, failed: 0, refused: 0, pastRetention: 0, pastDedupWindow: 0, uncheckedSources: [], records: 0, details: [], ...parts };
}

test('a refused message is counted, listed with the target it names and its sender, and the next step said', () => {
  const text = formatRedrive('stack S', result({ refused: 1, details: [{ messageId: 'm-1', kind: 'wrapper', errorType: 'SchemaViolationError', consumer: 'page-view-counter', status: 'refused', target: PAYMENTS, reason: REASON }] }));
  expect(text).toMatch(/\| refused: target not a source \(left in the DLQ\) +\| 1 +\|/);
  expect(text).toContain('1 message(s) name a target that is not a source of this DLQ, and were left in it: nothing was sent.');
  expect(text).toContain(`  refused           m-1  SchemaViolationError (page-view-counter): ${REASON}`);
});

test('a run that refused nothing says nothing of it beyond the table', () => {
  const text = formatRedrive('stack S', result({ redriven: 1, records: 1 }));
  expect(text).toMatch(/\| refused: target not a source \(left in the DLQ\) +\| 0 +\|/);
  expect(text).not.toContain('not a source of this DLQ, and were left');
});
