/**
 * The real page-view-counter over a queue with its DLQ on the shared engines, before and after the
 * fix that accepts schema 2, for the DLQ tooling's tests: their failures are the runtime's own.
 */
import { createPageViewCounter } from '../../../example/handlers/page-view-counter';
import { createEnvelope, type BatchHandler, type Envelope } from '../../../lambdas/runtime';
import type { LocalClients } from '../../../emulator/engines';
import type { CreatedQueue } from '../../helpers/engines';
import { idempotencyTable, pkTable, queueWithDlq } from '../../helpers/fixtures';

/** Few receives, so that SQS moves a message after a short loop (support.ts, `letSqsMoveAll`). */
export const MAX_RECEIVE_COUNT = 2;

const noWait = { sleep: async () => undefined, maxAttempts: 2 };

export interface PageViewConsumer {
  readonly queue: CreatedQueue;
  readonly dlq: CreatedQueue;
  readonly countersTable: string;
  /** The consumer's dedup table. */
  readonly idempotency: string;
  /** The consumer before the fix: schema 2 is a permanent failure. */
  readonly before: BatchHandler;
  /** The consumer after the fix. */
  readonly after: BatchHandler;
}

/** Fresh tables, a queue whose redrive policy moves to its DLQ after {@link MAX_RECEIVE_COUNT} receives, and the consumer. */
export async function pageViewConsumer(clients: LocalClients, prefix: string): Promise<PageViewConsumer> {
  const [idempotency, counters, { queue, dlq }] = await Promise.all([idempotencyTable(clients.dynamodb), pkTable(clients.dynamodb, 'counters'), queueWithDlq(clients.sqs, prefix, MAX_RECEIVE_COUNT)]);
  const handlerFor = (acceptSchemaV2: boolean) =>
    createPageViewCounter({ countersTable: counters.tableName, idempotencyTable: idempotency, dlqUrl: dlq.url, sourceQueueUrl: queue.url, maxAttempts: 5, acceptSchemaV2, clients, retry: noWait });
  return { queue, dlq, countersTable: counters.tableName, idempotency, before: handlerFor(false), after: handlerFor(true) };
}

/** A page view in schema 2, which the consumer refuses until the fix. */
export function pageViewV2(id: string, note = ''): Envelope {
  return createEnvelope({ type: 'page.viewed', businessKey: `v2:${id}`, source: 'test', payload: { schemaVersion: 2, page: { id }, ...(note && { note }) }, occurredAt: '2026-11-30T12:00:00.000Z' });
}
