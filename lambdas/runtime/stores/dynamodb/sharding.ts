/**
 * Sharded counters: an increment of a hot item (a day's total that every event adds to) goes to
 * one of N shard items instead, so that concurrent transactions rarely touch the same item (a
 * `TransactionConflict` otherwise) and no item takes more than its share of DynamoDB's 1,000 write
 * units per second per item. A read sums the shards (`readCounter`).
 *
 * Shard `n` of a key is the key with `#shard-<n>` appended to one of its string attributes (the
 * partition key, so that shards spread over partitions): `{ pk: 'day#2026-12-01' }` has the shards
 * `{ pk: 'day#2026-12-01#shard-0' }` ... `#shard-<N-1>`. The unsharded item itself is read too,
 * so that a counter sharded after it had counted keeps its count.
 *
 * Which shard is chosen does not matter for exactness (the dedup record, in the same transaction,
 * decides whether an event applies), only for who contends with whom. A transaction's increments
 * of one counter land on one shard, so that they stay one action: the shard of the committer's
 * lane (`shard-lane.ts`). An increment applied outside a transaction (by `UpdateItem`) lands on the
 * shard a hash of its event id picks (`shardFor`).
 */
import type { ItemKey } from './effects';

/** The most shards one counter may have: a read is then 11 `BatchGetItem` requests of 100 keys. */
export const MAX_SHARDS = 1000;

/** The text between a key's value and its shard number. */
export const SHARD_SEPARATOR = '#shard-';

const SHARD_SUFFIX = new RegExp(`${SHARD_SEPARATOR}(\\d+)$`);

/** How a counter is sharded: how many shards, and which key attribute carries the shard number. */
export interface Sharding {
  /** 1 to {@link MAX_SHARDS}; 1 is the unsharded item. */
  readonly shards: number;
  /** @default the key's only attribute */
  readonly shardAttribute?: string;
}

/**
 * Checks a sharding against its key: a whole number of shards in range, and an attribute of the key
 * whose value is a string. Returns the attribute.
 *
 * @throws RangeError naming what is wrong
 */
export function checkSharding(key: ItemKey, sharding: Sharding): string {
  const { shards } = sharding;
  if (!Number.isInteger(shards) || shards < 1 || shards > MAX_SHARDS) throw new RangeError(`shards must be a whole number from 1 to ${MAX_SHARDS} (given ${shards})`);
  const names = Object.keys(key);
  const attribute = sharding.shardAttribute ?? (names.length === 1 ? names[0] : undefined);
  if (attribute === undefined) throw new RangeError(`a sharded key with ${names.length} attributes (${names.join(', ')}) must name its shardAttribute`);
  if (typeof key[attribute] !== 'string') throw new RangeError(`the shard attribute ${attribute} must be a string attribute of the key (given ${JSON.stringify(key[attribute])})`);
  return attribute;
}

/** Shard `shard` of `key`: the value of `attribute` with `#shard-<shard>` appended. */
export function shardKey(key: ItemKey, attribute: string, shard: number): ItemKey {
  return { ...key, [attribute]: `${String(key[attribute])}${SHARD_SEPARATOR}${shard}` };
}

/** Every item a read of the counter sums: the unsharded key first, then its shards 0 to N-1. */
export function counterKeys(key: ItemKey, sharding: Sharding): ItemKey[] {
  if (sharding.shards === 1) return [key];
  const attribute = checkSharding(key, sharding);
  return [key, ...Array.from({ length: sharding.shards }, (_, shard) => shardKey(key, attribute, shard))];
}

/** The shard a seed picks among `shards`: FNV-1a of the seed, modulo the count. */
export function shardFor(seed: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < seed.length; index += 1) {
    hash ^= seed.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % shards;
}

/**
 * The counter a stored key value belongs to: `day#2026-12-01#shard-7` is a shard of
 * `day#2026-12-01`. For readers that scan a table and fold its shards into their counters.
 */
export function unshardedValue(value: string): string {
  return value.replace(SHARD_SUFFIX, '');
}
