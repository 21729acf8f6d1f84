/**
 * The write units a workload must cost whatever commits it, given the project's rule that an
 * event's dedup record is written in the same transaction as its effects: per batch, one dedup
 * record per new event and one write per distinct item the new events touch (their increments
 * summed), each at a transactional write's 2 WRU (every item here is under 1 KB). In-batch copies
 * and redeliveries of events applied earlier cost no write at the floor: they can be told apart by
 * a read (read units, not counted here). A commit writes more than this when one item is written
 * by two transactions of a batch, when a sharded counter lands on several shards, or when a
 * duplicate cancels a transaction that then commits again.
 */
import type { SQSRecord } from 'aws-lambda';
import { itemIdOf } from '../../lambdas/runtime/stores/dynamodb/effects';
import { pageViewEffects } from '../../example/handlers/page-view-counter';
import type { Workload } from './workload';

/** A transactional write of an item under 1 KB: prepare and commit. */
const TRANSACTIONAL_WRITE_UNITS = 2;

/** The table the floor's items are named in; any name does, as only distinct items are counted. */
const COUNTERS = 'counters';

/** The floor of a workload's write units, in all and per record delivered. */
export interface WriteUnitFloor {
  readonly writeUnits: number;
  readonly perEvent: number;
}

/** The write-unit floor of the page-view workload, batch by batch in delivery order. */
export function writeUnitFloor(workload: Workload): WriteUnitFloor {
  const applied = new Set<string>();
  let writes = 0;
  for (const batch of workload.batches) {
    const fresh = newEvents(batch.Records, applied);
    const items = new Set(fresh.flatMap((view) => pageViewEffects(COUNTERS, view.pageId, view.occurredAt).map(itemIdOf)));
    writes += fresh.length + items.size;
  }
  const writeUnits = TRANSACTIONAL_WRITE_UNITS * writes;
  return { writeUnits, perEvent: writeUnits / workload.deliveries };
}

interface PageView {
  readonly eventId: string;
  readonly pageId: string;
  readonly occurredAt: string;
}

/** The batch's events not applied before (nor earlier in the batch); marks them applied. */
function newEvents(records: readonly SQSRecord[], applied: Set<string>): PageView[] {
  const fresh: PageView[] = [];
  for (const record of records) {
    const view = pageViewOf(record);
    if (applied.has(view.eventId)) continue;
    applied.add(view.eventId);
    fresh.push(view);
  }
  return fresh;
}

function pageViewOf(record: SQSRecord): PageView {
  const envelope = JSON.parse(record.body) as { eventId: string; occurredAt: string; payload: { pageId: string } };
  return { eventId: envelope.eventId, occurredAt: envelope.occurredAt, pageId: envelope.payload.pageId };
}
