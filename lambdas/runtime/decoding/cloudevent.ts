import { decodeUtf8, ENVELOPE_LIMITS, type Envelope } from '../events/envelope';
import { EnvelopeProblem, InvalidEnvelopeError } from '../core/errors';
import { eventIdFor } from '../events/event-id';
import { describe, isJsonObject, parseJsonObject, requireLabel, requireString, requireTimestamp, type JsonObject } from '../events/json-fields';
import { bodyText, type SourceRecord } from './records';
import type { EventDecoder } from './routes';

/**
 * A CloudEvent 1.0 in the JSON event format (structured content mode). Only what the decoder
 * reads is typed; `dataschema`, `subject` and extension attributes may be there too, and are
 * not carried into the event (a handler can read them from `context.record`).
 */
export interface CloudEvent {
  readonly specversion: '1.0';
  /** Unique within its `source`: the two together identify the event. */
  readonly id: string;
  readonly source: string;
  readonly type: string;
  readonly time?: string;
  readonly datacontenttype?: string;
  readonly data?: unknown;
  readonly data_base64?: string;
}

const SPEC_VERSION = '1.0';
/** The namespace of the event ids derived from CloudEvents, passed to `eventIdFor` as its type. */
const CLOUDEVENTS_ID_TYPE = 'cloudevents';
const JSON_ONLY = 'only JSON object data is supported';

/**
 * Decodes a CloudEvent 1.0 in structured JSON mode: the SQS body (or the Kinesis data) is the
 * event's JSON. By the spec, `source` and `id` together identify an event, so both make the dedup
 * key: `eventId = eventIdFor('cloudevents', JSON.stringify([source, id]))`, deterministic, and
 * distinct for any two distinct pairs. The event maps to `{ type, occurredAt: time, source,
 * payload: data }`; `data` must be a JSON object, given as `data` or as `data_base64` with a JSON
 * `datacontenttype` (`application/json`, any type whose subtype is `json` or ends in `+json`, or
 * none).
 *
 * An event without `time` gets the record's `firstSeenAt` (when SQS first handed the message out,
 * or when the record entered the stream): stable across redeliveries of one message, but not
 * across two sends of one event, which then dedup to the first one's time.
 *
 * Binary content mode (the attributes in SQS message attributes, the data as the body) is not
 * supported: such a body is the bare data, and fails here for want of `specversion`.
 *
 * @throws InvalidEnvelopeError naming the problem and the field
 */
export const cloudEventDecoder: EventDecoder = (record) => eventOf(parseJsonObject(bodyText(record)), record);

function eventOf(event: JsonObject, record: SourceRecord): Envelope {
  checkSpecVersion(event.specversion);
  const id = requireString(event.id, 'id');
  const source = requireString(event.source, 'source', ENVELOPE_LIMITS.sourceMaxLength);
  return {
    eventId: eventIdFor(CLOUDEVENTS_ID_TYPE, JSON.stringify([source, id])),
    type: requireLabel(event.type, 'type', ENVELOPE_LIMITS.typeMaxLength),
    occurredAt: isAbsent(event.time) ? fallbackTime(record) : requireTimestamp(event.time, 'time'),
    source,
    payload: payloadOf(event),
  };
}

/** The spec lets an optional attribute that is not set appear as `null`. */
function isAbsent(value: unknown): value is undefined | null {
  return value === undefined || value === null;
}

function fallbackTime(record: SourceRecord): string {
  return record.firstSeenAt ?? new Date().toISOString();
}

function checkSpecVersion(value: unknown): void {
  if (value === SPEC_VERSION) return;
  if (isAbsent(value)) throw new InvalidEnvelopeError(EnvelopeProblem.MISSING_FIELD, 'specversion is missing: the body is not a CloudEvent in structured JSON mode', { field: 'specversion' });
  const given = typeof value === 'string' ? `"${value}"` : describe(value);
  throw new InvalidEnvelopeError(EnvelopeProblem.UNSUPPORTED_VERSION, `specversion ${given} is not supported: only "${SPEC_VERSION}"`, { field: 'specversion' });
}

function payloadOf(event: JsonObject): JsonObject {
  const hasData = 'data' in event;
  const hasBase64 = 'data_base64' in event;
  if (hasData && hasBase64) throw new InvalidEnvelopeError(EnvelopeProblem.CONFLICTING_FIELDS, 'data and data_base64 are both present: a CloudEvent carries one or the other', { field: 'data' });
  checkJsonContentType(event.datacontenttype);
  if (hasBase64) return parseJsonObject(decodeBase64(event.data_base64), 'data_base64');
  return dataObject(event.data);
}

function checkJsonContentType(value: unknown): void {
  if (isAbsent(value)) return;
  if (typeof value !== 'string') {
    throw new InvalidEnvelopeError(EnvelopeProblem.WRONG_TYPE, `datacontenttype must be a string (got ${describe(value)})`, { field: 'datacontenttype' });
  }
  if (!isJsonMediaType(value)) {
    throw new InvalidEnvelopeError(EnvelopeProblem.UNSUPPORTED_CONTENT, `datacontenttype "${value}" is not JSON: ${JSON_ONLY}`, { field: 'datacontenttype' });
  }
}

/** A media subtype of `json` or ending in `+json`, parameters (`; charset=utf-8`) aside: JSON content as the CloudEvents JSON format defines it. */
function isJsonMediaType(contentType: string): boolean {
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  const subtype = /^[^/\s]+\/([^/\s]+)$/.exec(mediaType)?.[1];
  return subtype !== undefined && (subtype === 'json' || subtype.endsWith('+json'));
}

function dataObject(value: unknown): JsonObject {
  if (isJsonObject(value)) return value;
  if (value === undefined) throw new InvalidEnvelopeError(EnvelopeProblem.MISSING_FIELD, `data is missing: ${JSON_ONLY}`, { field: 'data' });
  throw new InvalidEnvelopeError(EnvelopeProblem.WRONG_TYPE, `data must be a JSON object (got ${describe(value)}): ${JSON_ONLY}`, { field: 'data' });
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Base64 as RFC 4648 writes it (padded), then strict UTF-8: `Buffer.from` alone skips what it cannot read. */
function decodeBase64(value: unknown): string {
  const text = requireString(value, 'data_base64');
  if (!BASE64.test(text)) throw new InvalidEnvelopeError(EnvelopeProblem.NOT_BASE64, 'data_base64 is not base64 (RFC 4648, padded)', { field: 'data_base64' });
  return decodeUtf8(Buffer.from(text, 'base64'), 'data_base64');
}
