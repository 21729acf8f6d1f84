/**
 * Event ids and payload fingerprints. The event id is the dedup key: it must be the same for every
 * publish of the same logical event, differ between events, and never change across releases
 * (a new scheme would let every in-flight redelivery through as a new event).
 */
import { createHash } from 'node:crypto';
import { parseEnvelope } from '../../../lambdas/runtime/envelope';
import { canonicalJson, eventIdFor, payloadHash } from '../../../lambdas/runtime/event-id';

const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** The namespace eventIdFor documents; pinned here so that a change to it fails loudly. */
const EVENT_ID_NAMESPACE = 'b6f1c7e2-5d3a-4f0e-9a41-2c8e7d5b9f10';

/** An independent UUIDv5 (RFC 9562, section 5.5), checked below against the RFC's own example. */
function referenceUuidV5(namespace: string, name: string): string {
  const hash = createHash('sha1').update(Buffer.from(namespace.replace(/-/g, ''), 'hex')).update(Buffer.from(name, 'utf8')).digest();
  const bytes = Buffer.from(hash.subarray(0, 16));
  bytes[6] = 0x50 | (bytes[6] & 0x0f);
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = bytes.toString('hex');
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20, 32)].join('-');
}

describe('eventIdFor', () => {
  test('the reference UUIDv5 matches RFC 9562\'s example (DNS namespace, "www.example.com")', () => {
    expect(referenceUuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  test('is the UUIDv5 of type NUL business key in the event-id namespace', () => {
    expect(eventIdFor('order.status-changed', 'o-42:3')).toBe(referenceUuidV5(EVENT_ID_NAMESPACE, 'order.status-changed\u0000o-42:3'));
    expect(eventIdFor('page.viewed', 'home:v-1')).toBe(referenceUuidV5(EVENT_ID_NAMESPACE, 'page.viewed\u0000home:v-1'));
  });

  test('is deterministic: the same type and business key always give the same id', () => {
    const ids = Array.from({ length: 100 }, () => eventIdFor('order.status-changed', 'o-42:3'));
    expect(new Set(ids).size).toBe(1);
  });

  test.each([
    ['order.status-changed', 'o-42:3'],
    ['page.viewed', 'home:8d0c'],
    ['x', 'y'],
    ['billing:invoice/paid', 'ünïcødé-kéy-東京'],
    ['t', 'k'.repeat(10_000)],
  ])('has the UUIDv5 shape (version 5, RFC variant) for (%s, %s)', (type, key) => {
    expect(eventIdFor(type, key)).toMatch(UUID_V5);
  });

  test('differs when the type differs', () => {
    expect(eventIdFor('order.created', 'o-42')).not.toBe(eventIdFor('order.shipped', 'o-42'));
  });

  test('differs when the business key differs, even by one character or by case', () => {
    const ids = ['o-42:3', 'o-42:4', 'o-42:3 ', 'O-42:3'].map((key) => eventIdFor('order.status-changed', key));
    expect(new Set(ids).size).toBe(4);
  });

  test('does not confuse where the type ends and the key begins', () => {
    expect(eventIdFor('ab', 'c')).not.toBe(eventIdFor('a', 'bc'));
    expect(eventIdFor('order.a', 'b')).not.toBe(eventIdFor('order', 'a.b'));
  });

  test('gives 10,000 distinct ids for 10,000 distinct keys', () => {
    const ids = new Set(Array.from({ length: 10_000 }, (_, n) => eventIdFor('page.viewed', `home:${n}`)));
    expect(ids.size).toBe(10_000);
  });

  test.each([
    ['an empty type', '', 'o-42', /type/],
    ['an empty business key', 'order.shipped', '', /businessKey/],
  ])('rejects %s with a RangeError naming it', (_label, type, key, message) => {
    expect(() => eventIdFor(type, key)).toThrow(RangeError);
    expect(() => eventIdFor(type, key)).toThrow(message);
  });

  test('is a valid envelope eventId, so a consumer accepts what a producer makes', () => {
    const eventId = eventIdFor('order.shipped', 'o-42');
    const body = JSON.stringify({ eventId, type: 'order.shipped', occurredAt: '2026-11-30T10:00:00Z', source: 'orders', payload: {} });
    expect(parseEnvelope(body).eventId).toBe(eventId);
  });
});

describe('canonicalJson', () => {
  test('sorts object keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 1 }], c: { z: null, y: 'x' } })).toBe('{"a":[{"c":1,"d":2}],"b":1,"c":{"y":"x","z":null}}');
  });

  test('keeps array order: a reordered list is a different payload', () => {
    expect(canonicalJson([2, 1])).toBe('[2,1]');
    expect(canonicalJson({ items: ['a', 'b'] })).not.toBe(canonicalJson({ items: ['b', 'a'] }));
  });

  test('leaves out keys whose value is undefined, as JSON.stringify does', () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1}');
  });

  test('escapes keys and strings as JSON', () => {
    const value = { 'quote"key': 'line\nbreak', 'ü': 'é' };
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  });

  test.each([
    [null, 'null'],
    [undefined, 'null'],
    [42, '42'],
    ['text', '"text"'],
    [true, 'true'],
    [[], '[]'],
    [{}, '{}'],
  ])('serialises %p as %s', (value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });
});

describe('payloadHash', () => {
  test('does not depend on key order', () => {
    const a = { pageId: 'home', viewer: { id: 7, country: 'FR' }, tags: ['x', 'y'] };
    const b = { tags: ['x', 'y'], viewer: { country: 'FR', id: 7 }, pageId: 'home' };
    expect(payloadHash(a)).toBe(payloadHash(b));
  });

  test('is the same after a JSON round trip, as a redelivered payload is', () => {
    const payload = { orderId: 'o-42', total: 19.99, lines: [{ sku: 'A', qty: 2 }] };
    expect(payloadHash(JSON.parse(JSON.stringify(payload)))).toBe(payloadHash(payload));
  });

  test.each([
    ['a changed value', { pageId: 'home' }, { pageId: 'about' }],
    ['a changed type', { qty: 1 }, { qty: '1' }],
    ['an extra field', { pageId: 'home' }, { pageId: 'home', referrer: 'x' }],
    ['a nested change', { viewer: { id: 7 } }, { viewer: { id: 8 } }],
    ['reordered array items', { tags: ['a', 'b'] }, { tags: ['b', 'a'] }],
  ])('differs for %s', (_label, a, b) => {
    expect(payloadHash(a)).not.toBe(payloadHash(b));
  });

  test('is a short base64url string (22 characters, about 132 bits)', () => {
    expect(payloadHash({ pageId: 'home' })).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});
