import type { AttributeValue, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { marshall, type NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { InvalidEffectError, messageOf } from '../../core/errors';
import { exactDecimalSum } from './decimal-sum';
import { checkSharding, shardFor, shardKey, type Sharding } from './sharding';

/** A DynamoDB key as plain values, e.g. `{ pk: 'page#home' }`. */
export type ItemKey = Readonly<Record<string, string | number>>;

/**
 * `ADD <attribute> :amount` on one item. Increments are the effect that batch commit can
 * aggregate: two increments of the same item in one transaction become one `ADD` of the sum.
 */
export interface Increment {
  readonly kind: 'increment';
  readonly table: string;
  readonly key: ItemKey;
  readonly attribute: string;
  readonly amount: number;
  /** Spread over shard items (`sharding.ts`); the transaction picks the shard. @default - the item itself */
  readonly sharding?: Required<Sharding>;
}

/** Options of {@link increment}. */
export interface IncrementOptions {
  /**
   * Spread the counter over this many shard items (1 to 1000), for an item that every event adds
   * to: each transaction adds to one shard, and a read sums them (`readCounter`). Never lower it
   * once counting: the shards above the new count would no longer be read.
   * @default 1 (the item itself)
   */
  readonly shards?: number;
  /** The key attribute whose value gets the shard suffix. @default the key's only attribute */
  readonly shardAttribute?: string;
}

/** Any other update of one item. It cannot be merged, so one transaction holds at most one per item. */
export interface Update {
  readonly kind: 'update';
  readonly table: string;
  readonly key: ItemKey;
  readonly updateExpression: string;
  readonly names?: Readonly<Record<string, string>>;
  readonly values?: Readonly<Record<string, NativeAttributeValue>>;
  readonly conditionExpression?: string;
}

/** The change an event makes, committed in the same transaction as its dedup record. */
export type Effect = Increment | Update;

/**
 * Builds an increment effect.
 * @example
 * ```ts
 * import { increment } from 'effectively-once/runtime';
 * const pageViews = increment('counters', { pk: 'page#home' }, 'views', 1);
 * const dayViews = increment('counters', { pk: 'day#2026-12-01' }, 'views', 1, { shards: 32 }); // a hot item, spread over 32 shards
 * ```
 * @throws RangeError for an amount that is not finite, or a sharding that does not fit the key
 */
export function increment(table: string, key: ItemKey, attribute: string, amount = 1, options: IncrementOptions = {}): Increment {
  if (!Number.isFinite(amount)) throw new RangeError(`increment amount must be a finite number (given ${amount})`);
  const shards = options.shards ?? 1;
  if (shards === 1) return { kind: 'increment', table, key, attribute, amount };
  const shardAttribute = checkSharding(key, { shards, shardAttribute: options.shardAttribute });
  return { kind: 'increment', table, key, attribute, amount, sharding: { shards, shardAttribute } };
}

/**
 * The increment as it lands when it is applied outside a transaction (by `UpdateItem`): on the
 * shard a hash of `seed` (the event id) picks, or on its item when it is not sharded.
 */
export function onShard(effect: Increment, seed: string): Increment {
  return effect.sharding === undefined ? effect : onShardNumber(effect, shardFor(seed, effect.sharding.shards));
}

/** The increment on shard `shard` of its counter (its item, when it is not sharded). */
export function onShardNumber(effect: Increment, shard: number): Increment {
  if (effect.sharding === undefined) return effect;
  return { kind: 'increment', table: effect.table, key: shardKey(effect.key, effect.sharding.shardAttribute, shard), attribute: effect.attribute, amount: effect.amount };
}

/**
 * Identifies the item an effect touches: a transaction may touch each item once. A sharded
 * counter's increments share one id (with its shard count), whichever shard they land on.
 */
export function itemIdOf(effect: Pick<Effect, 'table' | 'key'> & { readonly sharding?: Sharding }): string {
  const keyParts = Object.keys(effect.key).sort().map((name) => [name, effect.key[name]]);
  return JSON.stringify(effect.sharding === undefined ? [effect.table, keyParts] : [effect.table, keyParts, effect.sharding.shards]);
}

/**
 * Sums the increments of one item per attribute, exactly, in DynamoDB's decimal form
 * (decimal-sum.ts): the one `ADD` stores what the increments' own `ADD`s would, one at a time.
 */
export function mergeIncrements(increments: readonly Increment[]): Map<string, string> {
  const amounts = new Map<string, number[]>();
  for (const { attribute, amount } of increments) amounts.set(attribute, [...(amounts.get(attribute) ?? []), amount]);
  return new Map([...amounts].map(([attribute, each]) => [attribute, exactDecimalSum(each)]));
}

/** The transaction action of one item's increments, summed per attribute (decimal strings, as `N` values are). */
export function incrementAction(table: string, key: ItemKey, totals: ReadonlyMap<string, string>): TransactWriteItem {
  const names: Record<string, string> = {};
  const values: Record<string, AttributeValue> = {};
  const clauses = [...totals.entries()].map(([attribute, amount], index) => {
    names[`#a${index}`] = attribute;
    values[`:v${index}`] = { N: amount };
    return `#a${index} :v${index}`;
  });
  return {
    Update: {
      TableName: table,
      Key: marshall(key),
      UpdateExpression: `ADD ${clauses.join(', ')}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/** The transaction action of a single update. */
export function updateAction(effect: Update): TransactWriteItem {
  return {
    Update: {
      TableName: effect.table,
      Key: marshall(effect.key),
      UpdateExpression: effect.updateExpression,
      ExpressionAttributeNames: effect.names ? { ...effect.names } : undefined,
      ExpressionAttributeValues: effect.values ? marshall(effect.values, { removeUndefinedValues: true }) : undefined,
      ConditionExpression: effect.conditionExpression,
    },
  };
}

/**
 * Checks that every effect can become a transaction action, by building each one's action alone:
 * an unknown kind, a missing table or key, an undefined key value, a class instance among the
 * values or a non-finite increment would otherwise surface only when the whole transaction is
 * built. A handler that returns no array is caught here too.
 *
 * @throws InvalidEffectError naming the effect and why
 */
export function checkEffects(effects: unknown): void {
  if (!Array.isArray(effects)) throw new InvalidEffectError(`a transactional handler must return an array of effects (got ${effects === null ? 'null' : typeof effects})`);
  effects.forEach((effect: unknown, position) => checkEffect(effect, position));
}

function checkEffect(effect: unknown, position: number): void {
  const candidate = effect as Partial<Effect> | null;
  const where = `effect ${position}`;
  if (candidate?.kind !== 'increment' && candidate?.kind !== 'update') throw new InvalidEffectError(`${where} has kind ${JSON.stringify(candidate?.kind)}; expected "increment" or "update"`);
  if (typeof candidate.table !== 'string' || candidate.table === '') throw new InvalidEffectError(`${where} names no table`);
  if (typeof candidate.key !== 'object' || candidate.key === null || Object.keys(candidate.key).length === 0) throw new InvalidEffectError(`${where} on ${candidate.table} has no key`);
  if (candidate.kind === 'increment' && !(typeof candidate.attribute === 'string' && candidate.attribute !== '' && Number.isFinite(candidate.amount))) {
    throw new InvalidEffectError(`${where} on ${candidate.table} must increment a named attribute by a finite number (given ${JSON.stringify(candidate.attribute)} by ${candidate.amount})`);
  }
  if (candidate.kind === 'increment' && candidate.sharding !== undefined) checkShardingOf(candidate as Increment, where);
  try {
    if (candidate.kind === 'increment') incrementAction(candidate.table, candidate.key, new Map([[candidate.attribute as string, String(candidate.amount)]]));
    else updateAction(candidate as Update);
  } catch (error) {
    throw new InvalidEffectError(`${where} on ${candidate.table} cannot be marshalled: ${messageOf(error)}`, { cause: error });
  }
}

function checkShardingOf(effect: Increment, where: string): void {
  try {
    checkSharding(effect.key, effect.sharding as Sharding);
  } catch (error) {
    throw new InvalidEffectError(`${where} on ${effect.table} is sharded wrongly: ${messageOf(error)}`, { cause: error });
  }
}
