/**
 * `naive`: the effect alone. Each page view adds to its counters with `UpdateItem`, and nothing
 * remembers that it did: a redelivered record counts again. The baseline, wrong under duplicates.
 * (The consumer still drops duplicates inside one batch, as it does for every strategy.)
 */
import { createConsumer, directStrategy, route, sharedClients, SourceKind, type BatchHandler } from '../../../lambdas/runtime';
import { pageViewEffects, PAGE_VIEWED } from '../../../example/handlers/page-view-counter';
import { applyIncrements, pageViewPayload, tablesFromEnv, type BenchWiring } from './common';

export function createNaiveHandler(wiring: BenchWiring): BatchHandler {
  return createConsumer({
    name: 'bench-naive',
    source: SourceKind.SQS,
    routes: {
      [PAGE_VIEWED]: route(pageViewPayload, async (event) => {
        await applyIncrements(wiring.dynamodb, pageViewEffects(wiring.countersTable, event.payload.pageId, event.occurredAt));
      }),
    },
    strategy: directStrategy(),
  });
}

let fromEnv: BatchHandler | undefined;

export const handler: BatchHandler = (event, context) => {
  fromEnv ??= createNaiveHandler({ ...tablesFromEnv(), dynamodb: sharedClients().dynamodb });
  return fromEnv(event, context);
};
