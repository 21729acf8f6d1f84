import type { TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { dedupPutAction, type DedupIdentity, type DedupSettings } from './dedupRecord';
import { incrementAction, itemIdOf, mergeIncrements, updateAction, type Effect, type Increment, type ItemKey } from './effects';
import { PermanentError } from './errors';
import { TRANSACTION_LIMITS } from './transaction';

/** An event whose effects are ready to commit with its dedup record. */
export interface PendingCommit extends DedupIdentity {
  /** Position in the batch, to map outcomes back to records. */
  readonly index: number;
  readonly effects: readonly Effect[];
}

/** Room for the dedup put's own fields beside the event id. */
const DEDUP_PUT_BYTES = 160;
const ACTION_OVERHEAD_BYTES = 120;

/** Events that can commit in one transaction: no item is touched by two unmergeable effects. */
export class Chunk {
  public readonly events: PendingCommit[] = [];
  /** Item id -> whether every effect on it so far is an increment (and so can absorb more). */
  private readonly items = new Map<string, boolean>();
  private bytes = 0;

  /** Adds the event when it fits the transaction limits and touches no item it may not; says whether it did. */
  public tryAdd(event: PendingCommit): boolean {
    const newItems = this.newItemsOf(event);
    if (newItems === undefined) return false;
    const actions = this.events.length + this.items.size + 1 + newItems.size;
    const bytes = this.bytes + estimateBytes(event);
    if (this.events.length > 0 && (actions > TRANSACTION_LIMITS.maxActions || bytes > TRANSACTION_LIMITS.maxBytes)) return false;
    this.events.push(event);
    for (const [itemId, mergeable] of newItems) this.items.set(itemId, mergeable);
    this.bytes = bytes;
    return true;
  }

  /** The items this event adds, or undefined when it clashes with one already here. */
  private newItemsOf(event: PendingCommit): Map<string, boolean> | undefined {
    const added = new Map<string, boolean>();
    for (const effect of event.effects) {
      const itemId = itemIdOf(effect);
      const mergeable = effect.kind === 'increment';
      const existing = this.items.get(itemId);
      if (existing !== undefined && !(existing && mergeable)) return undefined;
      if (existing === undefined) added.set(itemId, mergeable);
    }
    return added;
  }
}

/** Chunks to commit, plus the events that no transaction can hold. */
export interface ChunkPlan {
  readonly chunks: readonly Chunk[];
  readonly rejected: readonly { readonly event: PendingCommit; readonly error: PermanentError }[];
}

/**
 * Splits events, in order, into transactions of at most 100 actions and about 4 MB, where each
 * event's dedup put and effects land in the same transaction. An event that cannot fit a
 * transaction by itself is rejected with a permanent error.
 */
export function planChunks(events: readonly PendingCommit[]): ChunkPlan {
  const chunks: Chunk[] = [];
  const rejected: { event: PendingCommit; error: PermanentError }[] = [];
  let current = new Chunk();
  for (const event of events) {
    const problem = uncommittableReason(event);
    if (problem) {
      rejected.push({ event, error: new PermanentError(problem) });
    } else if (!current.tryAdd(event)) {
      chunks.push(current);
      current = new Chunk();
      current.tryAdd(event);
    }
  }
  if (current.events.length > 0) chunks.push(current);
  return { chunks, rejected };
}

/**
 * The actions of one transaction: every event's dedup put first (so that a cancellation reason's
 * index names its event), then one action per item, increments of an item summed.
 */
export function buildActions(settings: DedupSettings, events: readonly PendingCommit[], expiration: number): TransactWriteItem[] {
  const dedupPuts = events.map((event) => dedupPutAction(settings, event, expiration));
  return [...dedupPuts, ...effectActions(events.flatMap((event) => event.effects))];
}

function effectActions(effects: readonly Effect[]): TransactWriteItem[] {
  const increments = new Map<string, Increment[]>();
  const actions: TransactWriteItem[] = [];
  for (const effect of effects) {
    if (effect.kind === 'update') actions.push(updateAction(effect));
    else increments.set(itemIdOf(effect), [...(increments.get(itemIdOf(effect)) ?? []), effect]);
  }
  for (const group of increments.values()) {
    const { table, key } = group[0] as { table: string; key: ItemKey };
    actions.push(incrementAction(table, key, mergeIncrements(group)));
  }
  return actions;
}

function uncommittableReason(event: PendingCommit): string | undefined {
  const kindsByItem = new Map<string, Set<Effect['kind']>>();
  for (const effect of event.effects) {
    const kinds = kindsByItem.get(itemIdOf(effect)) ?? new Set();
    if (kinds.size > 0 && (effect.kind === 'update' || kinds.has('update'))) {
      return `the effects of event ${event.eventId} touch ${itemIdOf(effect)} twice with updates that cannot be merged`;
    }
    kindsByItem.set(itemIdOf(effect), kinds.add(effect.kind));
  }
  if (estimateBytes(event) > TRANSACTION_LIMITS.maxBytes) {
    return `event ${event.eventId} is about ${estimateBytes(event)} bytes of transaction; at most ${TRANSACTION_LIMITS.maxBytes} fit in one`;
  }
  const actions = 1 + kindsByItem.size;
  if (actions > TRANSACTION_LIMITS.maxActions) {
    return `event ${event.eventId} needs ${actions} transaction actions; at most ${TRANSACTION_LIMITS.maxActions} fit in one`;
  }
  return undefined;
}

function estimateBytes(event: PendingCommit): number {
  let bytes = DEDUP_PUT_BYTES + event.eventId.length;
  for (const effect of event.effects) bytes += ACTION_OVERHEAD_BYTES + JSON.stringify(effect).length;
  return bytes;
}
