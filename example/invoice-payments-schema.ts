/**
 * The tables of `invoice-payments`, which `SqlEffectDatabase.addSchema` creates at deploy (and
 * local mode at provision), after the dedup table. Each statement is safe to run again.
 */

/** One row per payment, keyed by the producer's payment id; an amount that is not positive is refused by the database itself. */
export const PAYMENTS_TABLE = 'payments';

/** One row per invoice: the sum of its payments, in cents. */
export const INVOICES_TABLE = 'invoices';

export const INVOICE_PAYMENTS_SCHEMA: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS ${PAYMENTS_TABLE} (payment_id text PRIMARY KEY, invoice_id text NOT NULL, amount_cents bigint NOT NULL CHECK (amount_cents > 0))`,
  `CREATE TABLE IF NOT EXISTS ${INVOICES_TABLE} (invoice_id text PRIMARY KEY, paid_cents bigint NOT NULL)`,
];
