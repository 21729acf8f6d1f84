/**
 * `batch`: ours, batch commit. The page-view counter as deployed: a batch's events chunked into
 * transactions of up to 100 actions, increments of one counter summed, each counter over the
 * deployed stack's shards.
 */
import { sharedClients, type BatchHandler } from '../../../lambdas/runtime';
import { PAGE_VIEW_COUNTER_SHARDS } from '../../../example/counter-shards';
import { createPageViewCounter } from '../../../example/handlers/page-view-counter';
import type { BenchWiring } from './common';

export function createBatchHandler(wiring: BenchWiring): BatchHandler {
  const { countersTable, idempotencyTable, dynamodb } = wiring;
  return createPageViewCounter({ countersTable, idempotencyTable, consumerName: 'bench-batch', mode: 'batch', counterShards: PAGE_VIEW_COUNTER_SHARDS, clients: { ...sharedClients(), dynamodb } });
}

export { handler } from '../../../example/handlers/page-view-counter';
