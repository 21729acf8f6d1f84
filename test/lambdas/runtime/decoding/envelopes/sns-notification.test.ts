/**
 * SNS notifications (raw message delivery off): the event is our envelope inside `Message`, keyed
 * on its `eventId` and never on SNS's `MessageId`; a body that is not a notification, or whose
 * message is not an envelope, is a typed permanent failure naming the field under `Message`.
 */
import { classifyError } from '../../../../../lambdas/runtime/core/classify';
import { EnvelopeProblem, FailureKind } from '../../../../../lambdas/runtime/core/errors';
import { snsNotificationDecoder } from '../../../../../lambdas/runtime/decoding/sns-notification';
import { recordOf, rejectionOf, snsNotification, snsSubscriptionConfirmation, VIEW } from './fixtures';

describe('an SNS notification decodes to the envelope in its Message', () => {
  test('the event is exactly the published envelope', () => {
    expect(snsNotificationDecoder(recordOf(snsNotification()))).toEqual(VIEW);
  });

  test('two notifications of one event (a retried Publish: another MessageId) decode to the same eventId', () => {
    const first = snsNotificationDecoder(recordOf(snsNotification(VIEW, { MessageId: 'f1e2d3c4-0000-4000-8000-000000000001' })));
    const retry = snsNotificationDecoder(recordOf(snsNotification(VIEW, { MessageId: 'f1e2d3c4-0000-4000-8000-000000000002', Timestamp: '2026-11-30T10:00:04.000Z' })));
    expect(retry.eventId).toBe(first.eventId);
    expect(first.eventId).toBe(VIEW.eventId);
  });

  test('the optional Subject and MessageAttributes may be absent', () => {
    expect(snsNotificationDecoder(recordOf(snsNotification(VIEW, { Subject: undefined, MessageAttributes: undefined })))).toEqual(VIEW);
  });
});

describe('a body that is not an SNS notification of an envelope is rejected', () => {
  // [scenario, body, problem, field, message]
  test.each<[string, unknown, EnvelopeProblem, string | undefined, RegExp]>([
    ['a SubscriptionConfirmation', snsSubscriptionConfirmation(), EnvelopeProblem.WRONG_WRAPPER, 'Type', /^body is not an SNS notification: Type is "SubscriptionConfirmation"$/],
    ['an UnsubscribeConfirmation', snsNotification(VIEW, { Type: 'UnsubscribeConfirmation' }), EnvelopeProblem.WRONG_WRAPPER, 'Type', /Type is "UnsubscribeConfirmation"/],
    ['our envelope itself (raw message delivery on)', VIEW, EnvelopeProblem.WRONG_WRAPPER, 'Type', /Type is missing \(with raw message delivery on, the format is native\)/],
    ['a notification without Message', snsNotification(VIEW, { Message: undefined }), EnvelopeProblem.MISSING_FIELD, 'Message', /^Message is missing/],
    ['a Message that is an object, not a string', snsNotification(VIEW, { Message: VIEW }), EnvelopeProblem.WRONG_TYPE, 'Message', /^Message must be a string \(got an object\)$/],
    ['an empty Message', snsNotification(''), EnvelopeProblem.EMPTY_FIELD, 'Message', /^Message is empty$/],
    ['a Message that is not JSON', snsNotification('page viewed: pricing'), EnvelopeProblem.NOT_JSON, 'Message', /^Message is not JSON: /],
    ['a Message that is a JSON array', snsNotification('[1,2]'), EnvelopeProblem.NOT_AN_OBJECT, 'Message', /^Message is JSON but not an object \(got an array\)$/],
    ['a Message without eventId', snsNotification(JSON.stringify({ ...VIEW, eventId: undefined })), EnvelopeProblem.MISSING_FIELD, 'Message.eventId', /^Message\.eventId is missing$/],
    ['a Message whose eventId has a space', snsNotification(JSON.stringify({ ...VIEW, eventId: 'view 1' })), EnvelopeProblem.INVALID_CHARACTERS, 'Message.eventId', /^Message\.eventId may hold only visible ASCII/],
    ['a Message whose type has a space', snsNotification(JSON.stringify({ ...VIEW, type: 'page viewed' })), EnvelopeProblem.INVALID_CHARACTERS, 'Message.type', /^Message\.type "page viewed"/],
    ['a Message whose occurredAt has no zone', snsNotification(JSON.stringify({ ...VIEW, occurredAt: '2026-11-30T10:00:00' })), EnvelopeProblem.INVALID_TIMESTAMP, 'Message.occurredAt', /^Message\.occurredAt "2026-11-30T10:00:00" is not/],
    ['a Message whose payload is an array', snsNotification(JSON.stringify({ ...VIEW, payload: [] })), EnvelopeProblem.WRONG_TYPE, 'Message.payload', /^Message\.payload must be an object \(got an array\)$/],
    ['a body that is not JSON', 'definitely not json', EnvelopeProblem.NOT_JSON, undefined, /^body is not JSON: /],
    ['a whitespace body', '  ', EnvelopeProblem.EMPTY_BODY, undefined, /^body is empty$/],
  ])('%s', (_scenario, body, problem, field, message) => {
    const error = rejectionOf(snsNotificationDecoder, body);
    expect(error.problem).toBe(problem);
    expect(error.field).toBe(field);
    expect(error.message).toMatch(message);
  });

  test('every rejection is permanent: the record goes to the DLQ, never retried', () => {
    expect(classifyError(rejectionOf(snsNotificationDecoder, snsSubscriptionConfirmation()))).toBe(FailureKind.PERMANENT);
  });
});
