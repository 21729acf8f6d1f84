/**
 * EventBridge events: by default `detail` is our envelope; with an `eventIdPath` the event is an
 * AWS service's (here EC2's state change) and its id derives from source, detail-type and the
 * value at the path. EventBridge's own `id` is never the key, and naming it is refused when the
 * decoder is built.
 */
import { eventBridgeDecoder } from '../../../../../lambdas/runtime/decoding/eventbridge-event';
import { ConfigurationError, EnvelopeProblem, InvalidEnvelopeError } from '../../../../../lambdas/runtime/core/errors';
import { eventIdFor } from '../../../../../lambdas/runtime/events/event-id';
import { ec2StateChange, eventBridgeWithEnvelope, INSTANCE_ID, recordOf, rejectionOf, VIEW } from './fixtures';

describe('detail is our envelope (the default)', () => {
  const decode = eventBridgeDecoder();

  test('the event is the envelope in detail', () => {
    expect(decode(recordOf(eventBridgeWithEnvelope()))).toEqual(VIEW);
  });

  test('two PutEvents of one event (another id, another time) decode to the same eventId', () => {
    const first = decode(recordOf(eventBridgeWithEnvelope(VIEW, { id: '11111111-2222-4333-8444-555555555555' })));
    const retry = decode(recordOf(eventBridgeWithEnvelope(VIEW, { id: '66666666-7777-4888-9999-000000000000', time: '2026-11-30T10:00:09Z' })));
    expect(retry.eventId).toBe(first.eventId);
  });

  // [scenario, body, problem, field]
  test.each<[string, unknown, EnvelopeProblem, string | undefined]>([
    ['an AWS service event (EC2), whose detail is not our envelope', ec2StateChange(), EnvelopeProblem.MISSING_FIELD, 'detail.eventId'],
    ['a detail without occurredAt', eventBridgeWithEnvelope({ ...VIEW, occurredAt: undefined as unknown as string }), EnvelopeProblem.MISSING_FIELD, 'detail.occurredAt'],
    ['a detail whose eventId is a number', eventBridgeWithEnvelope({ ...VIEW, eventId: 42 as unknown as string }), EnvelopeProblem.WRONG_TYPE, 'detail.eventId'],
    ['a detail whose type has a space', eventBridgeWithEnvelope({ ...VIEW, type: 'page viewed' }), EnvelopeProblem.INVALID_CHARACTERS, 'detail.type'],
    ['a detail whose payload is a string', eventBridgeWithEnvelope({ ...VIEW, payload: 'pricing' as unknown as Record<string, unknown> }), EnvelopeProblem.WRONG_TYPE, 'detail.payload'],
    ['a detail that is a string', eventBridgeWithEnvelope(VIEW, { detail: JSON.stringify(VIEW) }), EnvelopeProblem.WRONG_TYPE, 'detail'],
    ['an event without detail', eventBridgeWithEnvelope(VIEW, { detail: undefined }), EnvelopeProblem.MISSING_FIELD, 'detail'],
    ['our envelope itself, not an EventBridge event', VIEW, EnvelopeProblem.WRONG_WRAPPER, 'detail'],
    ['a body that is a JSON array', '[]', EnvelopeProblem.NOT_AN_OBJECT, undefined],
  ])('rejects %s', (_scenario, body, problem, field) => {
    const error = rejectionOf(decode, body);
    expect(error.problem).toBe(problem);
    expect(error.field).toBe(field);
    if (field) expect(error.message).toContain(field);
  });

  test('a detail that is not an object says it must hold the envelope', () => {
    expect(rejectionOf(decode, eventBridgeWithEnvelope(VIEW, { detail: [VIEW] })).message).toBe('detail must be an object (got an array): it must hold the event envelope');
  });
});

