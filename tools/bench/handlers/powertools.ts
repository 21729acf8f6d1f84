/**
 * `powertools`: per-record idempotency with Powertools' `makeIdempotent` (through
 * `idempotentEffect`), keyed on the event id. Per new event: a conditional put of the idempotency
 * record, the effect's `UpdateItem`s, and an update of the record to COMPLETED. A redelivery costs
 * the conditional put, which fails and returns the stored record.
 */
import { createConsumer, directStrategy, idempotentEffect, route, sharedClients, SourceKind, type BatchHandler } from '../../../lambdas/runtime';
import { pageViewEffects, PAGE_VIEWED } from '../../../example/handlers/page-view-counter';
import { applyIncrements, pageViewPayload, tablesFromEnv, type BenchWiring } from './common';

interface CountViewInput {
  readonly idempotencyKey: string;
  readonly pageId: string;
  readonly occurredAt: string;
}

export function createPowertoolsHandler(wiring: BenchWiring): BatchHandler {
  const countView = idempotentEffect(async (input: CountViewInput) => {
    await applyIncrements(wiring.dynamodb, pageViewEffects(wiring.countersTable, input.pageId, input.occurredAt));
    return { counted: true };
  }, { table: wiring.idempotencyTable, dynamodb: wiring.dynamodb, consumer: 'bench-powertools' });
  return createConsumer({
    name: 'bench-powertools',
    source: SourceKind.SQS,
    routes: {
      [PAGE_VIEWED]: route(pageViewPayload, async (event, context) => {
        await countView({ idempotencyKey: event.eventId, pageId: event.payload.pageId, occurredAt: event.occurredAt }, context.lambdaContext);
      }),
    },
    strategy: directStrategy(),
  });
}

let fromEnv: BatchHandler | undefined;

export const handler: BatchHandler = (event, context) => {
  fromEnv ??= createPowertoolsHandler({ ...tablesFromEnv(), dynamodb: sharedClients().dynamodb });
  return fromEnv(event, context);
};
