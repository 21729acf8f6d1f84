/**
 * The `eo dlq` commands' human output for a failure archive: its objects counted (and their
 * announcements, when those differ), each batch's records listed, and what the redrive did to
 * the index queue.
 */
import { formatInspection, formatListing, formatRedrive } from '../../../operations/cli/dlq-output';
import type { DlqListing, Inspection, RedriveResult } from '../../../operations/dlq';

const STREAM_ARN = 'arn:aws:kinesis:us-east-1:000000000000:stream/orders';
const INDEX = { name: 'OrdersFailureArchiveDlq', url: 'http://sqs/000000000000/OrdersFailureArchiveDlq', arn: 'arn:aws:sqs:us-east-1:000000000000:OrdersFailureArchiveDlq' };
const ARCHIVE = { ...INDEX, sources: [{ role: 'on-failure' as const, arn: STREAM_ARN }], archive: { bucket: 'orders-archive' } };

function listing(archivedObjects: number, visible: number): DlqListing {
  return { ...ARCHIVE, visible, inFlight: 0, oldestSentAt: '2026-12-01T10:00:00.000Z', oldestAgeSeconds: 120, peeked: archivedObjects, truncated: false, archivedObjects };
}

test('list counts the objects, names the bucket, and shows the announcements only when they differ', () => {
  const text = formatListing('stack S', [listing(2, 2), { ...listing(3, 1), name: 'Other' }]);
  expect(text).toContain('on-failure: stream orders, kept in s3://orders-archive');
  expect(text).toMatch(/\| 2 object\(s\) +\|/);
  expect(text).toContain('3 object(s), 1 announced');
  expect(text).toContain('2 dead-letter queue(s) hold messages');
});

test('an archive with objects but no announcement yet still counts as holding failures', () => {
  expect(formatListing('stack S', [listing(1, 0)])).toContain('1 dead-letter queue(s) hold messages');
});

test("inspect lists each archived batch's records, and a malformed object's problem", () => {
  const inspection: Inspection = {
    queue: ARCHIVE,
    total: 2,
    truncated: false,
    groups: [],
    ranges: [],
    archived: [
      { bucket: 'orders-archive', key: 'aws/lambda/u/shardId-0/2026/12/01/a', condition: 'RetryAttemptsExhausted', consumer: 'order-projection', failedAt: '2026-12-01T10:00:00.000Z', records: [{ sequenceNumber: '49', key: 'o-1', eventId: 'e-1', body: '{"eventId":"e-1"}' }] },
      { bucket: 'orders-archive', key: 'aws/lambda/u/shardId-0/2026/12/01/b', condition: 'MalformedOnFailureObjectError', failedAt: '2026-12-01T10:01:00.000Z', records: [], problem: 'the object is not JSON' },
    ],
    alreadyApplied: [],
    appliedCheckProblems: [],
  };
  const text = formatInspection('stack S', inspection);
  expect(text).toContain('2 archived batch(es); fed by on-failure: stream orders, kept in s3://orders-archive');
  expect(text).toContain('aws/lambda/u/shardId-0/2026/12/01/a (RetryAttemptsExhausted, order-projection,');
  expect(text).toMatch(/\| 49 +\| o-1 \| e-1 +\| \{"eventId":"e-1"\} \|/);
  expect(text).toContain('  ! the object is not JSON');
});

test('redrive says what it did to the index queue', () => {
  const result: RedriveResult = { queue: INDEX, dryRun: false, filter: '', selected: 0, cameBack: 0, cameBackSent: 0, redriven: 2, skipped: 0, failed: 0, refused: 0, pastRetention: 0, pastDedupWindow: 0, uncheckedSources: [], records: 5, details: [], announcements: { deleted: 2, kept: 1, unrecognized: 1 } };
  expect(formatRedrive('stack S', result)).toContain(
    'Index queue: 2 announcement(s) of redriven objects deleted, 1 of objects still archived kept; 1 message(s) in the index queue announce no object of this archive and were left for a look.',
  );
});
