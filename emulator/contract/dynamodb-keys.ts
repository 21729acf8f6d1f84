/**
 * Item identity for DynamoDB: two requests name the same item when they name the same table and
 * equal key values, whatever the order of the key's attributes and however a number is written
 * (`1`, `1.0` and `10E-1` are one number to DynamoDB; DynamoDB Local compares them as text).
 */

/** An attribute value as the JSON protocol carries it (`B` in base64). */
export type AttributeValue = Readonly<Record<string, unknown>>;

/** An item or a key: attribute values by name. */
export type AttributeMap = Readonly<Record<string, AttributeValue>>;

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** `text` as one canonical form per number (`-12e3`), or `text` itself when it is not a number. */
export function canonicalNumber(text: string): string {
  const match = DECIMAL.exec(text.trim());
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) return text;
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  const digits = (whole + fraction).replace(/^0+/, '');
  if (digits === '') return '0';
  const significant = digits.replace(/0+$/, '');
  const scale = Number(exponent) - fraction.length + (digits.length - significant.length);
  return `${sign === '-' ? '-' : ''}${significant}e${scale}`;
}

/** One key attribute's value, canonical: `N` by number, `B` by its bytes, `S` as it is. */
function canonicalValue(value: AttributeValue): string {
  if (typeof value.N === 'string') return `N:${canonicalNumber(value.N)}`;
  if (typeof value.B === 'string') return `B:${Buffer.from(value.B, 'base64').toString('base64')}`;
  return `S:${String(value.S)}`;
}

/** A string that is equal for two keys of one item, and only then. */
export function itemIdentity(table: string, key: AttributeMap): string {
  const names = Object.keys(key).sort();
  return JSON.stringify([table, ...names.map((name) => [name, canonicalValue(key[name] ?? {})])]);
}

/** The key of `item` by the table's key schema, or undefined when a key attribute is missing. */
export function keyOfItem(item: AttributeMap, keySchema: readonly string[]): AttributeMap | undefined {
  const key: Record<string, AttributeValue> = {};
  for (const name of keySchema) {
    const value = item[name];
    if (value === undefined) return undefined;
    key[name] = value;
  }
  return key;
}
