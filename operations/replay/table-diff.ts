/**
 * `eo compare`: the items of one table of a consumer's live generation against the same table of a
 * generation rebuilt by replaying its stream, item by item, by key.
 *
 * Sharded counters are folded first (sharding.ts): a shard item, whose string key attribute ends in
 * `#shard-<n>`, joins the item of the key without the suffix, its numbers summed exactly. Which
 * shard an increment lands on depends on the lane or the event id, not on what was applied, so two
 * correct generations may spread a counter differently; only the sum is theirs to agree on.
 *
 * Values are compared by their canonical text (canonical-json.ts): `1.0` is `1`, a set's members
 * and a map's keys in any order are the same value.
 */
import { DescribeTableCommand, paginateScan, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { convertToNative } from '@aws-sdk/util-dynamodb';
import { canonicalJson } from '../../lambdas/runtime/core/canonical-json';
import { canonicalDecimal } from '../../lambdas/runtime/core/decimal';
import { unshardedValue } from '../../lambdas/runtime/stores/dynamodb/sharding';

/** One table variable of a consumer: the env variable its function reads, and the table each generation has. */
export interface TablePair {
  /** The env variable that names the table, e.g. `ORDERS_TABLE`. */
  readonly variable: string;
  /** The live generation's table. */
  readonly live: string;
  /** The rebuilt generation's table. */
  readonly next: string;
}

/** How many differences a {@link TableDiff} lists by default. */
export const DEFAULT_MAX_EXAMPLES = 20;

/** How a table pair is compared. */
export interface TableDiffOptions {
  /**
   * Attributes left out of the comparison, e.g. a processing timestamp, which a replay writes anew.
   * Key attributes are always compared.
   * @default - every attribute is compared
   */
  readonly ignore?: readonly string[];
  /** The most differences listed in {@link TableDiff.examples} (all are counted). @default 20 ({@link DEFAULT_MAX_EXAMPLES}) */
  readonly maxExamples?: number;
  /** Items per `Scan` request, to spread a large table's reads over more, smaller requests. @default - DynamoDB's page of 1 MB */
  readonly pageSize?: number;
}

/** One attribute of an item that differs: its value in each generation, as short canonical JSON; absent where the item has none. */
export interface DiffAttribute {
  readonly name: string;
  /** `"PAID"`, `5`, `Set["a","b"]`, cut to 80 characters; `shards disagree: "a" | "b"` when a counter's shards hold different values. */
  readonly live?: string;
  /** As `live`, in the next generation. */
  readonly next?: string;
}

/** One item that is not the same in both generations. */
export interface DiffExample {
  readonly kind: 'only-live' | 'only-next' | 'differs';
  /** The key as text, attributes in key schema order: `pk=order#o-1`, `pk=day#1, sk=7`. */
  readonly key: string;
  /** For `differs`: each attribute that differs, by name. */
  readonly attributes?: readonly DiffAttribute[];
}

/** One generation's table as read. */
export interface TableSide {
  /** The table's name. */
  readonly table: string;
  /** Items stored, each shard item counted. */
  readonly items: number;
  /** Of `items`, the shard items folded into their counters. */
  readonly shardItems: number;
}

/** What {@link diffTables} found. Counts are of items after folding shards, so `equal + onlyLive + differing` is the live table's logical items. */
export interface TableDiff {
  /** {@link TablePair.variable}. */
  readonly variable: string;
  readonly live: TableSide;
  readonly next: TableSide;
  /** Items the same in both. */
  readonly equal: number;
  /** Items only the live table holds. */
  readonly onlyLive: number;
  /** Items only the next table holds. */
  readonly onlyNext: number;
  /** Items both hold, with an attribute that differs. */
  readonly differing: number;
  /** The first differences by key, at most {@link TableDiffOptions.maxExamples}. */
  readonly examples: readonly DiffExample[];
  /** No item only on one side and none differing. */
  readonly same: boolean;
}

/** The two tables of a pair have different keys, so their items cannot be matched by key. */
export class KeySchemaMismatchError extends Error {
  /** `liveKeys`, `nextKeys`: each table's key, as `pk (HASH, S), sk (RANGE, N)`. */
  constructor(
    readonly pair: TablePair,
    readonly liveKeys: string,
    readonly nextKeys: string,
  ) {
    super(`${pair.variable}: the tables have different keys and cannot be compared item by item: ${pair.live} has ${liveKeys}, ${pair.next} has ${nextKeys}`);
    this.name = 'KeySchemaMismatchError';
  }
}

/**
 * Compares the live and the next table of `pair`: reads both whole (strongly consistent `Scan`s),
 * folds sharded counters, and matches items by key.
 *
 * @example
 * ```ts
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * const diff = await diffTables(new DynamoDBClient({}), { variable: 'ORDERS_TABLE', live: 'orders-1', next: 'orders-2' }, { ignore: ['processedAt'] });
 * if (!diff.same) console.log(diff.examples);
 * ```
 * @throws KeySchemaMismatchError when the two tables' keys differ
 */
export async function diffTables(dynamodb: DynamoDBClient, pair: TablePair, options: TableDiffOptions = {}): Promise<TableDiff> {
  const keyNames = await sharedKeyNames(dynamodb, pair);
  const [liveItems, nextItems] = await Promise.all([scanTable(dynamodb, pair.live, options.pageSize), scanTable(dynamodb, pair.next, options.pageSize)]);
  const ignored = new Set(options.ignore ?? []);
  const live = foldShards(liveItems, keyNames, ignored);
  const next = foldShards(nextItems, keyNames, ignored);
  const found = compareItems(live.items, next.items);
  return {
    variable: pair.variable,
    live: { table: pair.live, items: liveItems.length, shardItems: live.shardItems },
    next: { table: pair.next, items: nextItems.length, shardItems: next.shardItems },
    ...countKinds(found),
    examples: [...found.differences].sort((a, b) => compareText(a.key, b.key)).slice(0, options.maxExamples ?? DEFAULT_MAX_EXAMPLES),
    same: found.differences.length === 0,
  };
}

type Item = Record<string, AttributeValue>;

/** The key attribute names both tables share, hash key first. */
async function sharedKeyNames(dynamodb: DynamoDBClient, pair: TablePair): Promise<string[]> {
  const [live, next] = await Promise.all([keySchemaOf(dynamodb, pair.live), keySchemaOf(dynamodb, pair.next)]);
  const [liveText, nextText] = [live, next].map((keys) => keys.map((key) => `${key.name} (${key.role}, ${key.type})`).join(', '));
  if (liveText !== nextText) throw new KeySchemaMismatchError(pair, liveText, nextText);
  return live.map((key) => key.name);
}

interface KeyAttribute {
  readonly name: string;
  readonly role: string;
  readonly type: string;
}

async function keySchemaOf(dynamodb: DynamoDBClient, table: string): Promise<KeyAttribute[]> {
  const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: table }));
  const types = new Map((Table?.AttributeDefinitions ?? []).map((definition) => [definition.AttributeName, definition.AttributeType]));
  return (Table?.KeySchema ?? [])
    .map((key) => ({ name: key.AttributeName ?? '', role: key.KeyType ?? '', type: types.get(key.AttributeName) ?? '?' }))
    .sort((a, b) => compareText(a.role, b.role));
}

