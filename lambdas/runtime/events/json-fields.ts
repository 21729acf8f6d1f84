import { EnvelopeProblem, InvalidEnvelopeError } from '../core/errors';

/**
 * Checks of one JSON field at a time, shared by our envelope and the wrappers it can arrive in
 * (SNS, EventBridge, CloudEvents). Every error names the field by its dotted path from the top of
 * the body (`Message.eventId`, `detail.type`), so that a DLQ message says where to look.
 */

/** A parsed JSON object (not an array, not null). */
export type JsonObject = Record<string, unknown>;

/** Whether a parsed JSON value is an object, not an array or null. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The dotted path of `name` inside the field at `at` (the top of the body when `at` is undefined). */
export function fieldPath(at: string | undefined, name: string): string {
  return at === undefined ? name : `${at}.${name}`;
}

/** `a string`, `an array`, `null`: what a value was, for "must be X (got Y)" messages. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * Parses JSON text that must hold an object: the whole body when `at` is undefined, else the
 * string field at that path (SNS's `Message`, say).
 *
 * @throws InvalidEnvelopeError (`empty-body` or `empty-field`, `not-json`, `not-an-object`)
 */
export function parseJsonObject(text: string, at?: string): JsonObject {
  const name = at ?? 'body';
  if (text.trim() === '') {
    throw at === undefined ? new InvalidEnvelopeError(EnvelopeProblem.EMPTY_BODY, 'body is empty') : new InvalidEnvelopeError(EnvelopeProblem.EMPTY_FIELD, `${at} is empty`, { field: at });
  }
  const value = parseJson(text, name, at);
  if (!isJsonObject(value)) {
    throw new InvalidEnvelopeError(EnvelopeProblem.NOT_AN_OBJECT, `${name} is JSON but not an object (got ${describe(value)})`, { field: at });
  }
  return value;
}

function parseJson(text: string, name: string, field: string | undefined): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidEnvelopeError(EnvelopeProblem.NOT_JSON, `${name} is not JSON: ${(error as Error).message}`, { field, cause: error });
  }
}

/** A present, non-blank string of at most `maxLength` characters. @throws InvalidEnvelopeError */
export function requireString(value: unknown, field: string, maxLength = Number.POSITIVE_INFINITY): string {
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

/** A present JSON object. `why`, when given, ends the message (what the field is for). @throws InvalidEnvelopeError */
export function requireObject(value: unknown, field: string, why?: string): JsonObject {
  const reason = why === undefined ? '' : `: ${why}`;
  if (value === undefined || value === null) {
    throw new InvalidEnvelopeError(EnvelopeProblem.MISSING_FIELD, `${field} is missing${reason}`, { field });
  }
  if (!isJsonObject(value)) {
    throw new InvalidEnvelopeError(EnvelopeProblem.WRONG_TYPE, `${field} must be an object (got ${describe(value)})${reason}`, { field });
  }
  return value;
}

/** A date, a time and an explicit zone (`Z` or an offset): a timestamp without a zone is ambiguous. */
const ISO_TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** An ISO-8601 timestamp with a time zone, on a day that exists. @throws InvalidEnvelopeError */
export function requireTimestamp(value: unknown, field: string): string {
  const timestamp = requireString(value, field, 64);
  if (!ISO_TIMESTAMP_PATTERN.test(timestamp) || Number.isNaN(Date.parse(timestamp)) || !isCalendarDate(timestamp)) {
    throw new InvalidEnvelopeError(EnvelopeProblem.INVALID_TIMESTAMP, `${field} "${timestamp}" is not an ISO-8601 timestamp with a time zone`, { field });
  }
  return timestamp;
}

/** `Date` rolls 2026-02-30 over to March 2; a timestamp must name a day that exists. */
function isCalendarDate(timestamp: string): boolean {
  const [year, month, day] = timestamp.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** C0 and C1 control characters, DEL included. */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * A name someone else chose for a kind of event (EventBridge's `detail-type`, a CloudEvent's
 * `type`): 1..`maxLength` characters, spaces allowed, control characters not. Looser than our
 * envelope's `type`, since `EC2 Instance State-change Notification` is a real one.
 *
 * @throws InvalidEnvelopeError
 */
export function requireLabel(value: unknown, field: string, maxLength: number): string {
  const label = requireString(value, field, maxLength);
  if (CONTROL_CHARACTER.test(label)) {
    throw new InvalidEnvelopeError(EnvelopeProblem.INVALID_CHARACTERS, `${field} may not hold control characters`, { field });
  }
  return label;
}
