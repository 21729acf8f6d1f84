import type { AttributeValue, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { marshall, type NativeAttributeValue } from '@aws-sdk/util-dynamodb';

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
 * @example increment('counters', { pk: 'page#home' }, 'views', 1)
 */
export function increment(table: string, key: ItemKey, attribute: string, amount = 1): Increment {
  if (!Number.isFinite(amount)) throw new RangeError(`increment amount must be a finite number (given ${amount})`);
  return { kind: 'increment', table, key, attribute, amount };
}

/** Identifies the item an effect touches: a transaction may touch each item once. */
export function itemIdOf(effect: Pick<Effect, 'table' | 'key'>): string {
  const keyParts = Object.keys(effect.key).sort().map((name) => [name, effect.key[name]]);
  return JSON.stringify([effect.table, keyParts]);
}

/** Sums the increments of one item per attribute. */
export function mergeIncrements(increments: readonly Increment[]): Map<string, number> {
  const totals = new Map<string, number>();
  for (const { attribute, amount } of increments) totals.set(attribute, (totals.get(attribute) ?? 0) + amount);
  return totals;
}

/** The transaction action of one item's increments, summed per attribute. */
export function incrementAction(table: string, key: ItemKey, totals: ReadonlyMap<string, number>): TransactWriteItem {
  const names: Record<string, string> = {};
  const values: Record<string, AttributeValue> = {};
  const clauses = [...totals.entries()].map(([attribute, amount], index) => {
    names[`#a${index}`] = attribute;
    values[`:v${index}`] = { N: String(amount) };
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
