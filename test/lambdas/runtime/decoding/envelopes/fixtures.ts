/**
 * Bodies as SNS, EventBridge and CloudEvents producers write them, shaped after the samples their
 * documentation gives (SNS, "HTTP/HTTPS notification JSON format"; EventBridge and EC2, the
 * "EC2 Instance State-change Notification" sample event; the CloudEvents 1.0 JSON event format's
 * examples), with values of our own. Builders take overrides, so a test names only what differs.
 */
import { randomUUID } from 'node:crypto';
import { fromSqsRecord, type SourceRecord } from '../../../../../lambdas/runtime/decoding/records';
import type { EventDecoder } from '../../../../../lambdas/runtime/decoding/routes';
import { InvalidEnvelopeError } from '../../../../../lambdas/runtime/core/errors';
import type { Envelope } from '../../../../../lambdas/runtime';
import { pageView, sqsRecord, type SqsRecordOptions } from '../../../../helpers/events';

export const TOPIC_ARN = 'arn:aws:sns:eu-west-1:111122223333:page-views';

/** A page view as our producer library writes it: what SNS and EventBridge carry in these tests. */
export const VIEW: Envelope = pageView('pricing', 'view-1');

type Json = Record<string, unknown>;

/** `base` with `overrides` applied; an override of `undefined` removes the field. */
function withOverrides(base: Json, overrides: Json): Json {
  const result: Json = { ...base, ...overrides };
  for (const [field, value] of Object.entries(overrides)) if (value === undefined) delete result[field];
  return result;
}

/**
 * The body SNS writes to an SQS subscription with raw message delivery off: its notification
 * JSON, the published message (our envelope) as a string in `Message`. A producer's retried
 * Publish gets another `MessageId`.
 */
export function snsNotification(message: Envelope | string = VIEW, overrides: Json = {}): Json {
  return withOverrides({
    Type: 'Notification',
    MessageId: randomUUID(),
    TopicArn: TOPIC_ARN,
    Subject: 'page viewed',
    Message: typeof message === 'string' ? message : JSON.stringify(message),
    Timestamp: '2026-11-30T10:00:00.512Z',
    SignatureVersion: '1',
    Signature: 'bm90IGEgcmVhbCBzaWduYXR1cmUsIGp1c3QgYSBmaXh0dXJl',
    SigningCertURL: 'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-0000000000000000000000.pem',
    UnsubscribeURL: `https://sns.eu-west-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=${TOPIC_ARN}:5b2e7a40-0c1d-4e8f-9a6b-3c4d5e6f7a8b`,
    MessageAttributes: { eventId: { Type: 'String', Value: typeof message === 'string' ? 'unknown' : message.eventId } },
  }, overrides);
}

/** What SNS sends once, when a subscription is made: not a notification, though it has a `Message`. */
export function snsSubscriptionConfirmation(): Json {
  return {
    Type: 'SubscriptionConfirmation',
    MessageId: randomUUID(),
    Token: '2336412f37fb687f5d51e6e2425c464de12884e6b6d2e8d7e0e7d1c0b9a8f7e6d5c4b3a2',
    TopicArn: TOPIC_ARN,
    Message: `You have chosen to subscribe to the topic ${TOPIC_ARN}.\nTo confirm the subscription, visit the SubscribeURL included in this message.`,
    SubscribeURL: `https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=${TOPIC_ARN}&Token=2336412f37fb`,
    Timestamp: '2026-11-30T09:59:00.000Z',
    SignatureVersion: '1',
    Signature: 'bm90IGEgcmVhbCBzaWduYXR1cmUsIGp1c3QgYSBmaXh0dXJl',
    SigningCertURL: 'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-0000000000000000000000.pem',
  };
}

/** The EventBridge envelope around `detail`; each PutEvents entry (a retry too) gets another `id`. */
function eventBridgeEvent(detail: unknown, fields: Json, overrides: Json): Json {
  return withOverrides({
    version: '0',
    id: randomUUID(),
    account: '111122223333',
    region: 'eu-west-1',
    resources: [],
    ...fields,
    detail,
  }, overrides);
}

/** An event an application put on a bus with our envelope as its `Detail` (`DetailType` its type, `Source` its source). */
export function eventBridgeWithEnvelope(envelope: Envelope = VIEW, overrides: Json = {}): Json {
  return eventBridgeEvent(envelope, { 'detail-type': envelope.type, source: envelope.source, time: '2026-11-30T10:00:01Z' }, overrides);
}

export const INSTANCE_ID = 'i-0a1b2c3d4e5f60718';

/** An AWS service event, EC2's state-change notification: `detail` is EC2's, not our envelope. */
export function ec2StateChange(detail: Json = { 'instance-id': INSTANCE_ID, state: 'pending' }, overrides: Json = {}): Json {
  return eventBridgeEvent(detail, {
    'detail-type': 'EC2 Instance State-change Notification',
    source: 'aws.ec2',
    time: '2026-11-30T10:00:02Z',
    resources: [`arn:aws:ec2:eu-west-1:111122223333:instance/${String(detail['instance-id'] ?? INSTANCE_ID)}`],
  }, overrides);
}

/** A CloudEvent 1.0 in structured JSON mode, with JSON object data and two extension attributes. */
export function cloudEvent(overrides: Json = {}): Json {
  return withOverrides({
    specversion: '1.0',
    type: 'com.example.page.viewed',
    source: '/web/storefront',
    subject: null,
    id: 'C7F3-0042-0001',
    time: '2026-11-30T10:00:03Z',
    comexampleextension1: 'value',
    comexampleothervalue: 5,
    datacontenttype: 'application/json',
    data: { pageId: 'pricing', viewer: { anonymous: true } },
  }, overrides);
}

/** Base64 of the UTF-8 of `text`. */
export function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

/** A body as the SourceRecord of one SQS message. */
export function recordOf(body: unknown, options: SqsRecordOptions = {}): SourceRecord {
  return fromSqsRecord(sqsRecord(body, options));
}

/** The error `decode` throws for `body`; fails the test if it throws something else or nothing. */
export function rejectionOf(decode: EventDecoder, body: unknown): InvalidEnvelopeError {
  try {
    decode(recordOf(body));
  } catch (error) {
    if (error instanceof InvalidEnvelopeError) return error;
    throw new Error(`expected an InvalidEnvelopeError, got ${String(error)}`, { cause: error });
  }
  throw new Error(`expected ${JSON.stringify(body)} to be rejected, but it decoded`);
}
