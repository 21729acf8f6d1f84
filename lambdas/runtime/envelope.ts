import { EnvelopeProblem, InvalidEnvelopeError } from './errors';

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
/** A date, a time and an explicit zone (`Z` or an offset): a timestamp without a zone is ambiguous. */
const ISO_TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes bytes (Kinesis data, a DynamoDB binary) as UTF-8, refusing invalid sequences instead of
 * replacing them: a replaced character would silently change the event id.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch (error) {
    throw new InvalidEnvelopeError(EnvelopeProblem.NOT_UTF8, 'record data is not valid UTF-8', { cause: error });
  }
}

/**
 * Parses and validates a raw body as an {@link Envelope}. The payload is only checked to be an
 * object here; each event type's handler validates its own payload schema.
 *
 * @throws InvalidEnvelopeError naming the problem and the field.
 */
export function parseEnvelope(body: string): Envelope {
  if (body.trim() === '') throw new InvalidEnvelopeError(EnvelopeProblem.EMPTY_BODY, 'body is empty');
  const value = parseJson(body);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidEnvelopeError(EnvelopeProblem.NOT_AN_OBJECT, `body is JSON but not an object (got ${describe(value)})`);
  }
  const record = value as Record<string, unknown>;
  return {
    eventId: checkEventId(record.eventId),
    type: checkType(record.type),
    occurredAt: checkOccurredAt(record.occurredAt),
    source: checkString(record.source, 'source', ENVELOPE_LIMITS.sourceMaxLength),
    payload: checkPayload(record.payload),
  };
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch (error) {
    throw new InvalidEnvelopeError(EnvelopeProblem.NOT_JSON, `body is not JSON: ${(error as Error).message}`, { cause: error });
  }
}

function checkString(value: unknown, field: string, maxLength: number): string {
  if (value === undefined || value === null) {
    throw new InvalidEnvelopeError(EnvelopeProblem.MISSING_FIELD, `${field} is missing`, { field });
  }
  if (typeof value !== 'string') {
    throw new InvalidEnvelopeError(EnvelopeProblem.WRONG_TYPE, `${field} must be a string (got ${describe(value)})`, { field });
  }
  if (value.trim() === '') throw new InvalidEnvelopeError(EnvelopeProblem.EMPTY_FIELD, `${field} is empty`, { field });
  if (value.length > maxLength) {
    throw new InvalidEnvelopeError(EnvelopeProblem.TOO_LONG, `${field} is ${value.length} characters; at most ${maxLength} allowed`, { field });
  }
  return value;
}

/** Checks an event id by the envelope's rules (a string of 1..256 visible ASCII characters). @throws InvalidEnvelopeError */
export function validateEventId(value: unknown): string {
  return checkEventId(value);
}

function checkEventId(value: unknown): string {
  const eventId = checkString(value, 'eventId', ENVELOPE_LIMITS.eventIdMaxLength);
  if (!EVENT_ID_PATTERN.test(eventId)) {
    throw new InvalidEnvelopeError(EnvelopeProblem.INVALID_CHARACTERS, 'eventId may hold only visible ASCII characters (no spaces, control or non-ASCII characters)', { field: 'eventId' });
  }
  return eventId;
}

function checkType(value: unknown): string {
  const type = checkString(value, 'type', ENVELOPE_LIMITS.typeMaxLength);
  if (!TYPE_PATTERN.test(type)) {
    throw new InvalidEnvelopeError(EnvelopeProblem.INVALID_CHARACTERS, `type "${type}" may hold only letters, digits and . _ : / -`, { field: 'type' });
  }
  return type;
}

function checkOccurredAt(value: unknown): string {
  const occurredAt = checkString(value, 'occurredAt', 64);
  if (!ISO_TIMESTAMP_PATTERN.test(occurredAt) || Number.isNaN(Date.parse(occurredAt)) || !isCalendarDate(occurredAt)) {
    throw new InvalidEnvelopeError(EnvelopeProblem.INVALID_TIMESTAMP, `occurredAt "${occurredAt}" is not an ISO-8601 timestamp with a time zone`, { field: 'occurredAt' });
  }
  return occurredAt;
}

/** `Date` rolls 2026-02-30 over to March 2; a timestamp must name a day that exists. */
function isCalendarDate(timestamp: string): boolean {
  const [year, month, day] = timestamp.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function checkPayload(value: unknown): Record<string, unknown> {
  if (value === undefined || value === null) {
    throw new InvalidEnvelopeError(EnvelopeProblem.MISSING_FIELD, 'payload is missing', { field: 'payload' });
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidEnvelopeError(EnvelopeProblem.WRONG_TYPE, `payload must be an object (got ${describe(value)})`, { field: 'payload' });
  }
  return value as Record<string, unknown>;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