describe('eventIdPath: detail is any JSON object, keyed by the value at the path', () => {
  const decode = eventBridgeDecoder({ eventIdPath: 'detail.instance-id' });

  test('maps the EC2 sample event: type is detail-type, occurredAt is time, payload is detail', () => {
    const event = ec2StateChange();
    expect(decode(recordOf(event))).toEqual({
      eventId: eventIdFor('aws.ec2:EC2 Instance State-change Notification', INSTANCE_ID),
      type: 'EC2 Instance State-change Notification',
      occurredAt: '2026-11-30T10:00:02Z',
      source: 'aws.ec2',
      payload: { 'instance-id': INSTANCE_ID, state: 'pending' },
    });
  });

  test('the same value under another id (a retried PutEvents) is the same event; another value is another event', () => {
    const first = decode(recordOf(ec2StateChange()));
    const retry = decode(recordOf(ec2StateChange(undefined, { time: '2026-11-30T10:00:05Z' })));
    const other = decode(recordOf(ec2StateChange({ 'instance-id': 'i-0ffffffffffffffff', state: 'pending' })));
    expect(retry.eventId).toBe(first.eventId);
    expect(other.eventId).not.toBe(first.eventId);
  });

  test('a nested path, and a number at the path', () => {
    const nested = eventBridgeDecoder({ eventIdPath: 'detail.order.version' });
    const event = nested(recordOf(ec2StateChange({ order: { id: 'o-7', version: 3 } })));
    expect(event.eventId).toBe(eventIdFor('aws.ec2:EC2 Instance State-change Notification', '3'));
  });

  test('the same key from another source or detail-type is another event', () => {
    const ec2 = decode(recordOf(ec2StateChange())).eventId;
    expect(decode(recordOf(ec2StateChange(undefined, { source: 'com.example.inventory' }))).eventId).not.toBe(ec2);
    expect(decode(recordOf(ec2StateChange(undefined, { 'detail-type': 'EC2 Spot Instance Interruption Warning' }))).eventId).not.toBe(ec2);
  });

  // [scenario, detail or overrides, problem, field]
  test.each<[string, Record<string, unknown> | undefined, Record<string, unknown>, EnvelopeProblem, string]>([
    ['the path missing from detail', { state: 'pending' }, {}, EnvelopeProblem.MISSING_FIELD, 'detail.instance-id'],
    ['a null value at the path', { 'instance-id': null }, {}, EnvelopeProblem.MISSING_FIELD, 'detail.instance-id'],
    ['an empty string at the path', { 'instance-id': '' }, {}, EnvelopeProblem.EMPTY_FIELD, 'detail.instance-id'],
    ['a blank string at the path', { 'instance-id': '   ' }, {}, EnvelopeProblem.EMPTY_FIELD, 'detail.instance-id'],
    ['an object at the path', { 'instance-id': { id: INSTANCE_ID } }, {}, EnvelopeProblem.WRONG_TYPE, 'detail.instance-id'],
    ['a boolean at the path', { 'instance-id': true }, {}, EnvelopeProblem.WRONG_TYPE, 'detail.instance-id'],
    ['a detail that is an array', undefined, { detail: [INSTANCE_ID] }, EnvelopeProblem.WRONG_TYPE, 'detail'],
    ['a missing detail-type', undefined, { 'detail-type': undefined }, EnvelopeProblem.MISSING_FIELD, 'detail-type'],
    ['a detail-type with a control character', undefined, { 'detail-type': 'EC2 Instance\u0007State-change' }, EnvelopeProblem.INVALID_CHARACTERS, 'detail-type'],
    ['a detail-type of 129 characters', undefined, { 'detail-type': 'd'.repeat(129) }, EnvelopeProblem.TOO_LONG, 'detail-type'],
    ['a missing source', undefined, { source: undefined }, EnvelopeProblem.MISSING_FIELD, 'source'],
    ['a time without a zone', undefined, { time: '2026-11-30T10:00:02' }, EnvelopeProblem.INVALID_TIMESTAMP, 'time'],
  ])('rejects %s', (_scenario, detail, overrides, problem, field) => {
    const error = rejectionOf(decode, ec2StateChange(detail, overrides));
    expect(error.problem).toBe(problem);
    expect(error.field).toBe(field);
    expect(error.message).toContain(field);
  });

  test('a number too large for JavaScript (1e400 parses as Infinity) is refused, not keyed as "Infinity"', () => {
    const body = JSON.stringify(ec2StateChange({ 'instance-id': 0 })).replace('"instance-id":0', '"instance-id":1e400');
    const error = rejectionOf(decode, body);
    expect([error.problem, error.field, error.message]).toEqual([EnvelopeProblem.WRONG_TYPE, 'detail.instance-id', 'detail.instance-id must be a finite number or a string (got Infinity)']);
  });

  test('an integer past 2^53 is refused: JSON.parse may have rounded it, and two events would share one key', () => {
    const bodyWith = (digits: string) => JSON.stringify(ec2StateChange({ 'instance-id': 0 })).replace('"instance-id":0', `"instance-id":${digits}`);
    const error = rejectionOf(decode, bodyWith('12345678901234567891'));
    expect([error.problem, error.field]).toEqual([EnvelopeProblem.WRONG_TYPE, 'detail.instance-id']);
    expect(error.message).toBe('detail.instance-id is an integer past 2^53 (read as 12345678901234567000), whose digits JSON.parse may have rounded: two events could share one dedup key; send it as a string');
    expect(decode(recordOf(bodyWith(String(Number.MAX_SAFE_INTEGER)))).eventId).toBe(eventIdFor('aws.ec2:EC2 Instance State-change Notification', '9007199254740991'));
    expect(decode(recordOf(bodyWith('0.5'))).eventId).toBe(eventIdFor('aws.ec2:EC2 Instance State-change Notification', '0.5'));
  });

  test('a path that passes through a value that is not an object is missing', () => {
    const error = rejectionOf(eventBridgeDecoder({ eventIdPath: 'detail.state.name' }), ec2StateChange());
    expect([error.problem, error.field]).toEqual([EnvelopeProblem.MISSING_FIELD, 'detail.state.name']);
  });

  test('the envelope type rule does not apply: detail-type may hold spaces', () => {
    expect(decode(recordOf(ec2StateChange())).type).toContain(' ');
  });

  test('a malformed record is an InvalidEnvelopeError, not a configuration error', () => {
    expect(() => decode(recordOf(ec2StateChange({})))).toThrow(InvalidEnvelopeError);
  });
});

describe('an eventIdPath that cannot be a dedup key fails when the decoder is built', () => {
  test('"id", EventBridge\'s own id, which a retried PutEvents changes', () => {
    expect(() => eventBridgeDecoder({ eventIdPath: 'id' })).toThrow(ConfigurationError);
    expect(() => eventBridgeDecoder({ eventIdPath: 'id' })).toThrow(/eventIdPath "id" names EventBridge's own event id, which changes when a producer retries PutEvents/);
  });

  test.each(['detail', 'source', 'time', 'resources.0', 'detail.', 'detail..orderId', '.detail.orderId', 'details.orderId', '', 'detail. orderId', 'detail.orderId '])('%p, not under detail', (eventIdPath) => {
    expect(() => eventBridgeDecoder({ eventIdPath })).toThrow(ConfigurationError);
    expect(() => eventBridgeDecoder({ eventIdPath })).toThrow(`eventIdPath must be a dotted path under detail, such as "detail.orderId" or "detail.order.id" (given "${eventIdPath}")`);
  });
});
