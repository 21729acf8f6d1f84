/**
 * The demo's workload: page views, order status changes, account ledger entries and invoice
 * payments, generated from a seed, plus the poison
 * and later-schema events that a real producer fleet sends by mistake. Everything here is pure: the
 * same options give the same events.
 */
import { createEnvelope, type Envelope } from '../../lambdas/runtime';
import { chance, pick, seededRandom } from '../faults/random';
import type { Random } from '../types';

export const PAGE_VIEWED = 'page.viewed';
export const ORDER_STATUS_CHANGED = 'order.status-changed';
export const LEDGER_ENTRY = 'ledger.entry';
export const PAYMENT_RECEIVED = 'payment.received';
/** The order lifecycle, by version. */
export const ORDER_STATUSES = ['CREATED', 'PAID', 'SHIPPED'] as const;

export type Target = 'page-views' | 'orders' | 'ledger' | 'payments';

/** One logical event of the workload, before any producer retry. */
export interface WorkloadEvent {
  readonly target: Target;
  /** The raw body or record data the producer sends. */
  readonly body: string;
  /** Kinesis partition key (the order id), so that one order's records share a shard; the ledger's FIFO message group (the account). */
  readonly partitionKey?: string;
  readonly kind: 'page-view' | 'page-view-v2' | 'order-status' | 'ledger-entry' | 'payment' | 'poison';
  /** Present on valid events. */
  readonly envelope?: Envelope;
}

export interface WorkloadOptions {
  readonly events: number;
  readonly seed: number;
  /** Share of events that are poison (malformed bodies, unknown types). @default 0.01 */
  readonly poisonRate?: number;
  /** Share of page views in the later schema 2 (`{schemaVersion: 2, page: {id}}`). @default 0.01 */
  readonly schemaV2Rate?: number;
  /** Share of order events published ahead of an older version of the same order. @default 0.1 */
  readonly outOfOrderRate?: number;
  /** Share of valid events that are account ledger entries (through the FIFO queue). @default 0.1 */
  readonly ledgerShare?: number;
  /** Share of valid events that are invoice payments (through the payments queue, into PostgreSQL). @default 0.1 */
  readonly paymentShare?: number;
  /** Share of the other valid events that are page views; the rest are order status changes. @default 0.7 */
  readonly pageViewShare?: number;
  /** @default 40 */
  readonly pages?: number;
  /** @default 3 */
  readonly days?: number;
}

const DEFAULT_PAGE_VIEW_SHARE = 0.7;
const DEFAULT_LEDGER_SHARE = 0.1;
const DEFAULT_PAYMENT_SHARE = 0.1;
/** Payments go to this many invoices, so that a batch often pays one invoice more than once. */
const INVOICES = 25;
/** A payment is 1 cent to this many. */
const MAX_PAYMENT_CENTS = 50_000;
/** An account has 1 to this many entries. */
const MAX_ENTRIES_PER_ACCOUNT = 8;
const FIRST_DAY = Date.UTC(2026, 10, 28);
const DAY_MS = 86_400_000;

/** Generates the workload in publish order. */
export function generateWorkload(options: WorkloadOptions): WorkloadEvent[] {
  const random = seededRandom(options.seed);
  const poisonCount = Math.round(options.events * (options.poisonRate ?? 0.01));
  const validCount = options.events - poisonCount;
  const ledgerCount = Math.round(validCount * (options.ledgerShare ?? DEFAULT_LEDGER_SHARE));
  const paymentCount = Math.round(validCount * (options.paymentShare ?? DEFAULT_PAYMENT_SHARE));
  const otherCount = validCount - ledgerCount - paymentCount;
  if (otherCount < 0) throw new RangeError(`the ledger and payment shares add up to more than every valid event (${options.ledgerShare ?? DEFAULT_LEDGER_SHARE} + ${options.paymentShare ?? DEFAULT_PAYMENT_SHARE})`);
  const pageViewCount = Math.round(otherCount * (options.pageViewShare ?? DEFAULT_PAGE_VIEW_SHARE));
  const events = [
    ...pageViews(random, pageViewCount, options),
    ...orderEvents(random, otherCount - pageViewCount, options.outOfOrderRate ?? 0.1),
    ...ledgerEntries(random, ledgerCount),
    ...payments(random, paymentCount),
    ...Array.from({ length: poisonCount }, (_, i) => poisonEvent(random, i)),
  ];
  return shuffleKeepingOrders(random, events);
}

function pageViews(random: Random, count: number, options: WorkloadOptions): WorkloadEvent[] {
  const pages = options.pages ?? 40;
  const days = options.days ?? 3;
  return Array.from({ length: count }, (_, i) => {
    const pageId = `page-${pick(random, pages)}`;
    const occurredAt = new Date(FIRST_DAY + pick(random, days) * DAY_MS + pick(random, DAY_MS)).toISOString();
    const v2 = chance(random, options.schemaV2Rate ?? 0.01);
    const payload = v2 ? { schemaVersion: 2, page: { id: pageId } } : { pageId };
    const envelope = createEnvelope({ type: PAGE_VIEWED, businessKey: `view-${i}`, source: 'demo.web', payload, occurredAt });
    return { target: 'page-views', body: JSON.stringify(envelope), kind: v2 ? 'page-view-v2' : 'page-view', envelope };
  });
}

/**
 * Orders get versions 1..k of CREATED, PAID, SHIPPED (k drawn per order), so that some orders end
 * shipped and some not. Out of order at times: a version published before the one below it.
 */
