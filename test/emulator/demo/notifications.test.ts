/**
 * A shipped order that was never notified is a violation the report names, however the rest of
 * the run went: its event was applied (the order is SHIPPED), so it never shows up as lost. In the
 * first phase a notification that waits in a DLQ for the redrive is not missing yet; the phase
 * after the redrive has nothing pending, and names it if it is still missing.
 */
import { checkNotifications, notificationViolations } from '../../../emulator/demo/notifications';
import { pendingRedrive, type StreamImage } from '../../../emulator/demo/pending';
import { violationsOf } from '../../../emulator/demo/report';
import type { FinalState, OnFailurePointer } from '../../../emulator/demo/state';
import { verify } from '../../../emulator/demo/verify';

const expected = { counters: {}, orders: { 'o-1': { status: 'SHIPPED', version: 3 }, 'o-2': { status: 'SHIPPED', version: 3 }, 'o-3': { status: 'PAID', version: 2 } }, shippedOrders: ['o-1', 'o-2'], ledger: {}, invoices: {}, payments: {} };

function state(notified: readonly string[], dlqs: FinalState['dlqs'] = []): FinalState {
  return {
    counters: {},
    orders: { 'o-1': { status: 'SHIPPED', version: 3 }, 'o-2': { status: 'SHIPPED', version: 3 }, 'o-3': { status: 'PAID', version: 2 } },
    ledger: {},
    invoices: {},
    payments: {},
    notifications: notified.map((orderId) => ({ orderId, eventId: `n-${orderId}` })),
    dlqs,
    committedIds: new Set(),
    alarmNotifications: [{ state: 'ALARM', alarmName: 'dlq-depth' }],
  };
}

test('a shipped order never notified is named, and is a violation although nothing is lost', () => {
  const verification = verify({ expected, state: state(['o-1']), published: [], counterConsumer: 'page-view-counter', dlqEverNonEmpty: false });
  expect(verification.lost).toBe(0);
  expect(verification.notifications).toMatchObject({ exact: false, missing: ['o-2'], pending: 0 });
  expect(violationsOf(verification)).toEqual(['1 shipped orders were never notified (o-2)']);
});

test('duplicates and notifications of orders not shipped are named too', () => {
  const check = checkNotifications(expected, state(['o-1', 'o-1', 'o-2', 'o-3']));
  expect(notificationViolations(check)).toEqual(['1 orders were notified more than once (o-1)', '1 notifications are for orders that are not shipped (o-3)']);
});

test('in the first phase, a notification waiting in a DLQ for the redrive is not missing yet', () => {
  const check = checkNotifications(expected, state(['o-1']), new Set(['o-2']));
  expect(check).toMatchObject({ exact: true, missing: [], pending: 1 });
});

const TABLE_STREAM = 'arn:aws:dynamodb:eu-west-1:000000000000:table/orders/stream/2026-12-01T00:00:00.000';

test('the shipped orders a table-stream pointer covers are read back from the stream, and are pending', async () => {
  const pointer: OnFailurePointer = { condition: 'RetryAttemptsExhausted', shardId: 'shard-0', startSequenceNumber: '100', endSequenceNumber: '300', batchSize: 3, streamArn: TABLE_STREAM };
  const images: StreamImage[] = [{ orderId: { S: 'o-2' }, status: { S: 'SHIPPED' }, version: { N: '3' } }, { orderId: { S: 'o-3' }, status: { S: 'PAID' }, version: { N: '2' } }];
  const read = jest.fn(async () => images);
  const pending = await pendingRedrive(state(['o-1'], [{ queueName: 'shipment-notifier-dlq', failures: [], pointers: [pointer], bare: [] }]), [], read);
  expect(read).toHaveBeenCalledWith(pointer);
  expect([...pending.shippedOrders]).toEqual(['o-2']);
});

test('after the redrive nothing is pending: a notification still missing is a violation', () => {
  const verification = verify({ expected, state: state(['o-1']), published: [], counterConsumer: 'page-view-counter', dlqEverNonEmpty: true });
  expect(violationsOf(verification)).toContain('1 shipped orders were never notified (o-2)');
});
