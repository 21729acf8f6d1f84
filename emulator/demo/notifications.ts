/**
 * The shipment notifications check: exactly one notification per shipped order, by order. A
 * shipped order that was never notified is named, whatever else the run got right: its event was
 * applied (the order is SHIPPED), so it never shows up as a lost event.
 */
import type { ExpectedState } from './expected';
import type { FinalState } from './state';

/** How many orders a violation names before it says "and N more". */
const EXAMPLES = 5;

export interface NotificationCheck {
  readonly expected: number;
  readonly sent: number;
  readonly exact: boolean;
  /** Shipped orders with no notification (and none waiting in a DLQ). */
  readonly missing: readonly string[];
  /** Orders notified more than once. */
  readonly duplicated: readonly string[];
  /** Orders notified that are not shipped. */
  readonly unexpected: readonly string[];
  /** Shipped orders whose notification waits in a DLQ for the redrive (first phase only). */
  readonly pending: number;
}

/** Compares the notifications sent with the shipped orders; `pending` orders may still be missing. */
export function checkNotifications(expected: ExpectedState, state: FinalState, pending: ReadonlySet<string> = new Set()): NotificationCheck {
  const counts = new Map<string, number>();
  for (const { orderId } of state.notifications) counts.set(orderId, (counts.get(orderId) ?? 0) + 1);
  const shipped = new Set(expected.shippedOrders);
  const unnotified = expected.shippedOrders.filter((orderId) => !counts.has(orderId));
  const missing = unnotified.filter((orderId) => !pending.has(orderId));
  const duplicated = [...counts].filter(([, count]) => count > 1).map(([orderId]) => orderId).sort();
  const unexpected = [...counts.keys()].filter((orderId) => !shipped.has(orderId)).sort();
  const exact = missing.length === 0 && duplicated.length === 0 && unexpected.length === 0;
  return { expected: expected.shippedOrders.length, sent: state.notifications.length, exact, missing, duplicated, unexpected, pending: unnotified.length - missing.length };
}

/** The notification invariants that failed, each naming its orders. */
export function notificationViolations(check: NotificationCheck): string[] {
  return [
    check.missing.length > 0 ? `${check.missing.length} shipped orders were never notified (${examples(check.missing)})` : undefined,
    check.duplicated.length > 0 ? `${check.duplicated.length} orders were notified more than once (${examples(check.duplicated)})` : undefined,
    check.unexpected.length > 0 ? `${check.unexpected.length} notifications are for orders that are not shipped (${examples(check.unexpected)})` : undefined,
  ].filter((violation): violation is string => violation !== undefined);
}

function examples(orderIds: readonly string[]): string {
  const shown = orderIds.slice(0, EXAMPLES).join(', ');
  return orderIds.length > EXAMPLES ? `${shown} and ${orderIds.length - EXAMPLES} more` : shown;
}
