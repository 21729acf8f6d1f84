/**
 * The ledger's handler file of the SQL stack test, as the docs write one with `sqlHandler`: each
 * `ledger.entry` adds its amount to its account's balance, in one transaction with its dedup row,
 * through the Data API on what `SqlEffectDatabase.connect` set.
 */
import { z } from 'zod';
import { route, sqlHandler, sqlIncrement } from '../../../lambdas/runtime';

const entry = z.object({ account: z.string(), amount: z.number().int() });

export const handler = sqlHandler({
  name: 'ledger',
  routes: () => ({ 'ledger.entry': route(entry, (event) => [sqlIncrement('balances', { account: event.payload.account }, 'amount', event.payload.amount)]) }),
});
