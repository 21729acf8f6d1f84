/**
 * The demo's DLQ accounting: a message SQS moved to the DLQ without failure context is explained
 * only when its event was applied (its acknowledgements were lost until maxReceiveCount), or when
 * a DLQ holds its event with context (the runtime dead-lettered it on the final receive, and SQS
 * moved the message too); never when the event is missing from the state.
 */
import { DlqReason, FAILURE_FORMAT, FAILURE_FORMAT_VERSION, FailureKind, SourceKind, type FailureEnvelope } from '../../../aws/dlq-format';
import { type Envelope } from '../../../lambdas/runtime';
import { dedupKey } from '../../../lambdas/runtime/stores/dynamodb/dedup-record';
import { violationsOf } from '../../../emulator/demo/report';
import type { PublishedMessage } from '../../../emulator/demo/publisher';
import type { FinalState } from '../../../emulator/demo/state';
import { verify } from '../../../emulator/demo/verify';

const CONSUMER = 'page-view-counter';

function pageView(eventId: string): PublishedMessage {
  const envelope: Envelope = { eventId, type: 'PageViewed', occurredAt: '2026-11-30T09:00:00.000Z', source: 'test', payload: { pageId: 'home' } };
  const body = JSON.stringify(envelope);
  return { target: 'page-views', body, retry: false, event: { target: 'page-views', body, kind: 'page-view', envelope } };
}

/** The runtime's DLQ message for `message`: a last attempt that failed with a transient error. */
function deadLettered(message: PublishedMessage): FailureEnvelope {
  const at = '2026-11-30T09:01:00.000Z';
  return {
    format: FAILURE_FORMAT, version: FAILURE_FORMAT_VERSION, consumer: CONSUMER, reason: DlqReason.LAST_ATTEMPT,
    error: { name: 'ThrottlingException', message: 'Rate exceeded', kind: FailureKind.TRANSIENT },
    attempts: 6, firstFailureAt: at, lastFailureAt: at, eventId: message.event.envelope?.eventId, eventType: 'PageViewed',
    source: { kind: SourceKind.SQS, arn: 'arn:aws:sqs:us-east-1:000000000000:page-views', itemIdentifier: 'm-1' },
    original: { body: message.body, encoding: 'utf8' },
  };
}

function stateWith(committed: readonly string[], bareBodies: readonly string[], failures: readonly FailureEnvelope[] = []): FinalState {
  return {
    counters: {},
    orders: {},
    ledger: {},
    invoices: {},
    payments: {},
    notifications: [],
    dlqs: [{ queueName: 'page-view-dlq', failures: [...failures], pointers: [], bare: [...bareBodies] }],
    committedIds: new Set(committed.map((eventId) => dedupKey(CONSUMER, eventId))),
    alarmNotifications: [{ state: 'ALARM', alarmName: 'page-view-dlq-depth' }],
  };
}

function verified(committed: readonly string[], bareBodies: readonly string[], published: readonly PublishedMessage[], failures: readonly FailureEnvelope[] = []) {
  return verify({ expected: { counters: {}, orders: {}, shippedOrders: [], ledger: {}, invoices: {}, payments: {} }, state: stateWith(committed, bareBodies, failures), published, counterConsumer: CONSUMER, dlqEverNonEmpty: true });
}

test('a bare DLQ message whose event was applied is accounted for, and breaks no invariant', () => {
  const applied = pageView('applied-1');
  const verification = verified(['applied-1'], [applied.body], [applied]);
  expect(verification.dlq).toMatchObject({ messages: 1, withContext: 0, appliedWithoutContext: 1 });
  expect(verification.lost).toBe(0);
  expect(violationsOf(verification)).toEqual([]);
});

test('a bare DLQ message whose event was not applied is a violation, and the event is lost', () => {
  const missing = pageView('missing-1');
  const verification = verified([], [missing.body], [missing]);
  expect(verification.dlq).toMatchObject({ messages: 1, withContext: 0, appliedWithoutContext: 0 });
  expect(verification.lost).toBe(1);
  expect(violationsOf(verification)).toEqual(expect.arrayContaining(['1 DLQ messages carry no failure context and their events were neither applied nor dead-lettered with it']));
});

test('a bare DLQ message whose event a DLQ holds with context is a copy SQS moved, and breaks no invariant', () => {
  const failed = pageView('failed-1');
  const verification = verified([], [failed.body], [failed], [deadLettered(failed)]);
  expect(verification.dlq).toMatchObject({ messages: 2, withContext: 1, appliedWithoutContext: 0, copiesOfDeadLettered: 1 });
  expect(verification.lost).toBe(0);
  expect(violationsOf(verification)).toEqual([]);
});

test('a bare copy is explained only by a context message of its own event', () => {
  const failed = pageView('failed-1');
  const other = pageView('other-1');
  const verification = verified([], [failed.body], [failed, other], [deadLettered(other)]);
  expect(verification.dlq.copiesOfDeadLettered).toBe(0);
  expect(violationsOf(verification)).toEqual(expect.arrayContaining(['1 DLQ messages carry no failure context and their events were neither applied nor dead-lettered with it']));
});

test('a bare DLQ message that matches no published body is not explained', () => {
  const verification = verified([], ['{"not":"published"}'], []);
  expect(verification.dlq.appliedWithoutContext).toBe(0);
  expect(violationsOf(verification)).toEqual(['1 DLQ messages carry no failure context and their events were neither applied nor dead-lettered with it']);
});

test("only a DLQ alarm's ALARM answers for a DLQ that held messages: a consumer's Errors alarm does not", () => {
  const state = { ...stateWith([], []), alarmNotifications: [{ state: 'ALARM', alarmName: 'counter-errors' }, { state: 'OK', alarmName: 'page-view-dlq-depth' }] };
  const input = { expected: { counters: {}, orders: {}, shippedOrders: [], ledger: {}, invoices: {}, payments: {} }, state, published: [], counterConsumer: CONSUMER, dlqEverNonEmpty: true };
  expect(verify({ ...input, dlqAlarmNames: new Set(['page-view-dlq-depth']) }).alarms).toEqual({ notifications: 2, alarmed: false, recoveredToOk: true });
  expect(verify({ ...input, dlqAlarmNames: new Set(['page-view-dlq-depth', 'counter-errors']) }).alarms.alarmed).toBe(true);
  expect(verify(input).alarms.alarmed).toBe(true);
});
