/**
 * The canonical text of a payload, which its fingerprint hashes: equal payloads give the same
 * text, different ones different texts, whatever a decoder built them from.
 */
import { NumberValueImpl as NumberValue } from '@aws-sdk/util-dynamodb';
import { canonicalDecimal, exactNumber } from './decimal';

/**
 * JSON with object keys sorted, so that equal payloads hash equally whatever their key order. A
 * JSON value (what `JSON.parse` gives) keeps exactly this text, which dedup records written by
 * earlier releases hold the hash of. Values JSON has no form for get a tagged one that no JSON
 * value writes: a `Set` (`SS`, `NS`, `BS` in a DynamoDB image) is `Set[...]` with its members
 * sorted, a `Map` is `Map[[key,value],...]` sorted, bytes are `Uint8Array("<base64>")`, a `Date`
 * `Date(<epoch ms>)`, `NaN` and the infinities as they are spelled. A number is its value however
 * it is held: a bigint or a `NumberValue` that a JavaScript number holds exactly writes as that
 * number, another as its canonical decimal (`9007199254740993e0`). As in JSON, a key whose value
 * is undefined is left out, and an undefined elsewhere is `null`.
 *
 * @throws TypeError when the value contains itself: it has no finite text.
 */
export function canonicalJson(value: unknown): string {
  return encode(value, new Set());
}

/** `ancestors`: the objects that hold the value, to find a cycle. */
function encode(value: unknown, ancestors: Set<object>): string {
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : String(value);
  if (typeof value === 'bigint') return decimalText(value.toString());
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (ancestors.has(value)) throw new TypeError('the payload contains itself: it has no canonical form');
  ancestors.add(value);
  try {
    return encodeObject(value, ancestors);
  } finally {
    ancestors.delete(value);
  }
}

function encodeObject(value: object, ancestors: Set<object>): string {
  const inner = (item: unknown) => encode(item, ancestors);
  if (Array.isArray(value)) return `[${value.map(inner).join(',')}]`;
  if (value instanceof NumberValue) return decimalText(value.value);
  if (value instanceof Set) return `Set[${[...value].map(inner).sort().join(',')}]`;
  if (value instanceof Map) return `Map[${[...value].map(inner).sort().join(',')}]`;
  if (value instanceof Date) return `Date(${value.getTime()})`;
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return bytesText(value);
  const entries = Object.entries(value)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${inner(item)}`).join(',')}}`;
}

/** A number written as text: as the JavaScript number when one holds it, so `5n`, `NumberValue('5')` and `5` are one value. */
function decimalText(text: string): string {
  const held = exactNumber(text);
  if (held !== undefined) return JSON.stringify(held);
  return canonicalDecimal(text) ?? `NumberValue(${JSON.stringify(text)})`;
}

/** A Buffer is a Uint8Array; other views keep their own tag, so the same bytes as floats are another value. */
function bytesText(value: ArrayBufferView | ArrayBuffer): string {
  const tag = value instanceof Uint8Array ? 'Uint8Array' : Object.prototype.toString.call(value).slice(8, -1);
  const bytes = ArrayBuffer.isView(value) ? Buffer.from(value.buffer, value.byteOffset, value.byteLength) : Buffer.from(value);
  return `${tag}(${JSON.stringify(bytes.toString('base64'))})`;
}