async function scanTable(dynamodb: DynamoDBClient, table: string, pageSize: number | undefined): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of paginateScan({ client: dynamodb, pageSize }, { TableName: table, ConsistentRead: true })) items.push(...(page.Items ?? []));
  return items;
}

/** An attribute's value after folding: its canonical text, or the texts of shards that disagree. */
interface FoldedValue {
  readonly canonical: string;
  readonly disagreeing: boolean;
}

/** A logical item: a counter's shards folded into one, or an item as stored. */
interface FoldedItem {
  readonly key: string;
  readonly attributes: ReadonlyMap<string, FoldedValue>;
}

interface FoldedTable {
  /** By the canonical text of the key. */
  readonly items: ReadonlyMap<string, FoldedItem>;
  readonly shardItems: number;
}

function foldShards(items: readonly Item[], keyNames: readonly string[], ignored: ReadonlySet<string>): FoldedTable {
  const groups = new Map<string, { key: Item; members: Item[] }>();
  let shardItems = 0;
  for (const item of items) {
    const key = logicalKey(item, keyNames);
    if (key.sharded) shardItems += 1;
    const id = canonicalJson(keyNames.map((name) => nativeOf(key.key[name])));
    const group = groups.get(id) ?? { key: key.key, members: [] };
    group.members.push(item);
    groups.set(id, group);
  }
  const folded = new Map<string, FoldedItem>();
  for (const [id, group] of groups) folded.set(id, { key: keyText(group.key, keyNames), attributes: mergeAttributes(group.members, new Set([...keyNames, ...ignored])) });
  return { items: folded, shardItems };
}

/** The item's key with the shard suffix taken off its first string key attribute that has one. */
function logicalKey(item: Item, keyNames: readonly string[]): { key: Item; sharded: boolean } {
  const key: Item = Object.fromEntries(keyNames.map((name) => [name, item[name] as AttributeValue]));
  const shardAttribute = keyNames.find((name) => key[name]?.S !== undefined && unshardedValue(key[name].S) !== key[name].S);
  if (shardAttribute === undefined) return { key, sharded: false };
  return { key: { ...key, [shardAttribute]: { S: unshardedValue(key[shardAttribute]?.S ?? '') } }, sharded: true };
}

