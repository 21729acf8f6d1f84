/**
 * `eo dlq`'s human output shows what a message brought, never lets the terminal act on it: a body,
 * an error, a consumer name or a reason holding an escape sequence (OSC 52 writes the clipboard,
 * CSI moves the cursor), a C1 control or a bidi override prints escaped, in every command.
 */
import type { Message } from '@aws-sdk/client-sqs';
import { FAILURE_FORMAT, FAILURE_FORMAT_VERSION, type FailureEnvelope } from '../../../aws/dlq-format';
import { formatInspection, formatListing, formatRedrive } from '../../../operations/cli/dlq-output';
import { entryOf, groupEntries, type Inspection, type RedriveResult } from '../../../operations/dlq';

/** Writes "pwned" to the clipboard, clears the screen, then reverses what follows. */
const HOSTILE = '\u001b]52;c;cHduZWQ=\u0007\u001b[2J\u001b[H\u009b31m\u202eexe.txt';
const SHOWN = '\\x1b]52;c;cHduZWQ=\\x07\\x1b[2J\\x1b[H\\x9b31m\\u202eexe.txt';
/** Anything a terminal acts on, but the line breaks the output is laid out with. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const ACTED_ON = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const QUEUE_ARN = 'arn:aws:sqs:us-east-1:000000000000:page-views';
const DLQ = { name: 'PageViewCounterDlq', url: 'http://sqs/000000000000/PageViewCounterDlq', arn: 'arn:aws:sqs:us-east-1:000000000000:PageViewCounterDlq', sources: [{ role: 'redrive' as const, arn: QUEUE_ARN }] };

function message(id: string, body: string): Message {
  return { MessageId: id, ReceiptHandle: `rh-${id}`, Body: body, Attributes: { SentTimestamp: '1764583200000', ApproximateReceiveCount: '7', DeadLetterQueueSourceArn: QUEUE_ARN } };
}

function wrapper(): FailureEnvelope {
  return {
    format: FAILURE_FORMAT,
    version: FAILURE_FORMAT_VERSION,
    consumer: `page-view-counter${HOSTILE}`,
    reason: 'permanent',
    error: { name: `SchemaViolationError${HOSTILE}`, message: `payload.page: expected string, got ${HOSTILE}`, kind: 'permanent', stack: `SchemaViolationError: ${HOSTILE}\n    at handler (${HOSTILE}.js:1:1)` },
    attempts: 1,
    firstFailureAt: '2026-12-01T10:00:00.000Z',
    lastFailureAt: '2026-12-01T10:00:00.000Z',
    eventId: `e-${HOSTILE}`,
    eventType: 'page.viewed',
    source: { kind: 'sqs', arn: QUEUE_ARN, itemIdentifier: 'm-0' },
    original: { body: `{"page":"${HOSTILE}"}`, encoding: 'utf8' },
  };
}

function inspectionOf(messages: readonly Message[]): Inspection {
  const entries = messages.map(entryOf);
  return { queue: DLQ, total: entries.length, truncated: false, groups: groupEntries(entries), ranges: [], archived: [], alreadyApplied: [], appliedCheckProblems: [] };
}

test('inspect shows a bare message whose body holds escape sequences escaped', () => {
  const text = formatInspection('stack S', inspectionOf([message('m-1', `view ${HOSTILE}\r\nline two`)]));
  expect(text).not.toMatch(ACTED_ON);
  expect(text).toContain(`  original  view ${SHOWN}\\r\n            line two`);
});

test("inspect shows a wrapper's error, consumer, event id, stack and original body escaped, in the table and the example", () => {
  const text = formatInspection('stack S', inspectionOf([message('m-2', JSON.stringify(wrapper()))]));
  expect(text).not.toMatch(ACTED_ON);
  expect(text).toMatch(new RegExp(`\\| SchemaViolationError${escapeRegExp(SHOWN)} +\\| page-view-counter${escapeRegExp(SHOWN)} +\\| wrapper +\\|`));
  expect(text).toContain(`SchemaViolationError${SHOWN} (page-view-counter${SHOWN}), 1 message(s):`);
  expect(text).toContain(`  message   payload.page: expected string, got ${SHOWN}`);
  expect(text).toContain(`  event     page.viewed e-${SHOWN}`);
  expect(text).toContain(`  original  {"page":"${SHOWN}"}`);
  expect(text).toContain(`            at handler (${SHOWN}.js:1:1)`);
});

test("inspect's already-applied lines and lookup problems are escaped", () => {
  const inspection = { ...inspectionOf([message('m-1', 'x')]), alreadyApplied: [{ messageId: 'm-1', eventId: `e-${HOSTILE}`, consumer: 'page-view-counter', table: 'Idempotency', errorType: 'MovedBySqs' }], appliedCheckProblems: [`reading failed: ${HOSTILE}`] };
  const text = formatInspection('stack S', inspection);
  expect(text).not.toMatch(ACTED_ON);
  expect(text).toContain(`dedup record page-view-counter#e-${SHOWN} in Idempotency`);
  expect(text).toContain(`! not labelled: reading failed: ${SHOWN}`);
});

test("redrive's summary shows a message's error type, consumer, reason and a stop reason escaped", () => {
  const result: RedriveResult = {
    queue: DLQ,
    dryRun: false,
    filter: '',
    selected: 2,
    redriven: 0,
    skipped: 0,
    cameBack: 0,
    cameBackSent: 0,
    failed: 1,
    refused: 1,
    pastRetention: 0,
    pastDedupWindow: 0,
    uncheckedSources: [`arn:aws:sqs:us-east-1:000000000000:legacy${HOSTILE}`],
    records: 0,
    stoppedEarly: `a republish failed: ${HOSTILE}`,
    details: [
      { messageId: 'm-3', kind: 'wrapper', errorType: `Boom${HOSTILE}`, consumer: `c${HOSTILE}`, status: 'failed', reason: `republish failed: ${HOSTILE}` },
      { messageId: 'm-4', kind: 'wrapper', errorType: 'Boom', consumer: 'c', status: 'refused', target: `arn:aws:sqs:us-east-1:000000000000:payments${HOSTILE}`, reason: `names arn:aws:sqs:us-east-1:000000000000:payments${HOSTILE}` },
    ],
  };
  const text = formatRedrive('stack S', result);
  expect(text).not.toMatch(ACTED_ON);
  expect(text).toContain(`  failed            m-3  Boom${SHOWN} (c${SHOWN}): republish failed: ${SHOWN}`);
  expect(text).toContain(`Stopped early: a republish failed: ${SHOWN}.`);
  expect(text).toContain(`payments${SHOWN}`);
  expect(text).toContain(`queue legacy${SHOWN}.`);
});

test('list shows a queue name from the stack escaped too', () => {
  const text = formatListing('stack S', [{ ...DLQ, name: `Dlq${HOSTILE}`, visible: 1, inFlight: 0, peeked: 1, truncated: false }]);
  expect(text).not.toMatch(ACTED_ON);
  expect(text).toContain(`Dlq${SHOWN}`);
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
