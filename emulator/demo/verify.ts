/**
 * Checks the final state against what exactly-once effects of the workload must produce, and
 * accounts for every published event: applied, or in a DLQ with its context.
 */
import { dedupKey } from '../../lambdas/runtime/stores/dynamodb/dedup-record';
import { CONSUMER_NAME as LEDGER_CONSUMER } from '../../example/handlers/account-ledger';
import { CONSUMER_NAME as PAYMENTS_CONSUMER } from '../../example/handlers/invoice-payments';
import { type FailureEnvelope } from '../../aws/dlq-format';
import type { ExpectedState } from './expected';
import { checkNotifications, type NotificationCheck } from './notifications';
import type { PublishedMessage } from './publisher';
import { dlqDepth, type FinalState, type OnFailurePointer } from './state';
import type { WorkloadEvent } from './workload';

export interface Mismatch {
  readonly key: string;
  readonly expected: unknown;
  readonly actual: unknown;
}

export interface Verification {
  readonly effects: { readonly exact: boolean; readonly mismatches: Mismatch[] };
  readonly notifications: NotificationCheck;
  readonly dlq: {
    readonly messages: number;
    readonly withContext: number;
    /**
     * Messages without context whose events were applied: their acknowledgements were lost on
     * every receive until SQS moved them (maxReceiveCount), as it would on AWS. A redrive of them
     * changes nothing.
     */
    readonly appliedWithoutContext: number;
    /**
     * Messages without context whose events are in a DLQ with their context as well: the runtime
     * dead-lettered the event on the message's final receive, and SQS then moved the message itself
     * (that invocation's acknowledgement was lost, or the message was received again while its final
     * receive ran), as it would on AWS. A redrive of both applies the event once.
     */
    readonly copiesOfDeadLettered: number;
    readonly poison: number;
    readonly poisonPublished: number;
  };
  /** Valid events neither applied nor in a DLQ. */
  readonly lost: number;
  readonly lostExamples: string[];
  readonly alarms: { readonly notifications: number; readonly alarmed: boolean; readonly recoveredToOk: boolean };
}

export interface VerifyInput {
  readonly expected: ExpectedState;
  readonly state: FinalState;
  readonly published: readonly PublishedMessage[];
  /** The consumer whose dedup records mark committed page views. */
  readonly counterConsumer: string;
  /** A DLQ should have held something at some point: then an ALARM notification is required. */
  readonly dlqEverNonEmpty: boolean;
  /** The DLQs' alarms: only their notifications answer for a DLQ that held messages (a consumer's error alarm does not). @default - every alarm's */
  readonly dlqAlarmNames?: ReadonlySet<string>;
  /** Shipped orders whose notification waits in a DLQ for the redrive: not missing yet. @default - none */
  readonly pendingNotifications?: ReadonlySet<string>;
}

export function verify(input: VerifyInput): Verification {
  const { expected, state } = input;
  const mismatches = [
    ...compareRecords('counter', expected.counters, state.counters),
    ...compareRecords('order', expected.orders, state.orders),
    ...compareRecords('ledger', expected.ledger, state.ledger),
    ...compareRecords('invoice', expected.invoices, state.invoices),
    ...compareRecords('payment', expected.payments, state.payments),
  ];
  const dlqMessages = state.dlqs.reduce((sum, dlq) => sum + dlqDepth(dlq), 0);
  const withContext = state.dlqs.reduce((sum, dlq) => sum + dlq.failures.length + dlq.pointers.length, 0);
  const lost = lostEvents(input);
  return {
    effects: { exact: mismatches.length === 0, mismatches },
    notifications: checkNotifications(expected, state, input.pendingNotifications),
    dlq: { messages: dlqMessages, withContext, appliedWithoutContext: appliedWithoutContext(input), copiesOfDeadLettered: copiesOfDeadLettered(input), ...poisonAccounting(input) },
    lost: lost.length,
    lostExamples: lost.slice(0, 5),
    alarms: alarmAccounting(state, input.dlqEverNonEmpty, input.dlqAlarmNames),
  };
}

function compareRecords(prefix: string, expected: Record<string, unknown>, actual: Record<string, unknown>): Mismatch[] {
  const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
  const mismatches: Mismatch[] = [];
  for (const key of [...keys].sort()) {
    if (JSON.stringify(expected[key]) !== JSON.stringify(actual[key])) mismatches.push({ key: `${prefix}:${key}`, expected: expected[key] ?? null, actual: actual[key] ?? null });
  }
  return mismatches;
}

