import { EnvelopeProblem, InvalidEnvelopeError } from '../core/errors';
import { describe, fieldPath, isJsonObject, parseJsonObject, requireObject, requireString, requireTimestamp, type JsonObject } from './json-fields';

/**
 * The event envelope every producer writes (`createEnvelope`). Consumers dedup on its `eventId`,
 * never on a delivery's id, which differs between two sends of one event. What `parseEnvelope`
 * refuses, field by field: docs/reliability.md, "Bad inputs".
 */
export interface Envelope<TPayload = Record<string, unknown>> {
  /** Derived by the producer from the event's business key; the dedup key. */
  readonly eventId: string;
  readonly type: string;
  /** ISO-8601 with a time zone. */
  readonly occurredAt: string;
  readonly source: string;
  readonly payload: TPayload;
}

/** Limits of the envelope's fields; the dedup key `<consumer>#<eventId>` must fit a DynamoDB key. */
export const ENVELOPE_LIMITS = {
  eventIdMaxLength: 256,
  typeMaxLength: 128,
  sourceMaxLength: 256,
} as const;

/** Visible ASCII only: an event id is a key, and invisible or multi-byte characters make keys that look equal but are not. */
const EVENT_ID_PATTERN = /^[\x21-\x7e]+$/;
const TYPE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/-]*$/;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes bytes (Kinesis data, a DynamoDB binary, a CloudEvent's `data_base64`) as UTF-8, refusing
 * invalid sequences instead of replacing them: a replaced character would silently change the
 * event id. `field` names where the bytes came from, when they are one field of the record.
 */
export function decodeUtf8(bytes: Uint8Array, field?: string): string {
  try {
    return utf8.decode(bytes);
  } catch (error) {
    const what = field === undefined ? 'record data' : field;
    throw new InvalidEnvelopeError(EnvelopeProblem.NOT_UTF8, `${what} is not valid UTF-8`, { field, cause: error });
  }
}

/**
 * Parses and validates a raw body as an {@link Envelope}. The payload is only checked to be an
 * object here; each event type's handler validates its own payload schema.
 *
 * @throws InvalidEnvelopeError naming the problem and the field.
 */
export function parseEnvelope(body: string): Envelope {
  return validateEnvelope(parseJsonObject(body));
}

/**
 * Validates an already parsed value as an {@link Envelope}: the body itself when `at` is
 * undefined, or the field at that dotted path of a wrapper (EventBridge's `detail`, say), whose
 * path then prefixes every field an error names (`detail.eventId`).
 *
 * @throws InvalidEnvelopeError naming the problem and the field.
 */
export function validateEnvelope(value: unknown, at?: string): Envelope {
  const record = at === undefined ? topLevelObject(value) : requireObject(value, at, 'it must hold the event envelope');
  return {
    eventId: checkEventId(record.eventId, fieldPath(at, 'eventId')),
    type: checkType(record.type, fieldPath(at, 'type')),
    occurredAt: requireTimestamp(record.occurredAt, fieldPath(at, 'occurredAt')),
    source: requireString(record.source, fieldPath(at, 'source'), ENVELOPE_LIMITS.sourceMaxLength),
    payload: requireObject(record.payload, fieldPath(at, 'payload')),
  };
}

function topLevelObject(value: unknown): JsonObject {
  if (!isJsonObject(value)) throw new InvalidEnvelopeError(EnvelopeProblem.NOT_AN_OBJECT, `the envelope is not an object (got ${describe(value)})`);
  return value;
}

/** Checks an event id by the envelope's rules (a string of 1..256 visible ASCII characters). @throws InvalidEnvelopeError */
export function validateEventId(value: unknown): string {
  return checkEventId(value, 'eventId');
}

function checkEventId(value: unknown, field: string): string {
  const eventId = requireString(value, field, ENVELOPE_LIMITS.eventIdMaxLength);
  if (!EVENT_ID_PATTERN.test(eventId)) {
    throw new InvalidEnvelopeError(EnvelopeProblem.INVALID_CHARACTERS, `${field} may hold only visible ASCII characters (no spaces, control or non-ASCII characters)`, { field });
  }
  return eventId;
}

function checkType(value: unknown, field: string): string {
  const type = requireString(value, field, ENVELOPE_LIMITS.typeMaxLength);
  if (!TYPE_PATTERN.test(type)) {
    throw new InvalidEnvelopeError(EnvelopeProblem.INVALID_CHARACTERS, `${field} "${type}" may hold only letters, digits and . _ : / -`, { field });
  }
  return type;
}
