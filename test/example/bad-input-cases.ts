/**
 * The poison rows of the bad-input catalogue (docs/reliability.md, "Bad inputs"): each body, and
 * the failure context the DLQ must hold for it. bad-inputs.test.ts sends each through a real queue
 * between two good events.
 */
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';

/** One body a producer should never send, and what the consumer must say about it. */
export interface PoisonCase {
  readonly kind: string;
  readonly body: string;
  /** The error name in the DLQ context. */
  readonly name: string;
  /** Matched against the context's `error.details`: the problem and field, or the schema issues. */
  readonly details: Readonly<Record<string, unknown>>;
  /** The error message; it names the field at fault when there is one. */
  readonly message: RegExp;
}

/** Marks a field to leave out of the envelope. */
export const MISSING = Symbol('missing');

/** A `page.viewed` body with some fields replaced (or left out with {@link MISSING}). */
export function pageViewBody(overrides: Readonly<Record<string, unknown>> = {}): string {
  const fields: Record<string, unknown> = {
    eventId: `poison-${randomUUID()}`,
    type: 'page.viewed',
    occurredAt: '2026-11-30T10:00:00Z',
    source: 'test',
    payload: { pageId: 'poison-page' },
    ...overrides,
  };
  return JSON.stringify(Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== MISSING)));
}

function envelopeCase(kind: string, body: string, problem: string, message: RegExp, field?: string): PoisonCase {
  return { kind, body, name: 'InvalidEnvelopeError', details: { problem, ...(field && { field }) }, message };
}

function schemaCase(kind: string, payload: unknown, issue: string): PoisonCase {
  const escaped = issue.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return { kind, body: pageViewBody({ payload }), name: 'SchemaViolationError', details: { eventType: 'page.viewed', issues: [issue] }, message: new RegExp(`^payload of "page\\.viewed" violates its schema: ${escaped}$`) };
}

/** Bodies that are not an envelope at all. */
export const NOT_AN_ENVELOPE: readonly PoisonCase[] = [
  envelopeCase('not JSON', 'definitely not json', 'not-json', /^body is not JSON: /),
  envelopeCase('truncated JSON', '{"eventId": "evt-1", "type": "page.vie', 'not-json', /^body is not JSON: /),
  envelopeCase('whitespace only', '   ', 'empty-body', /^body is empty$/),
  envelopeCase('JSON array', '[{"eventId":"evt-1"}]', 'not-an-object', /not an object \(got an array\)/),
  envelopeCase('JSON string', '"page.viewed"', 'not-an-object', /not an object \(got a string\)/),
  envelopeCase('JSON number', '42', 'not-an-object', /not an object \(got a number\)/),
  envelopeCase('JSON null', 'null', 'not-an-object', /not an object \(got null\)/),
];

/** Envelopes whose `eventId`, the dedup key, is unusable. */
export const BAD_EVENT_IDS: readonly PoisonCase[] = [
  envelopeCase('missing eventId', pageViewBody({ eventId: MISSING }), 'missing-field', /^eventId is missing$/, 'eventId'),
  envelopeCase('null eventId', pageViewBody({ eventId: null }), 'missing-field', /^eventId is missing$/, 'eventId'),
  envelopeCase('empty eventId', pageViewBody({ eventId: '' }), 'empty-field', /^eventId is empty$/, 'eventId'),
  envelopeCase('blank eventId', pageViewBody({ eventId: '   ' }), 'empty-field', /^eventId is empty$/, 'eventId'),
  envelopeCase('numeric eventId', pageViewBody({ eventId: 42 }), 'wrong-type', /^eventId must be a string \(got a number\)$/, 'eventId'),
  envelopeCase('object eventId', pageViewBody({ eventId: { id: 'evt-1' } }), 'wrong-type', /^eventId must be a string \(got an object\)$/, 'eventId'),
  envelopeCase('eventId of 257 characters', pageViewBody({ eventId: 'e'.repeat(257) }), 'too-long', /^eventId is 257 characters; at most 256 allowed$/, 'eventId'),
  envelopeCase('eventId with a space', pageViewBody({ eventId: 'evt 1' }), 'invalid-characters', /^eventId may hold only visible ASCII/, 'eventId'),
  envelopeCase('eventId with a tab', pageViewBody({ eventId: 'evt\t1' }), 'invalid-characters', /^eventId may hold only visible ASCII/, 'eventId'),
  envelopeCase('eventId with a control character', pageViewBody({ eventId: 'evt\u00071' }), 'invalid-characters', /^eventId may hold only visible ASCII/, 'eventId'),
  envelopeCase('eventId with a non-ASCII letter', pageViewBody({ eventId: 'café-1' }), 'invalid-characters', /^eventId may hold only visible ASCII/, 'eventId'),
  // JSON-escaped: fauxqs refuses characters beyond U+FFFF in a body (SQS accepts them); the consumer sees the emoji either way.
  envelopeCase('eventId with an emoji', pageViewBody({ eventId: 'evt-\u{1F600}' }).replace('\u{1F600}', '\\ud83d\\ude00'), 'invalid-characters', /^eventId may hold only visible ASCII/, 'eventId'),
];

