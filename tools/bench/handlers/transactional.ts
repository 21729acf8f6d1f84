/**
 * `transactional`: ours, per record. The page-view counter in per-record mode: one
 * `TransactWriteItems` per event, holding its dedup put and its two increments.
 */
import { sharedClients, type BatchHandler } from '../../../lambdas/runtime';
import { configFromEnv, createPageViewCounter } from '../../../example/handlers/page-view-counter';
import type { BenchWiring } from './common';

export function createTransactionalHandler(wiring: BenchWiring): BatchHandler {
  const { countersTable, idempotencyTable, dynamodb } = wiring;
  return createPageViewCounter({ countersTable, idempotencyTable, consumerName: 'bench-transactional', mode: 'per-record', clients: { ...sharedClients(), dynamodb } });
}

let fromEnv: BatchHandler | undefined;

export const handler: BatchHandler = (event, context) => {
  fromEnv ??= createPageViewCounter({ ...configFromEnv(), mode: 'per-record' });
  return fromEnv(event, context);
};
