/**
 * What the final state must be, computed from the workload alone: the reference the demo's
 * effects are checked against.
 */
import { ORDER_STATUSES, type WorkloadEvent } from './workload';

export interface ExpectedState {
  /** `page#<id>` and `day#<YYYY-MM-DD>` -> views. */
  readonly counters: Record<string, number>;
  /** orderId -> its latest status and version. */
  readonly orders: Record<string, { status: string; version: number }>;
  /** Orders that must have been notified exactly once. */
  readonly shippedOrders: readonly string[];
  /** accountId -> the seq of its entries in the order they were published, and the sum of their amounts. */
  readonly ledger: Record<string, LedgerAccount>;
  /** invoiceId -> the sum of its payments in cents (PostgreSQL's `invoices`). */
  readonly invoices: Record<string, number>;
  /** paymentId -> its row of PostgreSQL's `payments`: one per payment. */
  readonly payments: Record<string, PaymentRow>;
}

/** A payment as its row records it. */
export interface PaymentRow {
  readonly invoiceId: string;
  readonly amountCents: number;
}

/** An account of the ledger: the order its entries applied in, and its balance. */
export interface LedgerAccount {
  readonly history: number[];
  readonly balance: number;
}

export interface ExpectationOptions {
  /** Count schema-2 page views too (after the fix is deployed and the DLQ redriven). @default false */
  readonly includeSchemaV2?: boolean;
  /** Leave out events that are not there yet, e.g. failures waiting in a DLQ for the redrive. @default - none */
  readonly skip?: (event: WorkloadEvent) => boolean;
}

/** The state that exactly-once effects of the workload's valid events produce. */
export function expectedState(workload: readonly WorkloadEvent[], options: ExpectationOptions = {}): ExpectedState {
  const counters: Record<string, number> = {};
  const orders: Record<string, { status: string; version: number }> = {};
  const ledger: Record<string, LedgerAccount> = {};
  const invoices: Record<string, number> = {};
  const payments: Record<string, PaymentRow> = {};
  const seen = new Set<string>();
  for (const event of workload) {
    if (!event.envelope || seen.has(event.envelope.eventId) || options.skip?.(event) === true) continue;
    seen.add(event.envelope.eventId);
    if (event.kind === 'page-view' || (event.kind === 'page-view-v2' && options.includeSchemaV2)) countView(counters, event);
    if (event.kind === 'order-status') keepLatest(orders, event);
    if (event.kind === 'ledger-entry') append(ledger, event);
    if (event.kind === 'payment') pay(invoices, payments, event);
  }
  const shipped = ORDER_STATUSES[ORDER_STATUSES.length - 1];
  const shippedOrders = Object.entries(orders).filter(([, order]) => order.status === shipped).map(([orderId]) => orderId).sort();
  return { counters, orders, shippedOrders, ledger, invoices, payments };
}

function pay(invoices: Record<string, number>, payments: Record<string, PaymentRow>, event: WorkloadEvent): void {
  const { paymentId, invoiceId, amountCents } = event.envelope?.payload as { paymentId: string; invoiceId: string; amountCents: number };
  payments[paymentId] = { invoiceId, amountCents };
  invoices[invoiceId] = (invoices[invoiceId] ?? 0) + amountCents;
}

function append(ledger: Record<string, LedgerAccount>, event: WorkloadEvent): void {
  const { accountId, seq, amount } = event.envelope?.payload as { accountId: string; seq: number; amount: number };
  const account = ledger[accountId] ?? { history: [], balance: 0 };
  ledger[accountId] = { history: [...account.history, seq], balance: account.balance + amount };
}

function countView(counters: Record<string, number>, event: WorkloadEvent): void {
  const payload = event.envelope?.payload as { pageId?: string; page?: { id: string } };
  const pageId = payload.pageId ?? payload.page?.id ?? '';
  const day = new Date(event.envelope?.occurredAt ?? '').toISOString().slice(0, 10);
  for (const key of [`page#${pageId}`, `day#${day}`]) counters[key] = (counters[key] ?? 0) + 1;
}

function keepLatest(orders: Record<string, { status: string; version: number }>, event: WorkloadEvent): void {
  const { orderId, status, version } = event.envelope?.payload as { orderId: string; status: string; version: number };
  const current = orders[orderId];
  if (!current || current.version < version) orders[orderId] = { status, version };
}