/** Envelopes with a bad type, timestamp, source or payload shape. */
export const BAD_ENVELOPE_FIELDS: readonly PoisonCase[] = [
  { kind: 'unknown type', body: pageViewBody({ type: 'page.clicked' }), name: 'UnknownEventTypeError', details: { eventType: 'page.clicked', knownTypes: ['page.viewed'] }, message: /^unknown event type "page\.clicked" \(this consumer handles: page\.viewed\)$/ },
  envelopeCase('malformed type', pageViewBody({ type: 'page viewed' }), 'invalid-characters', /^type "page viewed" may hold only/, 'type'),
  envelopeCase('missing type', pageViewBody({ type: MISSING }), 'missing-field', /^type is missing$/, 'type'),
  envelopeCase('impossible date', pageViewBody({ occurredAt: '2026-02-30T10:00:00Z' }), 'invalid-timestamp', /^occurredAt "2026-02-30T10:00:00Z" is not an ISO-8601 timestamp with a time zone$/, 'occurredAt'),
  envelopeCase('timestamp without a zone', pageViewBody({ occurredAt: '2026-11-30T10:00:00' }), 'invalid-timestamp', /^occurredAt "2026-11-30T10:00:00" is not/, 'occurredAt'),
  envelopeCase('timestamp that is not a date', pageViewBody({ occurredAt: 'yesterday' }), 'invalid-timestamp', /^occurredAt "yesterday" is not/, 'occurredAt'),
  envelopeCase('epoch number as timestamp', pageViewBody({ occurredAt: 1_764_496_800 }), 'wrong-type', /^occurredAt must be a string \(got a number\)$/, 'occurredAt'),
  envelopeCase('missing source', pageViewBody({ source: MISSING }), 'missing-field', /^source is missing$/, 'source'),
  envelopeCase('missing payload', pageViewBody({ payload: MISSING }), 'missing-field', /^payload is missing$/, 'payload'),
  envelopeCase('payload not an object', pageViewBody({ payload: 'home' }), 'wrong-type', /^payload must be an object \(got a string\)$/, 'payload'),
];

/** Valid envelopes whose payload breaks the `page.viewed` schema. */
export const SCHEMA_VIOLATIONS: readonly PoisonCase[] = [
  schemaCase('payload without pageId', {}, 'pageId: Invalid input: expected string, received undefined'),
  schemaCase('pageId of the wrong type', { pageId: 42 }, 'pageId: Invalid input: expected string, received number'),
  schemaCase('empty pageId', { pageId: '' }, 'pageId: Too small: expected string to have >=1 characters'),
  schemaCase('pageId over 512 characters', { pageId: 'p'.repeat(513) }, 'pageId: Too big: expected string to have <=512 characters'),
  schemaCase('schema 2 without page.id', { schemaVersion: 2, page: {} }, 'page.id: Invalid input: expected string, received undefined'),
  schemaCase('schema 2 before the fix', { schemaVersion: 2, page: { id: 'docs' } }, 'schemaVersion: 2 is not accepted yet (deploy the consumer with ACCEPT_SCHEMA_V2=true)'),
];

/** Kinesis data that is not an envelope: what the order projection must send to its DLQ byte for byte. */
export interface KinesisPoisonCase {
  readonly kind: string;
  readonly data: Buffer;
  readonly problem: 'not-utf8' | 'not-json';
}

const inJson = (...bytes: number[]) => Buffer.concat([Buffer.from('{"eventId":"evt-'), Buffer.from(bytes), Buffer.from('"}')]);

export const KINESIS_POISON: readonly KinesisPoisonCase[] = [
  { kind: 'binary data (gzip)', data: gzipSync(Buffer.from('{"eventId":"evt-1"}')), problem: 'not-utf8' },
  { kind: 'a lone continuation byte', data: inJson(0x80), problem: 'not-utf8' },
  { kind: 'an overlong encoding of "/"', data: inJson(0xc0, 0xaf), problem: 'not-utf8' },
  { kind: 'an encoded UTF-16 surrogate', data: inJson(0xed, 0xa0, 0x80), problem: 'not-utf8' },
  { kind: 'Latin-1 text (not UTF-8)', data: inJson(0x63, 0x61, 0x66, 0xe9), problem: 'not-utf8' },
  { kind: 'a sequence truncated at the end', data: Buffer.concat([Buffer.from('{"eventId":"evt-'), Buffer.from([0xe2, 0x82])]), problem: 'not-utf8' },
  { kind: 'control bytes (valid UTF-8, not JSON)', data: Buffer.from([0x00, 0x01, 0x02, 0x7b]), problem: 'not-json' },
];
