/**
 * DynamoDB attribute values as they reach the DLQ tooling in three shapes: the SDK's (binary as
 * `Uint8Array`), Lambda's JSON (binary as base64) and a `Uint8Array` that went through
 * `JSON.stringify` (an object of byte indexes). All become the SDK's shape; items compare by a
 * canonical text in which set members are sorted.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

type LooseValue = Record<string, unknown>;

/** An item in any of the three shapes, in the SDK's. */
export function toSdkItem(item: Readonly<Record<string, unknown>>): Record<string, AttributeValue> {
  return Object.fromEntries(Object.entries(item).map(([name, value]) => [name, toSdkValue(value as LooseValue)]));
}

function toSdkValue(value: LooseValue): AttributeValue {
  if ('B' in value) return { B: toBytes(value.B) };
  if ('BS' in value) return { BS: (value.BS as unknown[]).map(toBytes) };
  if ('M' in value) return { M: toSdkItem(value.M as Record<string, unknown>) };
  if ('L' in value) return { L: (value.L as LooseValue[]).map(toSdkValue) };
  return value as unknown as AttributeValue;
}

function toBytes(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string') return Buffer.from(value, 'base64');
  return Uint8Array.from(Object.values(value as Record<string, number>));
}

/** A text that is equal for two items exactly when DynamoDB holds them equal; `ignore` is left out. */
export function canonicalItem(item: Readonly<Record<string, AttributeValue>>, ignore?: string): string {
  const names = Object.keys(item).filter((name) => name !== ignore).sort();
  return JSON.stringify(names.map((name) => [name, canonicalValue(item[name] as AttributeValue)]));
}

function canonicalValue(value: AttributeValue): unknown {
  if (value.B !== undefined) return { B: Buffer.from(value.B).toString('base64') };
  if (value.BS !== undefined) return { BS: value.BS.map((bytes) => Buffer.from(bytes).toString('base64')).sort() };
  if (value.SS !== undefined) return { SS: [...value.SS].sort() };
  // DynamoDB normalises numbers (no leading or trailing zeros) in items and stream images alike.
  if (value.NS !== undefined) return { NS: [...value.NS].sort() };
  if (value.M !== undefined) return { M: canonicalItem(value.M) };
  if (value.L !== undefined) return { L: value.L.map(canonicalValue) };
  return value;
}