/** An item's attributes but `left out`, shards merged: numbers summed, anything else kept where the shards that have it agree. */
function mergeAttributes(members: readonly Item[], leftOut: ReadonlySet<string>): Map<string, FoldedValue> {
  const values = new Map<string, AttributeValue[]>();
  for (const member of members) {
    for (const [name, value] of Object.entries(member)) if (!leftOut.has(name)) values.set(name, [...(values.get(name) ?? []), value]);
  }
  return new Map([...values].map(([name, found]) => [name, mergeValues(found)]));
}

function mergeValues(values: readonly AttributeValue[]): FoldedValue {
  const numbers = values.map((value) => value.N);
  if (numbers.every((number) => number !== undefined)) return { canonical: canonicalOf({ N: sumOfDecimals(numbers) }), disagreeing: false };
  const distinct = [...new Set(values.map(canonicalOf))].sort(compareText);
  return { canonical: distinct.join(' | '), disagreeing: distinct.length > 1 };
}

/** The exact sum of DynamoDB numbers, as `<digits>e<exponent>`: each is an integer times a power of ten, so BigInt adds them without rounding. */
function sumOfDecimals(texts: readonly string[]): string {
  const terms = texts.map(decimalTerm);
  const exponent = terms.reduce((lowest, term) => (term.exponent < lowest ? term.exponent : lowest), terms[0]?.exponent ?? 0n);
  const digits = terms.reduce((sum, term) => sum + term.digits * 10n ** (term.exponent - exponent), 0n);
  return `${digits}e${exponent}`;
}

function decimalTerm(text: string): { digits: bigint; exponent: bigint } {
  const canonical = canonicalDecimal(text);
  if (canonical === undefined) throw new Error(`not a DynamoDB number: ${JSON.stringify(text)}`);
  const [digits = '0', exponent = '0'] = canonical.split('e');
  return { digits: BigInt(digits), exponent: BigInt(exponent) };
}

function nativeOf(value: AttributeValue | undefined): unknown {
  return value === undefined ? undefined : convertToNative(value, { wrapNumbers: true });
}

function canonicalOf(value: AttributeValue): string {
  return canonicalJson(nativeOf(value));
}

/** `pk=order#o-1`, `pk=day#1, sk=7`: strings as they are, numbers and bytes canonical. */
function keyText(key: Item, keyNames: readonly string[]): string {
  return keyNames.map((name) => `${name}=${key[name]?.S ?? canonicalOf(key[name] ?? { NULL: true })}`).join(', ');
}

interface Comparison {
  readonly equal: number;
  readonly differences: readonly DiffExample[];
}

function compareItems(live: ReadonlyMap<string, FoldedItem>, next: ReadonlyMap<string, FoldedItem>): Comparison {
  const differences: DiffExample[] = [];
  let equal = 0;
  for (const [id, item] of live) {
    const other = next.get(id);
    const attributes = other === undefined ? [] : differingAttributes(item, other);
    if (other === undefined) differences.push({ kind: 'only-live', key: item.key });
    else if (attributes.length > 0) differences.push({ kind: 'differs', key: item.key, attributes });
    else equal += 1;
  }
  for (const [id, item] of next) if (!live.has(id)) differences.push({ kind: 'only-next', key: item.key });
  return { equal, differences };
}

function differingAttributes(live: FoldedItem, next: FoldedItem): DiffAttribute[] {
  const names = [...new Set([...live.attributes.keys(), ...next.attributes.keys()])].sort(compareText);
  return names.flatMap((name) => {
    const [before, after] = [live.attributes.get(name), next.attributes.get(name)];
    const same = before !== undefined && after !== undefined && before.canonical === after.canonical && !before.disagreeing && !after.disagreeing;
    return same ? [] : [{ name, ...(before && { live: shown(before) }), ...(after && { next: shown(after) }) }];
  });
}

/** The most characters a value is shown with. */
const SHOWN_LENGTH = 80;

function shown(value: FoldedValue): string {
  const text = value.disagreeing ? `shards disagree: ${value.canonical}` : value.canonical;
  return text.length > SHOWN_LENGTH ? `${text.slice(0, SHOWN_LENGTH - 1)}…` : text;
}

function countKinds({ equal, differences }: Comparison): Pick<TableDiff, 'equal' | 'onlyLive' | 'onlyNext' | 'differing'> {
  const count = (kind: DiffExample['kind']) => differences.filter((difference) => difference.kind === kind).length;
  return { equal, onlyLive: count('only-live'), onlyNext: count('only-next'), differing: count('differs') };
}

/** By UTF-16 code units, as `Array.prototype.sort` would, whatever the locale. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
