/**
 * What the first phase may find missing because the redrive will bring it: events whose curable
 * failure waits in a DLQ, and stream records an on-failure pointer covers. Malformed events and
 * unknown types are not pending: they stay in the DLQ for good.
 */
import type { FailureEnvelope } from '../../../aws/dlq-format';
import { pendingRedrive } from '../../../emulator/demo/pending';
import type { PublishedMessage } from '../../../emulator/demo/publisher';
import type { FinalState, OnFailurePointer } from '../../../emulator/demo/state';

function failure(eventId: string, name: string, kind: 'transient' | 'permanent'): FailureEnvelope {
  return {
    format: 'effectively-once/failure', version: 1, consumer: 'page-view-counter', reason: kind === 'transient' ? 'last-attempt' : 'permanent',
    error: { name, message: name, kind }, attempts: 5, firstFailureAt: '2026-12-01T09:00:00Z', lastFailureAt: '2026-12-01T09:00:05Z', eventId,
    source: { kind: 'sqs', arn: 'arn:aws:sqs:eu-west-1:000000000000:page-views', itemIdentifier: 'm-1' }, original: { body: '{}', encoding: 'utf8' },
  };
}

function orderRecord(eventId: string, sequenceNumber: string): PublishedMessage {
  const envelope = { eventId, type: 'order.status-changed', occurredAt: '2026-12-01T09:00:00.000Z', source: 'test', payload: { orderId: 'o-1', status: 'PAID', version: 2 } };
  const body = JSON.stringify(envelope);
  return { target: 'orders', body, retry: false, sequenceNumber, event: { target: 'orders', body, kind: 'order-status', envelope } };
}

function stateWith(dlqs: FinalState['dlqs']): FinalState {
  return { counters: {}, orders: {}, ledger: {}, invoices: {}, payments: {}, notifications: [], dlqs, committedIds: new Set(), alarmNotifications: [] };
}

test('curable wrappers and the stream records a Kinesis pointer covers are pending; permanent failures are not', async () => {
  const pointer: OnFailurePointer = { condition: 'RetryAttemptsExhausted', shardId: 'shard-0', startSequenceNumber: '200', endSequenceNumber: '300', batchSize: 2, streamArn: 'arn:aws:kinesis:eu-west-1:000000000000:stream/orders' };
  const state = stateWith([
    { queueName: 'page-views-dlq', failures: [failure('e-time', 'OutOfTimeError', 'transient'), failure('e-lock', 'EffectInProgressError', 'transient'), failure('e-v2', 'SchemaViolationError', 'permanent'), failure('e-bad', 'InvalidEnvelopeError', 'permanent')], pointers: [], bare: [] },
    { queueName: 'orders-dlq', failures: [], pointers: [pointer], bare: [] },
  ]);
  const published = [orderRecord('o-before', '100'), orderRecord('o-in', '250'), orderRecord('o-end', '300'), orderRecord('o-after', '301')];
  const pending = await pendingRedrive(state, published, async () => []);
  expect([...pending.eventIds].sort()).toEqual(['e-lock', 'e-time', 'e-v2', 'o-end', 'o-in']);
  expect(pending.shippedOrders.size).toBe(0);
});
