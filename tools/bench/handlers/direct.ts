/**
 * `direct`: ours, for an external effect. Our consumer with `directStrategy` (records of a standard
 * queue's batch run concurrently, its default limit) and the effect made idempotent by
 * `idempotentEffect`, which is Powertools' `makeIdempotent` with a DynamoDB record beside the
 * effect. It counts the same page views with plain `UpdateItem`s, as the peer does: the target is
 * to stay within 1.2x of the peer's time per batch for the same effect.
 */
import { createConsumer, directStrategy, idempotentEffect, route, sharedClients, SourceKind, type BatchHandler } from '../../../lambdas/runtime';
import { pageViewEffects, PAGE_VIEWED } from '../../../example/handlers/page-view-counter';
import { applyIncrements, pageViewPayload, tablesFromEnv, type BenchWiring } from './common';

interface CountViewInput {
  readonly idempotencyKey: string;
  readonly pageId: string;
  readonly occurredAt: string;
}

/** The consumer name, and the prefix of its idempotency records. */
const CONSUMER = 'bench-direct';

export function createDirectHandler(wiring: BenchWiring): BatchHandler {
  const countView = idempotentEffect(async (input: CountViewInput) => {
    await applyIncrements(wiring.dynamodb, pageViewEffects(wiring.countersTable, input.pageId, input.occurredAt));
    return { counted: true };
  }, { table: wiring.idempotencyTable, dynamodb: wiring.dynamodb, consumer: CONSUMER });
  return createConsumer({
    name: CONSUMER,
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
  fromEnv ??= createDirectHandler({ ...tablesFromEnv(), dynamodb: sharedClients().dynamodb });
  return fromEnv(event, context);
};
