import { EVENTBRIDGE_DETAIL, eventIdPathProblem } from '../../../aws/envelope-formats';
import { ENVELOPE_LIMITS, validateEnvelope, type Envelope } from '../events/envelope';
import { ConfigurationError, EnvelopeProblem, InvalidEnvelopeError } from '../core/errors';
import { eventIdFor } from '../events/event-id';
import { describe, parseJsonObject, requireLabel, requireObject, requireString, requireTimestamp, type JsonObject } from '../events/json-fields';
import { bodyText } from './records';
import type { EventDecoder } from './routes';

/**
 * The SQS body of an event that an EventBridge rule delivered to a queue. Only what the decoder
 * reads is typed; `version`, `account`, `region` and `resources` are there too.
 */
export interface EventBridgeEvent {
  /** EventBridge's id of one PutEvents entry: a producer's retry of PutEvents gets a new one. Never a dedup key. */
  readonly id: string;
  readonly 'detail-type': string;
  readonly source: string;
  readonly time: string;
  readonly detail: JsonObject;
}

/** Options of {@link eventBridgeDecoder}. */
export interface EventBridgeDecoderOptions {
  /**
   * The dotted path, from the top of the event, of the value that makes the event this event
   * (`detail.orderId`, `detail.order.id`); it must lie under `detail`. Set it when `detail` is not
   * our envelope (an AWS service's event, a partner's): the event id is then derived from the
   * event's `source`, `detail-type` and that value.
   * @default - `detail` is our envelope, and its `eventId` is the dedup key
   */
  readonly eventIdPath?: string;
}

const DETAIL = EVENTBRIDGE_DETAIL;

/**
 * Decodes an SQS record that EventBridge delivered. By default `detail` must be our envelope
 * (errors name its fields under `detail.`). With `eventIdPath`, `detail` may be any JSON object and
 * the event becomes `{ eventId, type: detail-type, occurredAt: time, source, payload: detail }`,
 * where `eventId = eventIdFor('<source>:<detail-type>', String(<value at the path>))`.
 *
 * Either way the event's own `id` is never the dedup key: EventBridge gives a producer's retry of
 * PutEvents a new one.
 *
 * @throws ConfigurationError at once for an `eventIdPath` that is `id` or does not start with `detail.`
 * @example
 * ```ts
 * import { eventBridgeDecoder } from 'effectively-once/runtime';
 * const decode = eventBridgeDecoder({ eventIdPath: 'detail.instance-id' }); // an EC2 state change, keyed on its instance
 * ```
 */
export function eventBridgeDecoder(options: EventBridgeDecoderOptions = {}): EventDecoder {
  if (options.eventIdPath === undefined) return (record) => envelopeInDetail(parseJsonObject(bodyText(record)));
  const path = parseEventIdPath(options.eventIdPath);
  return (record) => eventWithKeyAt(parseJsonObject(bodyText(record)), path);
}

function envelopeInDetail(event: JsonObject): Envelope {
  if (event[DETAIL] === undefined && event['detail-type'] === undefined) {
    throw new InvalidEnvelopeError(EnvelopeProblem.WRONG_WRAPPER, 'body is not an EventBridge event: it has neither detail-type nor detail', { field: DETAIL });
  }
  return validateEnvelope(event[DETAIL], DETAIL);
}

/** A path parsed once, when the decoder is built. */
export interface EventIdPath {
  readonly text: string;
  readonly segments: readonly string[];
}

/**
 * Checks an `eventIdPath` and splits it into its segments. `name` is what the setting is called
 * where it was given (`EVENT_ID_PATH` when it came from the environment).
 *
 * @throws ConfigurationError naming the setting, the path and what is expected
 */
export function parseEventIdPath(path: string, name = 'eventIdPath'): EventIdPath {
  const problem = eventIdPathProblem(path);
  if (problem !== undefined) throw new ConfigurationError(`${name} ${problem}`);
  return { text: path, segments: path.split('.') };
}

function eventWithKeyAt(event: JsonObject, path: EventIdPath): Envelope {
  const source = requireString(event.source, 'source', ENVELOPE_LIMITS.sourceMaxLength);
  const type = requireLabel(event['detail-type'], 'detail-type', ENVELOPE_LIMITS.typeMaxLength);
  const occurredAt = requireTimestamp(event.time, 'time');
  const payload = requireObject(event[DETAIL], DETAIL);
  const key = businessKeyAt(event, path);
  return { eventId: eventIdFor(`${source}:${type}`, key), type, occurredAt, source, payload };
}

/** The value at the path, as text: a string that is not blank, or a finite number within 2^53 if whole. @throws InvalidEnvelopeError naming the path */
function businessKeyAt(event: JsonObject, path: EventIdPath): string {
  const value = valueAt(event, path.segments);
  const field = path.text;
  if (value === undefined || value === null) {
    throw new InvalidEnvelopeError(EnvelopeProblem.MISSING_FIELD, `${field} is missing: it is this consumer's dedup key (eventIdPath)`, { field });
  }
  if (typeof value === 'number') return numberKey(value, field);
  if (typeof value !== 'string') {
    throw new InvalidEnvelopeError(EnvelopeProblem.WRONG_TYPE, `${field} must be a string or a number (got ${describe(value)})`, { field });
  }
  // Blank is empty: keys that are only spaces would make every such event one event.
  if (value.trim() === '') throw new InvalidEnvelopeError(EnvelopeProblem.EMPTY_FIELD, `${field} is empty: it is this consumer's dedup key (eventIdPath)`, { field });
  return value;
}

function valueAt(root: JsonObject, segments: readonly string[]): unknown {
  let value: unknown = root;
  for (const segment of segments) {
    if (typeof value !== 'object' || value === null || !Object.prototype.hasOwnProperty.call(value, segment)) return undefined;
    value = (value as JsonObject)[segment];
  }
  return value;
}

/**
 * A number as a dedup key. `JSON.parse` has already rounded it to a double: an integer past 2^53
 * may have lost digits (12345678901234567890 and 12345678901234567891 both read as
 * 12345678901234567000), and two events would share one key, the second dropped as a duplicate.
 */
function numberKey(value: number, field: string): string {
  if (!Number.isFinite(value)) {
    throw new InvalidEnvelopeError(EnvelopeProblem.WRONG_TYPE, `${field} must be a finite number or a string (got ${value})`, { field });
  }
  if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
    throw new InvalidEnvelopeError(EnvelopeProblem.WRONG_TYPE, `${field} is an integer past 2^53 (read as ${value}), whose digits JSON.parse may have rounded: two events could share one dedup key; send it as a string`, { field });
  }
  return String(value);
}
