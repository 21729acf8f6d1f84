import { validateEnvelope } from '../events/envelope';
import { EnvelopeProblem, InvalidEnvelopeError } from '../core/errors';
import { describe, parseJsonObject, type JsonObject } from '../events/json-fields';
import { bodyText } from './records';
import type { EventDecoder } from './routes';

/**
 * The SQS body that SNS writes for a subscription with raw message delivery off: its notification
 * JSON, the published message a string in `Message`. Only the fields the decoder reads are typed;
 * the signature fields (`SignatureVersion`, `Signature`, `SigningCertURL`) and `UnsubscribeURL`
 * are there too but unused: SQS, not the public internet, delivered the message.
 */
export interface SnsNotification {
  readonly Type: 'Notification';
  /** SNS's id of one Publish call: a producer's retry of the Publish gets a new one. Never a dedup key. */
  readonly MessageId: string;
  readonly TopicArn: string;
  /** The published message: here, our envelope as JSON text. */
  readonly Message: string;
  readonly Timestamp: string;
  readonly Subject?: string;
  readonly MessageAttributes?: Readonly<Record<string, { readonly Type: string; readonly Value: string }>>;
}

const NOTIFICATION = 'Notification';

/**
 * Decodes an SQS record that SNS delivered with raw message delivery off: the body must be an
 * SNS `Notification` whose `Message` is our envelope. The event is that envelope, so the dedup key
 * is its `eventId`, which a producer's retry of Publish keeps; SNS's `MessageId` changes on such a
 * retry, so it is never used. Errors about the envelope name its fields under `Message`
 * (`Message.eventId`).
 *
 * With raw message delivery on, the body is the published message itself: use the `native`
 * format (the default decoder), not this one.
 *
 * @throws InvalidEnvelopeError: `wrong-wrapper` for a body that is not a notification (a
 * `SubscriptionConfirmation`, say, or a raw-delivered envelope), else the problem and the field.
 */
export const snsNotificationDecoder: EventDecoder = (record) => {
  const notification = snsNotificationOf(parseJsonObject(bodyText(record)));
  return validateEnvelope(parseJsonObject(notification.Message, 'Message'), 'Message');
};

function snsNotificationOf(body: JsonObject): Pick<SnsNotification, 'Type' | 'Message'> {
  if (body.Type !== NOTIFICATION) {
    const given = body.Type === undefined ? 'Type is missing (with raw message delivery on, the format is native)' : `Type is ${JSON.stringify(body.Type)}`;
    throw new InvalidEnvelopeError(EnvelopeProblem.WRONG_WRAPPER, `body is not an SNS notification: ${given}`, { field: 'Type' });
  }
  const message = body.Message;
  if (message === undefined || message === null) {
    throw new InvalidEnvelopeError(EnvelopeProblem.MISSING_FIELD, 'Message is missing: an SNS notification carries the published message in it', { field: 'Message' });
  }
  if (typeof message !== 'string') {
    throw new InvalidEnvelopeError(EnvelopeProblem.WRONG_TYPE, `Message must be a string (got ${describe(message)})`, { field: 'Message' });
  }
  return { Type: NOTIFICATION, Message: message };
}