function orderEvents(random: Random, count: number, outOfOrderRate: number): WorkloadEvent[] {
  const events: WorkloadEvent[] = [];
  for (let order = 0; events.length < count; order += 1) {
    const versions = Math.min(1 + pick(random, ORDER_STATUSES.length), count - events.length);
    const orderEvents = Array.from({ length: versions }, (_, v) => orderEvent(`order-${order}`, v + 1));
    if (versions > 1 && chance(random, outOfOrderRate)) swapLastTwo(orderEvents);
    events.push(...orderEvents);
  }
  return events;
}

function orderEvent(orderId: string, version: number): WorkloadEvent {
  const payload = { orderId, status: ORDER_STATUSES[version - 1] as string, version };
  const occurredAt = new Date(FIRST_DAY + version * 60_000).toISOString();
  const envelope = createEnvelope({ type: ORDER_STATUS_CHANGED, businessKey: `${orderId}:${version}`, source: 'demo.orders', payload, occurredAt });
  return { target: 'orders', body: JSON.stringify(envelope), partitionKey: orderId, kind: 'order-status', envelope };
}

/**
 * Accounts get entries 1..k (k drawn per account) of amounts in cents, published in that order:
 * the FIFO queue keeps an account's order, and the ledger's history must show it.
 */
function ledgerEntries(random: Random, count: number): WorkloadEvent[] {
  const events: WorkloadEvent[] = [];
  for (let account = 0; events.length < count; account += 1) {
    const entries = Math.min(1 + pick(random, MAX_ENTRIES_PER_ACCOUNT), count - events.length);
    for (let seq = 1; seq <= entries; seq += 1) events.push(ledgerEntry(`account-${account}`, seq, pick(random, 20_000) - 5_000));
  }
  return events;
}

function ledgerEntry(accountId: string, seq: number, amount: number): WorkloadEvent {
  const envelope = createEnvelope({ type: LEDGER_ENTRY, businessKey: `${accountId}:${seq}`, source: 'demo.ledger', payload: { accountId, seq, amount }, occurredAt: new Date(FIRST_DAY + seq * 60_000).toISOString() });
  return { target: 'ledger', body: JSON.stringify(envelope), partitionKey: accountId, kind: 'ledger-entry', envelope };
}

/** Payments of 1 cent to MAX_PAYMENT_CENTS towards one of INVOICES invoices, each with a payment id of its own. */
function payments(random: Random, count: number): WorkloadEvent[] {
  return Array.from({ length: count }, (_, i) => {
    const payload = { paymentId: `payment-${i}`, invoiceId: `invoice-${pick(random, INVOICES)}`, amountCents: 1 + pick(random, MAX_PAYMENT_CENTS) };
    const envelope = createEnvelope({ type: PAYMENT_RECEIVED, businessKey: payload.paymentId, source: 'demo.billing', payload, occurredAt: new Date(FIRST_DAY + i * 1000).toISOString() });
    return { target: 'payments', body: JSON.stringify(envelope), kind: 'payment', envelope };
  });
}

function swapLastTwo<T>(items: T[]): void {
  const last = items.length - 1;
  [items[last - 1], items[last]] = [items[last] as T, items[last - 1] as T];
}

/** Poison of the kinds producers really send: not JSON, the wrong shape, an unknown type. */
const POISON_BODIES: readonly ((i: number) => string)[] = [
  (i) => `not json ${i}`,
  (i) => JSON.stringify({ eventId: i, type: PAGE_VIEWED, occurredAt: '2026-11-30T00:00:00Z', source: 'demo', payload: { pageId: 'x' } }),
  (i) => JSON.stringify({ eventId: `poison-${i}`, type: 'page.clicked', occurredAt: '2026-11-30T00:00:00Z', source: 'demo', payload: {} }),
  (i) => JSON.stringify({ eventId: `poison-${i}`, type: PAGE_VIEWED, occurredAt: 'yesterday', source: 'demo', payload: { pageId: 'x' } }),
  (i) => `{"eventId": "poison-${i}", "truncated`,
];

function poisonEvent(random: Random, i: number): WorkloadEvent {
  const target: Target = chance(random, DEFAULT_PAGE_VIEW_SHARE) ? 'page-views' : 'orders';
  const body = (POISON_BODIES[pick(random, POISON_BODIES.length)] as (i: number) => string)(i);
  return { target, body, partitionKey: target === 'orders' ? `poison-${i}` : undefined, kind: 'poison' };
}

/** Shuffles the workload while keeping each order's events in their (possibly swapped) order, and each account's entries in theirs. */
function shuffleKeepingOrders(random: Random, events: readonly WorkloadEvent[]): WorkloadEvent[] {
  const keyed = events.map((event, index) => ({ event, index, key: random() }));
  const firstKeyOfOrder = new Map<string, number>();
  for (const item of keyed) {
    const orderId = item.event.kind === 'order-status' || item.event.kind === 'ledger-entry' ? `${item.event.kind}:${item.event.partitionKey}` : undefined;
    if (orderId === undefined) continue;
    const first = firstKeyOfOrder.get(orderId);
    if (first === undefined) firstKeyOfOrder.set(orderId, item.key);
    else item.key = first + item.index * 1e-12;
  }
  return keyed.sort((a, b) => a.key - b.key || a.index - b.index).map((item) => item.event);
}
