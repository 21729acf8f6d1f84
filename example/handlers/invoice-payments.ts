/**
 * invoice-payments (SQS, PostgreSQL): records each `payment.received` as a row of `payments` and
 * adds its amount to its invoice's `paid_cents`, in one PostgreSQL transaction with the batch's
 * dedup rows (docs/patterns/sql-dedup.md). A redelivered payment finds its dedup row and changes
 * nothing; a payment the database refuses (its CHECK, a second payment with the same id under
 * another event id) fails alone, to the DLQ with its context, and the rest of the batch commits.
 * The function reaches the database through the RDS Data API, as `SqlEffectDatabase.connect`
 * wired it: no VPC, no connection pool.
 */
import { en } from 'zod/locales';
import * as z from 'zod/mini';
import { route, sqlHandler, sqlIncrement, sqlInsert, type BatchHandler, type SqlEffects, type SqlHandlerOptions } from '../../lambdas/runtime';
import { INVOICES_TABLE, PAYMENTS_TABLE } from '../invoice-payments-schema';

z.config(en());

export const CONSUMER_NAME = 'invoice-payments';
export const PAYMENT_RECEIVED = 'payment.received';

/** `{ paymentId, invoiceId, amountCents }`: a payment of `amountCents` towards the invoice. */
const paymentPayload = z.object({
  paymentId: z.string().check(z.minLength(1), z.maxLength(128)),
  invoiceId: z.string().check(z.minLength(1), z.maxLength(128)),
  amountCents: z.number().check(z.int()),
});
export type PaymentPayload = z.infer<typeof paymentPayload>;

/**
 * The payment's row, and its amount added to its invoice. Both are structured effects, so the
 * strategy may send a batch's payment rows together and sum an invoice's payments into one
 * statement, where the tables' catalog proves that nothing could tell the difference from applying
 * the payments one at a time (docs/patterns/sql-dedup.md).
 */
export function paymentEffects(payment: PaymentPayload): SqlEffects {
  return [
    sqlInsert(PAYMENTS_TABLE, { payment_id: payment.paymentId, invoice_id: payment.invoiceId, amount_cents: payment.amountCents }),
    sqlIncrement(INVOICES_TABLE, { invoice_id: payment.invoiceId }, 'paid_cents', payment.amountCents),
  ];
}

/** The consumer, built from the environment `SqlEffectDatabase.connect` and the consumer construct set. */
export function createInvoicePayments(options: Partial<Pick<SqlHandlerOptions, 'env' | 'clients' | 'session'>> = {}): BatchHandler {
  return sqlHandler({ ...options, name: CONSUMER_NAME, routes: () => ({ [PAYMENT_RECEIVED]: route(paymentPayload, (event) => paymentEffects(event.payload)) }) });
}

let fromEnv: BatchHandler | undefined;

/** The Lambda entry point; configured from the environment on first use. */
export const handler: BatchHandler = (event, context) => {
  fromEnv ??= createInvoicePayments();
  return fromEnv(event, context);
};
