/**
 * CloudEvents 1.0 in structured JSON mode: `source` and `id` together are the dedup key; `data`
 * (or `data_base64` of JSON) becomes the payload, which must be a JSON object; a missing `time`
 * falls back to when SQS first handed the message out.
 */
import { cloudEventDecoder } from '../../../../../lambdas/runtime/decoding/cloudevent';
import { EnvelopeProblem } from '../../../../../lambdas/runtime/core/errors';
import { eventIdFor } from '../../../../../lambdas/runtime/events/event-id';
import { base64, cloudEvent, recordOf, rejectionOf } from './fixtures';

const decode = (body: unknown, options?: Parameters<typeof recordOf>[1]) => cloudEventDecoder(recordOf(body, options));

describe('a CloudEvent decodes to an event keyed on source and id', () => {
  test('maps type, time, source and data', () => {
    expect(decode(cloudEvent())).toEqual({
      eventId: eventIdFor('cloudevents', JSON.stringify(['/web/storefront', 'C7F3-0042-0001'])),
      type: 'com.example.page.viewed',
      occurredAt: '2026-11-30T10:00:03Z',
      source: '/web/storefront',
      payload: { pageId: 'pricing', viewer: { anonymous: true } },
    });
  });

  test('the same source and id is the same event, whatever else differs', () => {
    const again = decode(cloudEvent({ time: '2026-11-30T10:05:00Z', comexampleextension1: 'other' }));
    expect(again.eventId).toBe(decode(cloudEvent()).eventId);
  });

  test('the same id from another source is another event', () => {
    expect(decode(cloudEvent({ source: '/web/checkout' })).eventId).not.toBe(decode(cloudEvent()).eventId);
  });

  test('no two (source, id) pairs that concatenate alike collide', () => {
    const a = decode(cloudEvent({ source: '/a', id: 'b/c' })).eventId;
    const b = decode(cloudEvent({ source: '/a/b', id: 'c' })).eventId;
    expect(a).not.toBe(b);
  });

  test('the event id fits the envelope\'s id rules (visible ASCII, at most 256 characters), however long the id', () => {
    const { eventId } = decode(cloudEvent({ id: 'x '.repeat(5_000) }));
    expect(eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  test('without time, occurredAt is when SQS first handed the message out, the same on every redelivery', () => {
    const noTime = cloudEvent({ time: undefined });
    const first = decode(noTime, { receiveCount: 1 });
    const redelivered = decode(noTime, { receiveCount: 3 });
    expect(first.occurredAt).toBe('2025-11-30T10:00:00.000Z');
    expect(redelivered.occurredAt).toBe(first.occurredAt);
    expect(decode(cloudEvent({ time: null })).occurredAt).toBe(first.occurredAt);
  });

  test('a type with spaces is accepted (CloudEvents types are not held to our envelope\'s pattern)', () => {
    expect(decode(cloudEvent({ type: 'Page Viewed' })).type).toBe('Page Viewed');
  });

  test.each([
    ['no datacontenttype (JSON is implied)', { datacontenttype: undefined }],
    ['a null datacontenttype', { datacontenttype: null }],
    ['a JSON type with parameters', { datacontenttype: 'application/json; charset=utf-8' }],
    ['a +json type', { datacontenttype: 'application/vnd.example.page-view+json' }],
    ['an upper-case type', { datacontenttype: 'Application/JSON' }],
  ])('accepts data with %s', (_scenario, overrides) => {
    expect(decode(cloudEvent(overrides)).payload).toEqual({ pageId: 'pricing', viewer: { anonymous: true } });
  });

  test('data_base64 holding JSON is decoded to the payload', () => {
    const payload = { pageId: 'café', viewer: { anonymous: false } };
    expect(decode(cloudEvent({ data: undefined, data_base64: base64(JSON.stringify(payload)) })).payload).toEqual(payload);
  });
});

describe('a body that is not a CloudEvent with JSON object data is rejected', () => {
  // [scenario, body, problem, field]
  test.each<[string, unknown, EnvelopeProblem, string | undefined]>([
    ['a CloudEvent without id', cloudEvent({ id: undefined }), EnvelopeProblem.MISSING_FIELD, 'id'],
    ['an empty id', cloudEvent({ id: '' }), EnvelopeProblem.EMPTY_FIELD, 'id'],
    ['a numeric id', cloudEvent({ id: 42 }), EnvelopeProblem.WRONG_TYPE, 'id'],
    ['a CloudEvent without source', cloudEvent({ source: undefined }), EnvelopeProblem.MISSING_FIELD, 'source'],
    ['an empty source', cloudEvent({ source: '' }), EnvelopeProblem.EMPTY_FIELD, 'source'],
    ['a source of 257 characters', cloudEvent({ source: `/${'s'.repeat(256)}` }), EnvelopeProblem.TOO_LONG, 'source'],
    ['specversion 0.3', cloudEvent({ specversion: '0.3' }), EnvelopeProblem.UNSUPPORTED_VERSION, 'specversion'],
    ['specversion as a number', cloudEvent({ specversion: 1.0 }), EnvelopeProblem.UNSUPPORTED_VERSION, 'specversion'],
    ['no specversion (our envelope, say)', cloudEvent({ specversion: undefined }), EnvelopeProblem.MISSING_FIELD, 'specversion'],
    ['a missing type', cloudEvent({ type: undefined }), EnvelopeProblem.MISSING_FIELD, 'type'],
    ['a type with a newline', cloudEvent({ type: 'com.example\npage' }), EnvelopeProblem.INVALID_CHARACTERS, 'type'],
    ['a type of 129 characters', cloudEvent({ type: 't'.repeat(129) }), EnvelopeProblem.TOO_LONG, 'type'],
    ['a time without a zone', cloudEvent({ time: '2026-11-30T10:00:03' }), EnvelopeProblem.INVALID_TIMESTAMP, 'time'],
    ['a time on a day that does not exist', cloudEvent({ time: '2026-02-30T10:00:03Z' }), EnvelopeProblem.INVALID_TIMESTAMP, 'time'],
    ['both data and data_base64', cloudEvent({ data_base64: base64('{}') }), EnvelopeProblem.CONFLICTING_FIELDS, 'data'],
    ['neither data nor data_base64', cloudEvent({ data: undefined }), EnvelopeProblem.MISSING_FIELD, 'data'],
    ['null data', cloudEvent({ data: null }), EnvelopeProblem.WRONG_TYPE, 'data'],
    ['data that is a JSON string', cloudEvent({ data: "I'm just a string" }), EnvelopeProblem.WRONG_TYPE, 'data'],
    ['data that is an array', cloudEvent({ data: [1, 2] }), EnvelopeProblem.WRONG_TYPE, 'data'],
    ['XML data', cloudEvent({ datacontenttype: 'application/xml', data: '<much wow="xml"/>' }), EnvelopeProblem.UNSUPPORTED_CONTENT, 'datacontenttype'],
    ['binary data (Thrift)', cloudEvent({ datacontenttype: 'application/vnd.apache.thrift.binary', data: undefined, data_base64: 'AAECAw==' }), EnvelopeProblem.UNSUPPORTED_CONTENT, 'datacontenttype'],
    ['a datacontenttype that is not a media type', cloudEvent({ datacontenttype: 'json' }), EnvelopeProblem.UNSUPPORTED_CONTENT, 'datacontenttype'],
    ['a numeric datacontenttype', cloudEvent({ datacontenttype: 7 }), EnvelopeProblem.WRONG_TYPE, 'datacontenttype'],
    ['data_base64 that is not base64', cloudEvent({ data: undefined, data_base64: 'not base64!' }), EnvelopeProblem.NOT_BASE64, 'data_base64'],
    ['data_base64 without its padding', cloudEvent({ data: undefined, data_base64: base64('{"a":1}').replace(/=+$/, '') }), EnvelopeProblem.NOT_BASE64, 'data_base64'],
    ['data_base64 of invalid UTF-8', cloudEvent({ data: undefined, data_base64: Buffer.from([0x7b, 0xff, 0x7d]).toString('base64') }), EnvelopeProblem.NOT_UTF8, 'data_base64'],
    ['data_base64 of text that is not JSON', cloudEvent({ data: undefined, data_base64: base64('pageId=pricing') }), EnvelopeProblem.NOT_JSON, 'data_base64'],
    ['data_base64 of a JSON array', cloudEvent({ data: undefined, data_base64: base64('[]') }), EnvelopeProblem.NOT_AN_OBJECT, 'data_base64'],
    ['a body that is not JSON', '<event/>', EnvelopeProblem.NOT_JSON, undefined],
  ])('%s', (_scenario, body, problem, field) => {
    const error = rejectionOf(cloudEventDecoder, body);
    expect(error.problem).toBe(problem);
    expect(error.field).toBe(field);
    if (field) expect(error.message).toContain(field);
  });

  test('a non-JSON content type says only JSON object data is supported', () => {
    expect(rejectionOf(cloudEventDecoder, cloudEvent({ datacontenttype: 'application/xml', data: '<a/>' })).message).toBe('datacontenttype "application/xml" is not JSON: only JSON object data is supported');
  });

  test('a wrong specversion names the version given and the one supported', () => {
    expect(rejectionOf(cloudEventDecoder, cloudEvent({ specversion: '0.3' })).message).toBe('specversion "0.3" is not supported: only "1.0"');
  });

  test('binary content mode (attributes as message attributes, the body the bare data) is not supported', () => {
    const error = rejectionOf(cloudEventDecoder, { pageId: 'pricing' });
    expect([error.problem, error.field]).toEqual([EnvelopeProblem.MISSING_FIELD, 'specversion']);
    expect(error.message).toMatch(/not a CloudEvent in structured JSON mode/);
  });
});
