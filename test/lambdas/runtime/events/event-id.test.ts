/**
 * Event ids and payload fingerprints. The event id is the dedup key: it must be the same for every
 * publish of the same logical event, differ between events, and never change across releases
 * (a new scheme would let every in-flight redelivery through as a new event). The fingerprint must
 * tell apart every two payloads that differ, of whatever kind a decoder built them (Sets, bytes,
 * big numbers), keep the hash a JSON payload had in earlier releases, and never fail as a
 * retryable error. Pure functions: no engine involved.
 */
import { createHash } from 'node:crypto';
import type { AttributeValue } from 'aws-lambda';
import fc from 'fast-check';
import { classifyError } from '../../../../lambdas/runtime/core/classify';
import { parseEnvelope } from '../../../../lambdas/runtime/events/envelope';
import { FailureKind, UndecodableRecordError } from '../../../../lambdas/runtime/core/errors';
import { canonicalJson } from '../../../../lambdas/runtime/core/canonical-json';
import { eventIdFor, payloadHash } from '../../../../lambdas/runtime/events/event-id';
import { NumberValue, StreamNumbers, unmarshallImage } from '../../../../lambdas/runtime/decoding/stream-image';
import { outcomeOf, thrownBy } from '../../../helpers/thrown';

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

describe('canonicalJson of values JSON has no form for', () => {
  test.each<[string, unknown, string]>([
    ['a Set, its members sorted', new Set(['b', 'a']), 'Set["a","b"]'],
    ['a Map, its entries sorted', new Map<unknown, unknown>([['b', 2], [1, 'a']]), 'Map[["b",2],[1,"a"]]'],
    ['bytes', Buffer.from('hi'), 'Uint8Array("aGk=")'],
    ['a Date', new Date(86_400_000), 'Date(86400000)'],
    ['an invalid Date', new Date(Number.NaN), 'Date(NaN)'],
    ['NaN', Number.NaN, 'NaN'],
    ['-Infinity', Number.NEGATIVE_INFINITY, '-Infinity'],
    ['a bigint a double holds', 42n, '42'],
    ['a bigint past 2^53', 9_007_199_254_740_993n, '9007199254740993e0'],
    ['a NumberValue a double holds', NumberValue.from('0.10'), '0.1'],
    ['a NumberValue of 38 digits', NumberValue.from('0.1234567890123456789012345678901234567'), '1234567890123456789012345678901234567e-37'],
  ])('writes %s as %s', (_label, value, expected) => {
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

describe('payloadHash of every value a decoder can produce', () => {
  const BIG = '9007199254740993';
  const LONG = '0.1234567890123456789012345678901234567';
  const bytes = (...values: number[]) => Uint8Array.from(values);

  test("a JSON payload hashes as its sorted-key JSON, as earlier releases' dedup records hold", () => {
    const expected = createHash('sha256').update('{"a":[1,"x",null,true],"b":{"c":0.5}}').digest('base64url').slice(0, 22);
    expect(payloadHash({ b: { c: 0.5 }, a: [1, 'x', null, true] })).toBe(expected);
  });

  test.each<[string, unknown, unknown]>([
    ['string sets of other members (SS)', new Set(['gift']), new Set(['fragile'])],
    ['a set and the empty set', new Set(['gift']), new Set()],
    ['a number set (NS) and a string set (SS) of the same digits', new Set([1]), new Set(['1'])],
    ['a set and an array of the same members', new Set(['a']), ['a']],
    ['a set and an empty object', new Set(['a']), {}],
    ['maps of other values', new Map([['k', 1]]), new Map([['k', 2]])],
    ['a map and an object of the same entries', new Map([['k', 1]]), { k: 1 }],
    ['bytes that differ (B)', bytes(1, 2), bytes(1, 3)],
    ['bytes and the object of their indexes', bytes(7), { 0: 7 }],
    ['bytes and their base64 text', bytes(7), 'Bw=='],
    ['the same bytes as Uint8Array and as Float64Array', new Uint8Array(new Float64Array([1]).buffer), new Float64Array([1])],
    ['binary sets (BS) of other bytes', new Set([bytes(1)]), new Set([bytes(2)])],
    ['dates a millisecond apart', new Date(0), new Date(1)],
    ['a date and an empty object', new Date(0), {}],
    ['2^53 + 1 as a bigint and 2^53 as a number', BigInt(BIG), 2 ** 53],
    ['a NumberValue and the number Number() rounds it to', NumberValue.from(LONG), Number(LONG)],
    ['NumberValues of integers one apart past 2^53', NumberValue.from(BIG), NumberValue.from('9007199254740992')],
    ['a NumberValue and an object with its value field', NumberValue.from(LONG), { value: LONG }],
    ['a NumberValue of no number and its text', NumberValue.from('abc'), 'abc'],
    ['NaN and null', Number.NaN, null],
    ['Infinity and -Infinity', Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY],
    ['a bigint and its digits as text', 5n, '5'],
  ])('differs for %s', (_label, a, b) => {
    expect(payloadHash({ v: a })).not.toBe(payloadHash({ v: b }));
  });

  test.each<[string, unknown, unknown]>([
    ['sets whose members came in another order', new Set(['a', 'b', 'c']), new Set(['c', 'a', 'b'])],
    ['maps whose entries came in another order', new Map([['a', 1], ['b', 2]]), new Map([['b', 2], ['a', 1]])],
    ['a Buffer and a Uint8Array of the same bytes', Buffer.from([1, 2]), bytes(1, 2)],
    ['the number 3 and the bigint 3n', 3, 3n],
    ['NumberValue 3 and the number 3, so switching to lossless numbers flags no conflict', NumberValue.from('3'), 3],
    ['NumberValues 1.50 and 1.5, one DynamoDB number', NumberValue.from('1.50'), NumberValue.from('1.5')],
    ['2^53 + 1 as a NumberValue and as a bigint', NumberValue.from(BIG), BigInt(BIG)],
  ])('is the same for %s', (_label, a, b) => {
    expect(payloadHash({ v: a })).toBe(payloadHash({ v: b }));
  });

  test('never throws on a DynamoDB image, whichever form its numbers take', () => {
    fc.assert(
      fc.property(streamImage, (image) => {
        expect(payloadHash(unmarshallImage(image, 'NewImage', StreamNumbers.LOSSLESS))).toMatch(/^[A-Za-z0-9_-]{22}$/);
        const exact = outcomeOf(() => unmarshallImage(image, 'NewImage', StreamNumbers.NUMBER));
        // A number no JavaScript number holds fails its record as it is decoded, before any hash.
        if ('thrown' in exact) expect(exact.thrown).toBeInstanceOf(UndecodableRecordError);
        else expect(payloadHash(exact.returned)).toMatch(/^[A-Za-z0-9_-]{22}$/);
      }),
    );
  });

  test('never throws on a JSON payload, and gives it the same hash after a JSON round trip', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => expect(payloadHash(JSON.parse(JSON.stringify(value)))).toBe(payloadHash(value))));
  });

  test("a custom decoder's payload that contains itself fails its record permanently, not as a retryable TypeError", () => {
    const payload: Record<string, unknown> = { id: 1 };
    payload.self = { parent: payload };
    const error = thrownBy(() => payloadHash(payload));
    expect(error).toBeInstanceOf(UndecodableRecordError);
    expect(classifyError(error)).toBe(FailureKind.PERMANENT);
    expect((error as Error).message).toBe('the payload has no fingerprint: the payload contains itself: it has no canonical form');
  });

  test('so does one whose getter throws', () => {
    const payload = Object.defineProperty({}, 'total', { enumerable: true, get: () => { throw new RangeError('no total yet'); } });
    expect(classifyError(thrownBy(() => payloadHash(payload)))).toBe(FailureKind.PERMANENT);
  });

  test('the same object twice, side by side, is no cycle', () => {
    const line = { sku: 'A' };
    expect(payloadHash({ lines: [line, line] })).toBe(payloadHash({ lines: [{ sku: 'A' }, { sku: 'A' }] }));
  });
});

/** DynamoDB attribute values as a stream image holds them: numbers as text of up to 38 digits, binaries as base64. */
const decimalText = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  fc.bigInt({ min: -(10n ** 38n) + 1n, max: 10n ** 38n - 1n }).map(String),
  fc.tuple(fc.bigInt({ min: 1n, max: 10n ** 38n - 1n }), fc.integer({ min: -130, max: 87 })).map(([digits, exponent]) => `${digits}e${exponent}`),
);
const { attribute: streamAttribute } = fc.letrec<{ attribute: AttributeValue }>((tie) => ({
  attribute: fc.oneof(
    { depthSize: 'small' },
    fc.record({ S: fc.string() }),
    fc.record({ N: decimalText }),
    fc.record({ B: fc.uint8Array().map((value) => Buffer.from(value).toString('base64')) }),
    fc.record({ BOOL: fc.boolean() }),
    fc.constant({ NULL: true }),
    fc.record({ SS: fc.uniqueArray(fc.string(), { minLength: 1 }) }),
    fc.record({ NS: fc.uniqueArray(decimalText, { minLength: 1 }) }),
    fc.record({ BS: fc.uniqueArray(fc.base64String({ minLength: 4 }), { minLength: 1 }) }),
    fc.record({ L: fc.array(tie('attribute')) }),
    fc.record({ M: fc.dictionary(fc.string(), tie('attribute')) }),
  ) as fc.Arbitrary<AttributeValue>,
}));
const streamImage = fc.dictionary(fc.string({ minLength: 1 }), streamAttribute);
