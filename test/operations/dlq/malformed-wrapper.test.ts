/**
 * A body that claims the wrapper format without its layout is an entry of its own kind,
 * `malformed`: inspect groups it and says what is missing, instead of failing on the first field
 * it reads.
 */
import type { Message } from '@aws-sdk/client-sqs';
import { FAILURE_FORMAT } from '../../../aws/dlq-format';
import { formatInspection } from '../../../operations/cli/dlq-output';
import { entryOf, groupEntries, matches, type Inspection } from '../../../operations/dlq';

const QUEUE_ARN = 'arn:aws:sqs:us-east-1:000000000000:page-views';
const DLQ = { name: 'PageViewCounterDlq', url: 'http://sqs/000000000000/PageViewCounterDlq', arn: 'arn:aws:sqs:us-east-1:000000000000:PageViewCounterDlq', sources: [{ role: 'redrive' as const, arn: QUEUE_ARN }] };

function message(id: string, body: unknown): Message {
  return { MessageId: id, ReceiptHandle: `rh-${id}`, Body: JSON.stringify(body), Attributes: { SentTimestamp: '1764583200000' } };
}

test('a body with the format alone is a malformed entry that says what it lacks', () => {
  const entry = entryOf(message('m-1', { format: FAILURE_FORMAT }));
  expect(entry).toMatchObject({ kind: 'malformed', errorType: 'MalformedFailureWrapper', messageId: 'm-1', firstSeen: '2025-12-01T10:00:00.000Z' });
  expect(entry.kind === 'malformed' && entry.problems).toEqual(expect.arrayContaining(['version is missing', 'error is missing', 'source is missing', 'original is missing']));
  expect(matches(entry, { kind: ['malformed'] })).toBe(true);
});

test('inspect lists malformed wrappers in a group of their own, with what is wrong, beside the other messages', () => {
  const messages = [message('m-1', { format: FAILURE_FORMAT }), message('m-2', { format: FAILURE_FORMAT, version: 1, consumer: 'page-view-counter', error: 'boom' }), { MessageId: 'm-3', Body: 'moved', Attributes: { SentTimestamp: '1764583200000' } }];
  const entries = messages.map(entryOf);
  const groups = groupEntries(entries);
  expect(groups.map((group) => [group.kind, group.errorType, group.consumer, group.count])).toEqual([
    ['malformed', 'MalformedFailureWrapper', undefined, 1],
    ['malformed', 'MalformedFailureWrapper', 'page-view-counter', 1],
    ['bare', 'MovedBySqs', undefined, 1],
  ]);
  const inspection: Inspection = { queue: DLQ, total: 3, truncated: false, groups, ranges: [], archived: [], alreadyApplied: [], appliedCheckProblems: [] };
  const text = formatInspection('stack S', inspection);
  expect(text).toMatch(/\| MalformedFailureWrapper +\| page-view-counter +\| malformed +\| 1 /);
  expect(text).toContain(`  message   claims the ${FAILURE_FORMAT} format but is not a valid wrapper (reason is missing; error is "boom", expected an object;`);
  expect(text).toContain('a redrive leaves it in the DLQ');
});
