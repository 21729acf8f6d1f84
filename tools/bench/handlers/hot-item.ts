/**
 * The consumers of the hot-item scenario: the page-view counter's effects, with or without the
 * shared day counter, and with each counter sharded or not, under `batch` (batch commit) or
 * `powertools` (the peer: Powertools' own batch processor, per-record idempotency around plain
 * `UpdateItem`s), as the default scenario's strategies of the same names build them.
 */
import { createConsumer, route, SourceKind, transactionalStrategy, type BatchHandler, type Effect } from '../../../lambdas/runtime';
import { pageViewEffects, PAGE_VIEWED } from '../../../example/handlers/page-view-counter';
import { pageViewPayload, type BenchWiring } from './common';
import { createPeerHandler } from './powertools';

export const HOT_ITEM_STRATEGIES = ['batch', 'powertools'] as const;
export type HotItemStrategy = (typeof HOT_ITEM_STRATEGIES)[number];

/** What a hot-item consumer counts. */
export interface HotItemCounting {
  /** Every view also adds to its day's counter (the item all consumers share). */
  readonly sharedCounter: boolean;
  /** Shards of every counter; 1 for none. */
  readonly shards: number;
}

/** The effects of one view: the page's counter and, with `sharedCounter`, the day's. */
export function hotItemEffects(countersTable: string, pageId: string, occurredAt: string, counting: HotItemCounting): Effect[] {
  const effects = pageViewEffects(countersTable, pageId, occurredAt, counting.shards);
  return counting.sharedCounter ? effects : effects.filter((effect) => !String(effect.key.pk).startsWith('day#'));
}

/** One consumer (one Lambda execution environment) of the scenario. */
export function createHotItemHandler(strategy: HotItemStrategy, wiring: BenchWiring, counting: HotItemCounting): BatchHandler {
  const name = `bench-hot-${strategy}`;
  const effectsOf = (pageId: string, occurredAt: string) => hotItemEffects(wiring.countersTable, pageId, occurredAt, counting);
  if (strategy === 'batch') {
    return createConsumer({
      name,
      source: SourceKind.SQS,
      routes: { [PAGE_VIEWED]: route(pageViewPayload, (event) => effectsOf(event.payload.pageId, event.occurredAt)) },
      strategy: transactionalStrategy({ dynamodb: wiring.dynamodb, mode: 'batch', dedup: { table: wiring.idempotencyTable, consumer: name } }),
    });
  }
  return createPeerHandler(wiring, { name, effectsOf });
}
