import type { TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { dedupPutAction, type DedupIdentity, type DedupSettings } from './dedup-record';
import { incrementAction, itemIdOf, mergeIncrements, onShardNumber, updateAction, type Effect, type Increment } from './effects';
import { bySharedItems } from './item-grouping';
import { shardFor } from './sharding';
import { PermanentError } from '../../core/errors';
import { TRANSACTION_LIMITS } from './transaction';

/** An event whose effects are ready to commit with its dedup record. */
export interface PendingCommit extends DedupIdentity {
  /** Position in the batch, to map outcomes back to records. */
  readonly index: number;
  readonly effects: readonly Effect[];
  /**
   * The source delivered this record before (SQS `ApproximateReceiveCount` > 1), so it may well be
   * a duplicate: its dedup record is looked up before any transaction.
   * @default false
   */
  readonly redelivered?: boolean;
}

/** Room for the dedup put's own fields beside the event id. */
const DEDUP_PUT_BYTES = 160;
const ACTION_OVERHEAD_BYTES = 120;
/** Room for an increment's number beside its item id and attribute name. */
const INCREMENT_VALUE_BYTES = 32;

/** Item ids by effect: worked out when an event is planned, read again when its chunk's actions are built. */
const itemIds = new WeakMap<Effect, string>();

/**
 * What a transaction needs to know of one event, worked out once per event: the items its effects
 * touch (item id -> whether every effect on it is an increment, and so can absorb more), the
 * sharded counters among them (item id of the unsharded key -> shards), and about how many bytes of
 * request it adds.
 */
interface Footprint {
  readonly items: ReadonlyMap<string, boolean>;
  readonly shards: ReadonlyMap<string, number>;
  readonly bytes: number;
}

/**
 * Events that can commit in one transaction: no item is touched by two unmergeable effects. A
 * sharded counter is one item here (its increments merge into one action, on one shard).
 */
export class Chunk {
  public readonly events: PendingCommit[] = [];
  private readonly items = new Map<string, boolean>();
  private readonly shards = new Map<string, number>();
  private bytes = 0;

  /** Actions of the transaction so far: a dedup put per event, one action per item. */
  public get actions(): number {
    return this.events.length + this.items.size;
  }

  /** Adds the event when it fits the transaction limits and touches no item it may not; says whether it did. */
  public tryAdd(event: PendingCommit, footprint: Footprint): boolean {
    const newItems = this.newItemsOf(footprint);
    if (newItems === undefined || !this.fits(footprint, newItems.length)) return false;
    this.events.push(event);
    for (const itemId of newItems) this.items.set(itemId, footprint.items.get(itemId) === true);
    for (const [itemId, shards] of footprint.shards) this.shards.set(itemId, shards);
    this.bytes += footprint.bytes;
    return true;
  }

  /** How many items the event would add to this transaction, or undefined when it may not join it. */
  public costOf(footprint: Footprint): number | undefined {
    const newItems = this.newItemsOf(footprint);
    return newItems !== undefined && this.fits(footprint, newItems.length) ? newItems.length : undefined;
  }

  /**
   * True when the two chunks' transactions would touch a common item when they commit at once,
   * `apart` positions from each other in their wave: an unsharded item both touch, or a sharded
   * counter both touch whose shards their positions do not tell apart (shards are taken in
   * consecutive order from the consumer's lane, so positions `apart` differ by `apart` modulo N).
   */
  public overlaps(other: Chunk, apart = 0): boolean {
    const [smaller, larger] = this.items.size <= other.items.size ? [this, other] : [other, this];
    for (const itemId of smaller.items.keys()) {
      if (!larger.items.has(itemId)) continue;
      const shards = this.shards.get(itemId);
      if (shards === undefined || apart % shards === 0) return true;
    }
    return false;
  }

  /** The items this event adds, or undefined when it clashes with one already here. */
  private newItemsOf(footprint: Footprint): string[] | undefined {
    const added: string[] = [];
    for (const [itemId, mergeable] of footprint.items) {
      const existing = this.items.get(itemId);
      if (existing === undefined) added.push(itemId);
      else if (!(existing && mergeable)) return undefined;
    }
    return added;
  }

  /** Within 100 actions and the byte limit with the event's dedup put and new items; an empty chunk takes any event that fits a transaction alone. */
  private fits(footprint: Footprint, newItems: number): boolean {
    if (this.events.length === 0) return true;
    return this.actions + 1 + newItems <= TRANSACTION_LIMITS.maxActions && this.bytes + footprint.bytes <= TRANSACTION_LIMITS.maxBytes;
  }
}

/** Chunks to commit, plus the events that no transaction can hold. */
export interface ChunkPlan {
  readonly chunks: readonly Chunk[];
  readonly rejected: readonly { readonly event: PendingCommit; readonly error: PermanentError }[];
}

/** How {@link planChunks} may arrange the events. */
export interface PlanOptions {
  /**
   * Chunks take the events in batch order, as ordered sources need (a FIFO message group, a
   * Kinesis or DynamoDB Streams shard). When false, the plan may reorder the events to write fewer
   * items (see {@link planChunks}).
   * @default true
   */
  readonly keepOrder?: boolean;
}

/**
 * Splits events into transactions of at most 100 actions and about 4 MB, where each event's dedup
 * put and effects land in the same transaction. An event that cannot fit a transaction by itself is
 * rejected with a permanent error.
 *
 * A batch's floor in write units is its dedup records plus each distinct item its events touch,
 * each written once: an item touched from two chunks is written twice. With `keepOrder`, chunks
 * fill in batch order, and a popular page's counter lands in every chunk whose events view it.
 * Without it, events that share items are placed together ({@link bySharedItems}), and each goes to
 * the chunk it adds the fewest items to, so that a shared item is cut across chunks mostly where a
 * chunk fills up. What is left above the floor is a few items per chunk boundary: the page being
 * placed when a chunk fills, and the days of pages whose views span days (1.7% and 2.5% above the
 * floor on two batches of 100 page views, test/lambdas/runtime/stores/dynamodb/batch-floor.int.test.ts).
 */
export function planChunks(events: readonly PendingCommit[], options: PlanOptions = {}): ChunkPlan {
  const planned: Planned[] = [];
  const rejected: { event: PendingCommit; error: PermanentError }[] = [];
  for (const event of events) {
    const footprint = footprintOf(event);
    if (footprint instanceof PermanentError) rejected.push({ event, error: footprint });
    else planned.push({ event, footprint });
  }
  return { chunks: (options.keepOrder ?? true) ? fillInOrder(planned) : packByItems(planned), rejected };
}

/** An event with its footprint. */
interface Planned {
  readonly event: PendingCommit;
  readonly footprint: Footprint;
}

/** Each chunk filled in turn: the next event opens a new chunk when it does not fit the current one. */
function fillInOrder(planned: readonly Planned[]): Chunk[] {
  const chunks: Chunk[] = [];
  let current = new Chunk();
  for (const { event, footprint } of planned) {
    if (current.tryAdd(event, footprint)) continue;
    chunks.push(current);
    current = new Chunk();
    current.tryAdd(event, footprint);
  }
  if (current.events.length > 0) chunks.push(current);
  return chunks;
}

/**
 * Chunks still open to events when the planner does not keep order: a few, the latest, so that
 * planning stays linear in the batch. Events sharing items arrive together, so earlier chunks have
 * little left to offer them.
 */
const OPEN_CHUNKS = 8;

/** Events placed together by the items they share, each into the open chunk it adds the fewest items to (the latest, among equals). */
function packByItems(planned: readonly Planned[]): Chunk[] {
  const chunks: Chunk[] = [];
  for (const { event, footprint } of bySharedItems(planned, ({ footprint }) => footprint.items.keys())) {
    let chunk = cheapestOf(chunks.slice(-OPEN_CHUNKS), footprint);
    if (chunk === undefined) chunks.push((chunk = new Chunk()));
    chunk.tryAdd(event, footprint);
  }
  return chunks;
}

function cheapestOf(open: readonly Chunk[], footprint: Footprint): Chunk | undefined {
  let cheapest: Chunk | undefined;
  let lowest = Number.POSITIVE_INFINITY;
  for (let position = open.length - 1; position >= 0 && lowest > 0; position -= 1) {
    const chunk = open[position] as Chunk;
    const cost = chunk.costOf(footprint);
    if (cost !== undefined && cost < lowest) [cheapest, lowest] = [chunk, cost];
  }
  return cheapest;
}

/**
 * Groups chunks, in order, into waves whose chunks share no item, at most `maxPerWave` to a wave:
 * the transactions of one wave can run at once without conflicting with each other.
 */
export function disjointWaves(chunks: readonly Chunk[], maxPerWave: number): Chunk[][] {
  const waves: Chunk[][] = [];
  let wave: Chunk[] = [];
  for (const chunk of chunks) {
    if (wave.length >= maxPerWave || wave.some((other, position) => other.overlaps(chunk, wave.length - position))) {
      waves.push(wave);
      wave = [];
    }
    wave.push(chunk);
  }
  if (wave.length > 0) waves.push(wave);
  return waves;
}

/** Which shard of a counter of `shards` shards a transaction writes. */
export type ShardChoice = (shards: number) => number;

/**
 * The actions of one transaction: every event's dedup put first (so that a cancellation reason's
 * index names its event), then one action per item, increments of an item summed. Each sharded
 * counter lands on the shard `shardOf` chooses (by default, a hash of the first event's id), so
 * that all of one counter's increments stay one action.
 */
export function buildActions(settings: DedupSettings, events: readonly PendingCommit[], expiration: number, shardOf: ShardChoice = (shards) => shardFor(events[0]?.eventId ?? '', shards)): TransactWriteItem[] {
  const dedupPuts = events.map((event) => dedupPutAction(settings, event, expiration));
  return [...dedupPuts, ...effectActions(events.flatMap((event) => event.effects), shardOf)];
}

function effectActions(effects: readonly Effect[], shardOf: ShardChoice): TransactWriteItem[] {
  const increments = new Map<string, Increment[]>();
  const actions: TransactWriteItem[] = [];
  for (const effect of effects) {
    if (effect.kind === 'update') {
      actions.push(updateAction(effect));
      continue;
    }
    const landed = effect.sharding === undefined ? effect : onShardNumber(effect, shardOf(effect.sharding.shards));
    const itemId = landed === effect ? cachedItemIdOf(effect) : itemIdOf(landed);
    const group = increments.get(itemId);
    if (group) group.push(landed);
    else increments.set(itemId, [landed]);
  }
  for (const group of increments.values()) {
    const [{ table, key }] = group as [Increment, ...Increment[]];
    actions.push(incrementAction(table, key, mergeIncrements(group)));
  }
  return actions;
}

/** The event's footprint, or why no transaction can hold it. */
function footprintOf(event: PendingCommit): Footprint | PermanentError {
  const items = new Map<string, boolean>();
  const shards = new Map<string, number>();
  let bytes = DEDUP_PUT_BYTES + event.eventId.length;
  for (const effect of event.effects) {
    const itemId = cachedItemIdOf(effect);
    const mergeable = effect.kind === 'increment';
    if (effect.kind === 'increment' && effect.sharding !== undefined) shards.set(itemId, effect.sharding.shards);
    const existing = items.get(itemId);
    if (existing !== undefined && !(existing && mergeable)) {
      return new PermanentError(`the effects of event ${event.eventId} touch ${itemId} twice with updates that cannot be merged`);
    }
    items.set(itemId, mergeable);
    bytes += ACTION_OVERHEAD_BYTES + bytesOf(effect, itemId);
  }
  if (bytes > TRANSACTION_LIMITS.maxBytes) {
    return new PermanentError(`event ${event.eventId} is about ${bytes} bytes of transaction; at most ${TRANSACTION_LIMITS.maxBytes} fit in one`);
  }
  if (1 + items.size > TRANSACTION_LIMITS.maxActions) {
    return new PermanentError(`event ${event.eventId} needs ${1 + items.size} transaction actions; at most ${TRANSACTION_LIMITS.maxActions} fit in one`);
  }
  return { items, shards, bytes };
}

function cachedItemIdOf(effect: Effect): string {
  let itemId = itemIds.get(effect);
  if (itemId === undefined) itemIds.set(effect, (itemId = itemIdOf(effect)));
  return itemId;
}

/** About how many bytes the effect adds to a request: an increment is its item, attribute and number; an update is serialized. */
function bytesOf(effect: Effect, itemId: string): number {
  return effect.kind === 'increment' ? itemId.length + effect.attribute.length + INCREMENT_VALUE_BYTES : JSON.stringify(effect).length;
}
