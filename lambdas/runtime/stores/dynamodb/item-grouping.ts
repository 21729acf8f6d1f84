/**
 * The entries in an order that keeps those sharing items side by side: each is keyed by the items
 * it shares with others, rarest first (its most specific item: a page before its day), and the
 * keys compared item by item; a stable sort. Items no other entry touches cost the same in any
 * chunk and do not count; entries that share nothing come last, to fill what room is left.
 */
export function bySharedItems<T>(entries: readonly T[], itemsOf: (entry: T) => Iterable<string>): T[] {
  const touches = new Map<string, number>();
  const items = entries.map((entry) => [...itemsOf(entry)]);
  for (const ids of items) for (const itemId of ids) touches.set(itemId, (touches.get(itemId) ?? 0) + 1);
  const rarestFirst = (a: string, b: string): number => (touches.get(a) as number) - (touches.get(b) as number) || compareText(a, b);
  const keyed = entries.map((entry, position) => ({ entry, key: (items[position] as string[]).filter((itemId) => (touches.get(itemId) as number) > 1).sort(rarestFirst) }));
  keyed.sort((a, b) => compareKeys(a.key, b.key, rarestFirst));
  return keyed.map(({ entry }) => entry);
}

/** Item by item; a key that runs out first comes first, except that an empty key comes last. */
function compareKeys(a: readonly string[], b: readonly string[], compareItems: (a: string, b: string) => number): number {
  if (a.length === 0 || b.length === 0) return b.length - a.length;
  for (let position = 0; position < Math.min(a.length, b.length); position += 1) {
    const order = compareItems(a[position] as string, b[position] as string);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
