/**
 * `eo dlq inspect`'s human output for messages whose event was applied already: a column of the
 * groups table, each message listed with its dedup record, and the reason when a lookup failed.
 */
import { formatInspection } from '../../../operations/cli/dlq-output';
import type { FailureGroup, Inspection } from '../../../operations/dlq';

const QUEUE_ARN = 'arn:aws:sqs:us-east-1:000000000000:page-views';
const DLQ = { name: 'PageViewCounterDlq', url: 'http://sqs/000000000000/PageViewCounterDlq', arn: 'arn:aws:sqs:us-east-1:000000000000:PageViewCounterDlq', sources: [{ role: 'redrive' as const, arn: QUEUE_ARN }] };

const bare: FailureGroup = {
  kind: 'bare',
  errorType: 'MovedBySqs',
  count: 2,
  applied: 1,
  distinct: 2,
  firstSeen: '2026-12-01T10:00:00.000Z',
  lastSeen: '2026-12-01T10:00:05.000Z',
  example: { messageId: 'm-1', message: 'moved by SQS after maxReceiveCount receives: no failure context', attempts: 7, source: QUEUE_ARN },
};

function inspection(overrides: Partial<Inspection>): Inspection {
  return { queue: DLQ, total: 2, truncated: false, groups: [bare], ranges: [], archived: [], alreadyApplied: [], appliedCheckProblems: [], ...overrides };
}

test('a message whose event was applied is counted in its group and listed with its dedup record', () => {
  const text = formatInspection('stack S', inspection({ alreadyApplied: [{ messageId: 'm-1', eventId: 'e-1', consumer: 'page-view-counter', table: 'Idempotency', errorType: 'MovedBySqs' }] }));
  expect(text).toMatch(/\| error type +\| consumer \| kind +\| messages \| distinct \| already applied \|/);
  expect(text).toMatch(/\| MovedBySqs +\| - +\| bare +\| 2 +\| 2 +\| 1 +\|/);
  expect(text).toContain('1 message(s) hold an event that was applied already');
  expect(text).toContain('  already applied  m-1  MovedBySqs: event e-1, dedup record page-view-counter#e-1 in Idempotency');
});

test('with nothing applied there is no such section; a lookup that failed is said', () => {
  expect(formatInspection('stack S', inspection({ groups: [{ ...bare, applied: 0 }] }))).not.toContain('applied already');
  const text = formatInspection('stack S', inspection({ groups: [{ ...bare, applied: 0 }], appliedCheckProblems: ["reading page-view-counter's dedup records in Idempotency failed: AccessDeniedException"] }));
  expect(text).toContain("! not labelled: reading page-view-counter's dedup records in Idempotency failed: AccessDeniedException");
});
