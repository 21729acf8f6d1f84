import { createHash } from 'node:crypto';
import { canonicalJson } from '../core/canonical-json';
import { messageOf, UndecodableRecordError } from '../core/errors';

/** The namespace of our event ids (a fixed UUID): ids from other UUIDv5 schemes never collide with ours. */
const EVENT_ID_NAMESPACE = 'b6f1c7e2-5d3a-4f0e-9a41-2c8e7d5b9f10';

/**
 * The event id of a logical event: a UUIDv5 (SHA-1 name-based, RFC 9562) of `type` and the
 * event's business key. The same event always gets the same id, so a producer's retry, a second
 * publish of the same business fact, or a replay all dedup to one effect.
 *
 * @param businessKey - what makes this event this event: e.g. `"<orderId>:<version>"`.
 * @example
 * ```ts
 * import { eventIdFor } from 'effectively-once/runtime';
 * const eventId = eventIdFor('order.status-changed', 'o-42:3'); // always the same UUID
 * ```
 */
export function eventIdFor(type: string, businessKey: string): string {
  if (type === '') throw new RangeError('eventIdFor: type must not be empty');
  if (businessKey === '') throw new RangeError('eventIdFor: businessKey must not be empty');
  return uuidV5(`${type}\u0000${businessKey}`, EVENT_ID_NAMESPACE);
}

function uuidV5(name: string, namespace: string): string {
  const namespaceBytes = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(namespaceBytes).update(name, 'utf8').digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * A short, stable fingerprint of a payload, stored with dedup records to spot conflicting
 * duplicates: the SHA-256 of its {@link canonicalJson}. Every value a decoder of ours produces
 * has one; a payload that has none (a custom decoder's that contains itself, or whose getter
 * throws) fails its record permanently, as no retry can give it one.
 *
 * @throws UndecodableRecordError when the payload has no canonical form.
 */
export function payloadHash(payload: unknown): string {
  return createHash('sha256').update(canonicalTextOf(payload)).digest('base64url').slice(0, 22);
}

function canonicalTextOf(payload: unknown): string {
  try {
    return canonicalJson(payload);
  } catch (error) {
    throw new UndecodableRecordError(`the payload has no fingerprint: ${messageOf(error)}`, { cause: error });
  }
}
