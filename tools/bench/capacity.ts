/**
 * Write and read request units of the requests a strategy made, by DynamoDB's pricing rules
 * (DynamoDB Local does not report transactional capacity correctly, so they are computed):
 *
 * - A standard write (PutItem, UpdateItem, DeleteItem) costs 1 WRU per 1 KB of item, rounded up.
 *   A write whose condition fails still costs it.
 * - A transactional write costs 2 WRUs per 1 KB of each item in the transaction. What a cancelled
 *   transaction costs is not documented; we assume the worst: as much as if it had committed.
 * - A strongly consistent read costs 1 RRU per 4 KB per item requested, rounded up, whether the
 *   item exists or not; an eventually consistent one half that.
 * - A request refused for another reason (throttled, a server error, a validation error) is not
 *   charged.
 *
 * Item sizes follow DynamoDB's rules (attribute names plus values; a number is about one byte per
 * two significant digits, plus one). An `UpdateItem`'s item is estimated from its key and the
 * values it sets, which is exact for the counters and Powertools' records here: all far below
 * 1 KB, so every item write is 1 WRU (2 in a transaction).
 */
import type { AttributeValue, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import type { MeteredCall } from './metering';

const KB = 1024;
const READ_UNIT_BYTES = 4 * KB;
/** A transactional write is two writes of each item: prepare and commit. */
const TRANSACTIONAL_FACTOR = 2;

export interface Capacity {
  readonly requests: number;
  readonly writeUnits: number;
  readonly readUnits: number;
  /** Requests by command name, e.g. `{ TransactWriteItemsCommand: 12 }`. */
  readonly byCommand: Readonly<Record<string, number>>;
  /** Write units spent on cancelled transactions (included in `writeUnits`). */
  readonly cancelledWriteUnits: number;
}

/** Prices every call. */
export function capacityOf(calls: readonly MeteredCall[]): Capacity {
  const byCommand: Record<string, number> = {};
  let writeUnits = 0;
  let readUnits = 0;
  let cancelledWriteUnits = 0;
  for (const call of calls) {
    byCommand[call.command] = (byCommand[call.command] ?? 0) + 1;
    if (call.outcome === 'error') continue;
    const writes = writeUnitsOf(call);
    writeUnits += writes;
    if (call.outcome === 'cancelled') cancelledWriteUnits += writes;
    readUnits += readUnitsOf(call);
  }
  return { requests: calls.length, writeUnits, readUnits, byCommand, cancelledWriteUnits };
}

type Item = Readonly<Record<string, AttributeValue>>;

/**
 * Write units by item (the values of its key, `|`-joined: `day#2026-11-27`), for the hottest
 * item's share: every write the calls made, priced as {@link capacityOf} prices them, a
 * transaction's per action. The bench's tables share no key values, so the table is left out.
 */
export function writeUnitsByItem(calls: readonly MeteredCall[]): Map<string, number> {
  const byItem = new Map<string, number>();
  const add = (key: Item | undefined, units: number): void => {
    const id = Object.values(key ?? {}).map((value) => value.S ?? value.N ?? '').join('|');
    byItem.set(id, (byItem.get(id) ?? 0) + units);
  };
  for (const call of calls) {
    if (call.outcome === 'error') continue;
    const input = call.input as Record<string, unknown>;
    if (call.command === 'TransactWriteItemsCommand') {
      for (const action of input.TransactItems as TransactWriteItem[]) {
        const key = action.Put ? keyOfPut(action.Put.Item ?? {}) : (action.Update ?? action.Delete ?? action.ConditionCheck)?.Key;
        add(key, TRANSACTIONAL_FACTOR * writeUnits(actionItemSize(action)));
      }
    } else if (call.command === 'PutItemCommand') {
      add(keyOfPut(input.Item as Item), writeUnitsOf(call));
    } else if (call.command === 'UpdateItemCommand' || call.command === 'DeleteItemCommand') {
      add(input.Key as Item, writeUnitsOf(call));
    }
  }
  return byItem;
}

/** A put's item stands for its key: the bench's tables key on `id` (idempotency) or `pk` (counters). */
function keyOfPut(item: Item): Item {
  if (item.id !== undefined) return { id: item.id };
  return item.pk !== undefined ? { pk: item.pk } : item;
}

function writeUnitsOf(call: MeteredCall): number {
  const input = call.input as Record<string, unknown>;
  switch (call.command) {
    case 'PutItemCommand':
      return writeUnits(itemSize(input.Item as Item));
    case 'UpdateItemCommand':
      return writeUnits(updatedItemSize(input));
    case 'DeleteItemCommand':
      return writeUnits(itemSize(input.Key as Item));
    case 'TransactWriteItemsCommand':
      return (input.TransactItems as TransactWriteItem[]).reduce((sum, action) => sum + TRANSACTIONAL_FACTOR * writeUnits(actionItemSize(action)), 0);
    default:
      return 0;
  }
}

function readUnitsOf(call: MeteredCall): number {
  const input = call.input as Record<string, unknown>;
  if (call.command === 'GetItemCommand') return readUnits(0, input.ConsistentRead === true);
  if (call.command !== 'BatchGetItemCommand') return 0;
  const requests = Object.values(input.RequestItems as Record<string, { Keys: Item[]; ConsistentRead?: boolean }>);
  return requests.reduce((sum, request) => sum + request.Keys.length * readUnits(0, request.ConsistentRead === true), 0);
}

/** Reads of the small items here cost the minimum: one read unit per item. */
function readUnits(bytes: number, consistent: boolean): number {
  const units = Math.max(1, Math.ceil(bytes / READ_UNIT_BYTES));
  return consistent ? units : units / 2;
}

function writeUnits(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / KB));
}

function actionItemSize(action: TransactWriteItem): number {
  if (action.Put) return itemSize(action.Put.Item ?? {});
  if (action.Update) return updatedItemSize(action.Update as unknown as Record<string, unknown>);
  if (action.Delete) return itemSize(action.Delete.Key ?? {});
  return itemSize(action.ConditionCheck?.Key ?? {});
}

/** The key plus every attribute the update names and every value it sets. */
function updatedItemSize(update: Record<string, unknown>): number {
  const names = Object.values((update.ExpressionAttributeNames ?? {}) as Record<string, string>);
  const values = Object.values((update.ExpressionAttributeValues ?? {}) as Item);
  return itemSize(update.Key as Item) + names.reduce((sum, name) => sum + Buffer.byteLength(name), 0) + values.reduce((sum, value) => sum + valueSize(value), 0);
}

/** DynamoDB's item size: each attribute's name and value. */
export function itemSize(item: Item): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueSize(value), 0);
}

function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return numberSize(value.N);
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS !== undefined) return value.SS.reduce((sum, entry) => sum + Buffer.byteLength(entry), 0);
  if (value.NS !== undefined) return value.NS.reduce((sum, entry) => sum + numberSize(entry), 0);
  if (value.L !== undefined) return 3 + value.L.reduce((sum, entry) => sum + 1 + valueSize(entry), 0);
  if (value.M !== undefined) return 3 + Object.entries(value.M).reduce((sum, [name, entry]) => sum + 1 + Buffer.byteLength(name) + valueSize(entry), 0);
  return 0;
}

/** About one byte per two significant digits, plus one. */
function numberSize(text: string): number {
  const digits = text.replace(/^[-+]/, '').replace(/[eE].*$/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}
