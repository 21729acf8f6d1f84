/**
 * The shapes an event can arrive in at a consumer, and how the constructs tell the runtime which
 * one a consumer's source delivers (`CONSUMER_ENV.envelope`, `CONSUMER_ENV.eventIdPath`). Written
 * once, here, so that the constructs and the runtime cannot disagree. What each format's body looks
 * like, and which key it dedups on: docs/envelopes.md.
 */

export const EnvelopeFormat = {
  /**
   * Our envelope `{ eventId, type, occurredAt, source, payload }` is the body (or the Kinesis data):
   * a producer sends straight to the queue or stream, or SNS delivers to SQS with raw message
   * delivery on (the body is then the published message itself).
   */
  NATIVE: 'native',
  /** SNS to SQS with raw message delivery off: the body is SNS's notification JSON, our envelope its `Message`. */
  SNS: 'sns',
  /** EventBridge to SQS: the body is the event JSON; `detail` holds our envelope, or `eventIdPath` names the key in it. */
  EVENTBRIDGE: 'eventbridge',
  /** CloudEvents 1.0 in structured JSON mode: the dedup key is `source` and `id` together. */
  CLOUDEVENTS: 'cloudevents',
} as const;
export type EnvelopeFormat = (typeof EnvelopeFormat)[keyof typeof EnvelopeFormat];

export const ENVELOPE_FORMATS: readonly EnvelopeFormat[] = Object.values(EnvelopeFormat);

/** Whether a string names an {@link EnvelopeFormat}. */
export function isEnvelopeFormat(value: string): value is EnvelopeFormat {
  return (ENVELOPE_FORMATS as readonly string[]).includes(value);
}

/** The object of an EventBridge event that holds the producer's data: an `eventIdPath` starts here. */
export const EVENTBRIDGE_DETAIL = 'detail';

/**
 * Why an `eventIdPath` cannot name a dedup key, or undefined when it can: `detail`, then one or
 * more dotted keys, none empty or starting or ending with whitespace (`detail.orderId`,
 * `detail.order.id`). Not EventBridge's own `id`, which a retried PutEvents changes. The
 * constructs check it at synth and the runtime when its decoder is built, by this one rule.
 */
export function eventIdPathProblem(path: string): string | undefined {
  if (path === 'id') return `"id" names EventBridge's own event id, which changes when a producer retries PutEvents: name a business key under detail (e.g. "detail.orderId")`;
  const [first, ...keys] = path.split('.');
  if (first !== EVENTBRIDGE_DETAIL || keys.length === 0 || keys.some((key) => key === '' || key.trim() !== key)) {
    return `must be a dotted path under detail, such as "detail.orderId" or "detail.order.id" (given "${path}")`;
  }
  return undefined;
}