/** Each distinct valid event must be applied (committed, or superseded by a newer version) or be in a DLQ. */
function lostEvents(input: VerifyInput): string[] {
  const failures = new Set(input.state.dlqs.flatMap((dlq) => dlq.failures).map((failure) => failure.eventId).filter(Boolean));
  const pointers = input.state.dlqs.flatMap((dlq) => dlq.pointers);
  const lost: string[] = [];
  const seen = new Set<string>();
  for (const message of input.published) {
    const envelope = message.event.envelope;
    if (!envelope || seen.has(envelope.eventId)) continue;
    seen.add(envelope.eventId);
    if (failures.has(envelope.eventId) || isApplied(message.event, input.state, input.counterConsumer) || coveredByPointer(input.published, envelope.eventId, pointers)) continue;
    lost.push(`${message.event.kind} ${envelope.eventId}`);
  }
  return lost;
}

/** DLQ messages without failure context that are the original body of an event that was applied. */
function appliedWithoutContext(input: VerifyInput): number {
  const published = new Map(input.published.map((message) => [message.body, message.event]));
  return input.state.dlqs.flatMap((dlq) => dlq.bare).filter((body) => {
    const event = published.get(body);
    return event !== undefined && isApplied(event, input.state, input.counterConsumer);
  }).length;
}

/** DLQ messages without failure context, their events not applied, whose events a DLQ also holds with their context. */
function copiesOfDeadLettered(input: VerifyInput): number {
  const published = new Map(input.published.map((message) => [message.body, message.event]));
  const withContext = new Set(input.state.dlqs.flatMap((dlq) => dlq.failures).map((failure) => failure.eventId).filter(Boolean));
  return input.state.dlqs.flatMap((dlq) => dlq.bare).filter((body) => {
    const event = published.get(body);
    return event?.envelope !== undefined && !isApplied(event, input.state, input.counterConsumer) && withContext.has(event.envelope.eventId);
  }).length;
}

/** Committed (its consumer's dedup record exists), or for an order change: the order is at its version or newer. */
export function isApplied(event: WorkloadEvent, state: Pick<FinalState, 'committedIds' | 'orders'>, counterConsumer: string): boolean {
  const envelope = event.envelope;
  if (!envelope) return false;
  if (event.kind === 'ledger-entry') return state.committedIds.has(dedupKey(LEDGER_CONSUMER, envelope.eventId));
  // The SQL dedup row's key is the DynamoDB record's (docs/patterns/sql-dedup.md, "The schema").
  if (event.kind === 'payment') return state.committedIds.has(dedupKey(PAYMENTS_CONSUMER, envelope.eventId));
  if (event.kind !== 'order-status') return state.committedIds.has(dedupKey(counterConsumer, envelope.eventId));
  const { orderId, version } = envelope.payload as { orderId: string; version: number };
  return (state.orders[orderId]?.version ?? 0) >= version;
}

/** A stream record in the range of an on-failure pointer is retrievable from the stream: not lost. */
function coveredByPointer(published: readonly PublishedMessage[], eventId: string, pointers: readonly OnFailurePointer[]): boolean {
  if (pointers.length === 0) return false;
  return published.some((message) => {
    if (message.event.envelope?.eventId !== eventId || !message.sequenceNumber) return false;
    const sequence = BigInt(message.sequenceNumber);
    return pointers.some((pointer) => BigInt(pointer.startSequenceNumber) <= sequence && sequence <= BigInt(pointer.endSequenceNumber));
  });
}

/** Every poison message published must sit in a DLQ with its original body. */
function poisonAccounting(input: VerifyInput): { poison: number; poisonPublished: number } {
  const bodies = new Map<string, number>();
  for (const failure of input.state.dlqs.flatMap((dlq) => dlq.failures)) {
    const body = originalText(failure);
    bodies.set(body, (bodies.get(body) ?? 0) + 1);
  }
  let poison = 0;
  const poisonMessages = input.published.filter((message) => message.event.kind === 'poison');
  for (const message of poisonMessages) {
    const left = bodies.get(message.body) ?? 0;
    if (left > 0) {
      poison += 1;
      bodies.set(message.body, left - 1);
    }
  }
  return { poison, poisonPublished: poisonMessages.length };
}

function originalText(failure: FailureEnvelope): string {
  return failure.original.encoding === 'base64' ? Buffer.from(failure.original.body, 'base64').toString('utf8') : failure.original.body;
}

function alarmAccounting(state: FinalState, dlqEverNonEmpty: boolean, dlqAlarmNames: ReadonlySet<string> | undefined): Verification['alarms'] {
  const ofDlqs = state.alarmNotifications.filter((notification) => dlqAlarmNames === undefined || dlqAlarmNames.has(notification.alarmName));
  const alarmed = ofDlqs.some((notification) => notification.state === 'ALARM');
  return { notifications: state.alarmNotifications.length, alarmed: alarmed || !dlqEverNonEmpty, recoveredToOk: ofDlqs.some((notification) => notification.state === 'OK') };
}
