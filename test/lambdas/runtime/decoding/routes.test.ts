/**
 * Routing by event type, payload validation, and the decoders that turn source records into
 * events: a wrong type or payload is a typed permanent failure, never a crash.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { z } from 'zod';
import { ConfigurationError, EnvelopeProblem, InvalidEnvelopeError, SchemaViolationError, UndecodableRecordError, UnknownEventTypeError } from '../../../../lambdas/runtime/core/errors';
import { eventIdFor } from '../../../../lambdas/runtime/events/event-id';
import { fromDynamoDbRecord, fromKinesisRecord, fromSqsRecord, SourceKind } from '../../../../lambdas/runtime/decoding/records';
import { defaultDecoder, dynamoStreamDecoder, envelopeDecoder, resolveRoute, route, type ConsumedEvent, type Route, type Routes, type StreamChange } from '../../../../lambdas/runtime/decoding/routes';
import { NumberValue } from '../../../../lambdas/runtime/decoding/stream-image';
import { dynamoRecord, dynamoStreamRecord, kinesisRecord, pageView, sqsRecord, TEST_TABLE_STREAM_ARN } from '../../../helpers/events';
import { thrownBy } from '../../../helpers/thrown';

const pageViewed = route(z.object({ pageId: z.string().min(1) }), (event) => `viewed ${event.payload.pageId}`);
const orderCreated = route(z.object({ order: z.object({ id: z.string(), lines: z.array(z.object({ sku: z.string(), qty: z.number().int().positive() })) }) }), () => 'created');
const ROUTES: Routes<string> = { 'page.viewed': pageViewed, 'order.created': orderCreated };

function eventOf(type: string, payload: Record<string, unknown>): ConsumedEvent {
  return { eventId: 'evt-1', type, occurredAt: '2026-11-30T10:00:00Z', source: 'test', payload };
}

describe('resolveRoute', () => {
  test('finds the route of the event type and hands it the parsed payload', () => {
    const { route: found, event } = resolveRoute(ROUTES, eventOf('page.viewed', { pageId: 'home' }));
    expect(found.handle(event, { record: fromSqsRecord(sqsRecord('{}')) })).toBe('viewed home');
  });

  test('the payload the handler sees is the schema\'s output: defaults applied, unknown keys stripped', () => {
    const routes: Routes<unknown> = { 'page.viewed': route(z.object({ pageId: z.string(), weight: z.number().default(1) }), (event) => event.payload) };
    const original = eventOf('page.viewed', { pageId: 'home', injected: '<script>' });
    const { event } = resolveRoute(routes, original);
    expect(event.payload).toEqual({ pageId: 'home', weight: 1 });
    expect(original.payload).toEqual({ pageId: 'home', injected: '<script>' });
    expect(event.eventId).toBe(original.eventId);
  });

  test('a route without a schema gets the payload as it came', () => {
    const routes: Routes<string> = { 'raw.event': { handle: () => 'ok' } };
    const original = eventOf('raw.event', { anything: [1, 2] });
    expect(resolveRoute(routes, original).event).toBe(original);
  });

  test('an unknown type is an UnknownEventTypeError that lists the known types', () => {
    const error = thrownBy(() => resolveRoute(ROUTES, eventOf('page.clicked', {})));
    expect(error).toBeInstanceOf(UnknownEventTypeError);
    expect(error).toMatchObject({ eventType: 'page.clicked', knownTypes: ['page.viewed', 'order.created'] });
    expect((error as Error).message).toContain('"page.clicked"');
    expect((error as Error).message).toContain('page.viewed, order.created');
  });

  test('a consumer without routes says it handles none', () => {
    expect((thrownBy(() => resolveRoute({}, eventOf('page.viewed', {}))) as Error).message).toContain('handles: none');
  });

  test.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'])(
    'type %s is unknown, not a crash through Object.prototype',
    (type) => {
      expect(thrownBy(() => resolveRoute(ROUTES, eventOf(type, {})))).toBeInstanceOf(UnknownEventTypeError);
    },
  );

  test('a type that differs only in case is unknown', () => {
    expect(thrownBy(() => resolveRoute(ROUTES, eventOf('Page.Viewed', { pageId: 'home' })))).toBeInstanceOf(UnknownEventTypeError);
  });

  test('a schema violation is a SchemaViolationError with one issue per problem, each naming its path', () => {
    const error = thrownBy(() => resolveRoute(ROUTES, eventOf('order.created', { order: { id: 7, lines: [{ sku: 'A', qty: 1 }, { sku: 'B', qty: -2 }] } })));
    expect(error).toBeInstanceOf(SchemaViolationError);
    const violation = error as SchemaViolationError;
    expect(violation.eventType).toBe('order.created');
    expect(violation.issues).toHaveLength(2);
    expect(violation.issues[0]).toMatch(/^order\.id: /);
    expect(violation.issues[1]).toMatch(/^order\.lines\.1\.qty: /);
    expect(violation.message).toContain('order.created');
    expect(violation.message).toContain('order.lines.1.qty');
    // The cause is the validator's Standard Schema issues: the runtime knows no schema library.
    expect(violation.cause).toEqual(expect.arrayContaining([expect.objectContaining({ message: expect.any(String), path: expect.any(Array) })]));
  });

  test('any Standard Schema validator serves, not only zod: its output is the payload the handler gets', () => {
    const pageId: StandardSchemaV1<unknown, { pageId: string }> = {
      '~standard': {
        version: 1,
        vendor: 'hand-written',
        validate: (value) => {
          const id = (value as { page?: unknown } | null)?.page;
          return typeof id === 'string' ? { value: { pageId: id.toUpperCase() } } : { issues: [{ message: 'page must be a string', path: [{ key: 'page' }] }] };
        },
      },
    };
    const routes = { 'page.viewed': route(pageId, (event) => event.payload.pageId) };
    const { route: found, event: parsed } = resolveRoute(routes, eventOf('page.viewed', { page: 'home' }));
    expect(found.handle(parsed as never, {} as never)).toBe('HOME');
    expect(() => resolveRoute(routes, eventOf('page.viewed', { page: 7 }))).toThrow('page: page must be a string');
  });

  test('a schema that validates asynchronously is refused with a clear error: a batch validates its records in one pass', () => {
    const slow: StandardSchemaV1<unknown, unknown> = { '~standard': { version: 1, vendor: 'async-lib', validate: async (value) => ({ value }) } };
    expect(() => resolveRoute({ 'page.viewed': route(slow, () => 'x') }, eventOf('page.viewed', {}))).toThrow('validates asynchronously (async-lib)');
  });

  test('a missing required field names the field', () => {
    const violation = thrownBy(() => resolveRoute(ROUTES, eventOf('page.viewed', {}))) as SchemaViolationError;
    expect(violation.issues).toEqual([expect.stringMatching(/^pageId: /)]);
  });

  test('an issue about the payload as a whole is labelled (payload)', () => {
    const routes: Routes<string> = { strict: route(z.object({ a: z.string() }).strict(), () => 'ok') };
    const violation = thrownBy(() => resolveRoute(routes, eventOf('strict', { a: 'x', b: 'y' }))) as SchemaViolationError;
    expect(violation.issues).toEqual([expect.stringMatching(/^\(payload\): /)]);
  });

  describe('a union of payload schemas (schema versions)', () => {
    const versions = z.union([
      z.object({ schemaVersion: z.literal(1).optional(), pageId: z.string() }),
      z.object({ schemaVersion: z.literal(2), page: z.object({ id: z.string() }) }),
    ]);
    const routes: Routes<string> = { 'page.viewed': route(versions, () => 'ok') };
    const issuesOf = (payload: Record<string, unknown>) => (thrownBy(() => resolveRoute(routes, eventOf('page.viewed', payload))) as SchemaViolationError).issues;

    test.each([
      ['a missing field of version 1', {}, ['pageId: Invalid input: expected string, received undefined']],
      ['a wrong type in version 1', { pageId: 42 }, ['pageId: Invalid input: expected string, received number']],
      ['a missing nested field of version 2', { schemaVersion: 2, page: {} }, ['page.id: Invalid input: expected string, received undefined']],
    ])('%s names the field of the closest alternative, not "Invalid input"', (_case, payload, expected) => {
      expect(issuesOf(payload)).toEqual(expected);
    });

    test('alternatives equally close: the first is reported', () => {
      expect(issuesOf({ schemaVersion: 3, pageId: 'home' })).toEqual(['schemaVersion: Invalid input: expected 1']);
    });
  });

  test('route() ties a schema to its handler', () => {
    const schema = z.object({ id: z.string() });
    const handle = () => 1;
    const declared: Route<{ id: string }, number> = route(schema, handle);
    expect(declared).toEqual({ schema, handle });
  });
});

describe('envelopeDecoder', () => {
  test('parses an SQS body', () => {
    const envelope = pageView('home', 'v-1');
    expect(envelopeDecoder(fromSqsRecord(sqsRecord(envelope)))).toEqual(envelope);
  });

  test('decodes Kinesis data from base64 and parses it', () => {
    const envelope = pageView('home', 'v-2');
    expect(envelopeDecoder(fromKinesisRecord(kinesisRecord(envelope)))).toEqual(envelope);
  });

  test('Kinesis data that is not UTF-8 is an InvalidEnvelopeError, not garbage with replacement characters', () => {
    const error = thrownBy(() => envelopeDecoder(fromKinesisRecord(kinesisRecord(Buffer.from([0x7b, 0xff, 0x7d])))));
    expect(error).toBeInstanceOf(InvalidEnvelopeError);
    expect((error as InvalidEnvelopeError).problem).toBe(EnvelopeProblem.NOT_UTF8);
  });

  test('an SQS body that is not an envelope is an InvalidEnvelopeError', () => {
    expect(thrownBy(() => envelopeDecoder(fromSqsRecord(sqsRecord('hello'))))).toBeInstanceOf(InvalidEnvelopeError);
  });
});

describe('dynamoStreamDecoder', () => {
  const order = { pk: 'order#o-1', orderId: 'o-1', status: 'SHIPPED', version: 3, lines: [{ sku: 'A', qty: 2 }], tags: new Set(['gift']) };
  const decode = dynamoStreamDecoder();

  test('an INSERT becomes a dynamodb.INSERT event with the unmarshalled new image', () => {
    const raw = dynamoRecord({ eventName: 'INSERT', newImage: order, eventID: 'stream-evt-1', sequenceNumber: '100' });
    const event = decode(fromDynamoDbRecord(raw));
    expect(event.type).toBe('dynamodb.INSERT');
    expect(event.payload).toEqual({ eventName: 'INSERT', keys: { pk: 'order#o-1' }, newImage: order, oldImage: undefined });
    expect((event.payload as unknown as StreamChange).newImage?.version).toBe(3);
  });

  test('a MODIFY carries both images', () => {
    const before = { ...order, status: 'PACKED', version: 2 };
    const event = decode(fromDynamoDbRecord(dynamoRecord({ eventName: 'MODIFY', oldImage: before, newImage: order })));
    expect(event.type).toBe('dynamodb.MODIFY');
    expect(event.payload).toMatchObject({ eventName: 'MODIFY', newImage: { status: 'SHIPPED', version: 3 }, oldImage: { status: 'PACKED', version: 2 } });
  });

  test('a REMOVE carries the old image only', () => {
    const event = decode(fromDynamoDbRecord(dynamoRecord({ eventName: 'REMOVE', oldImage: order })));
    expect(event.type).toBe('dynamodb.REMOVE');
    expect(event.payload).toMatchObject({ eventName: 'REMOVE', keys: { pk: 'order#o-1' }, newImage: undefined, oldImage: { orderId: 'o-1' } });
  });

  test('the stream record\'s eventID is the event id by default; the source is the stream ARN; occurredAt the creation time', () => {
    const event = decode(fromDynamoDbRecord(dynamoRecord({ eventName: 'INSERT', newImage: order, eventID: 'stream-evt-1' })));
    expect(event.eventId).toBe('stream-evt-1');
    expect(event.source).toBe(TEST_TABLE_STREAM_ARN);
    expect(event.occurredAt).toBe(new Date(1_764_496_800 * 1000).toISOString());
  });

  test('without an eventID the sequence number identifies the event', () => {
    const raw = dynamoRecord({ eventName: 'INSERT', newImage: order, sequenceNumber: '4242' });
    delete raw.eventID;
    expect(decode(fromDynamoDbRecord(raw)).eventId).toBe('4242');
  });

  test('keyOf overrides the event id with a business key, so a second write of the same fact dedups too', () => {
    const keyOf = jest.fn((change: StreamChange) => eventIdFor('order.shipped', String(change.newImage?.orderId)));
    const byBusinessKey = dynamoStreamDecoder(keyOf);
    const first = byBusinessKey(fromDynamoDbRecord(dynamoRecord({ eventName: 'MODIFY', newImage: order, eventID: 'a' })));
    const second = byBusinessKey(fromDynamoDbRecord(dynamoRecord({ eventName: 'MODIFY', newImage: { ...order, version: 4 }, eventID: 'b' })));
    expect(first.eventId).toBe(eventIdFor('order.shipped', 'o-1'));
    expect(second.eventId).toBe(first.eventId);
    expect(keyOf).toHaveBeenCalledWith(expect.objectContaining({ eventName: 'MODIFY', keys: { pk: 'order#o-1' } }), expect.objectContaining({ eventID: 'a' }));
  });

  test('an empty business key from keyOf is rejected, not used as a dedup key that every such change would share', () => {
    const emptyKey = dynamoStreamDecoder(() => '');
    const error = thrownBy(() => emptyKey(fromDynamoDbRecord(dynamoRecord({ eventName: 'INSERT', newImage: order }))));
    expect(error).toBeInstanceOf(InvalidEnvelopeError);
  });
});

describe('dynamoStreamDecoder: numbers', () => {
  const BIG_INTEGER = '9007199254740993';
  const change = () => dynamoStreamRecord({ eventName: 'INSERT', keys: { id: { N: BIG_INTEGER } }, newImage: { id: { N: BIG_INTEGER }, qty: { N: '2' } } });

  test('by default a number no JavaScript number holds fails the record, naming it', () => {
    const error = thrownBy(() => dynamoStreamDecoder()(fromDynamoDbRecord(change())));
    expect(error).toBeInstanceOf(UndecodableRecordError);
    expect((error as Error).message).toMatch(/^Keys\.id is the DynamoDB number 9007199254740993, which no JavaScript number holds exactly/);
  });

  test("numbers: 'lossless' gives keyOf and the payload NumberValues, their text whole", () => {
    const keyOf = jest.fn((streamChange: StreamChange) => eventIdFor('item.created', String(streamChange.keys.id)));
    const event = dynamoStreamDecoder(keyOf, { numbers: 'lossless' })(fromDynamoDbRecord(change()));
    expect(event.eventId).toBe(eventIdFor('item.created', BIG_INTEGER));
    expect(event.payload).toEqual({ eventName: 'INSERT', keys: { id: NumberValue.from(BIG_INTEGER) }, newImage: { id: NumberValue.from(BIG_INTEGER), qty: NumberValue.from('2') }, oldImage: undefined });
  });

  test('an unknown numbers option is refused when the decoder is made, not per record', () => {
    const error = thrownBy(() => dynamoStreamDecoder(undefined, { numbers: 'bigint' as never }));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toBe('numbers must be one of number, lossless (given "bigint")');
  });
});

describe('defaultDecoder', () => {
  test('streams of table changes use the change itself; queues and Kinesis use the envelope', () => {
    expect(defaultDecoder(SourceKind.SQS)).toBe(envelopeDecoder);
    expect(defaultDecoder(SourceKind.KINESIS)).toBe(envelopeDecoder);
    const change = defaultDecoder(SourceKind.DYNAMODB_STREAM)(fromDynamoDbRecord(dynamoRecord({ eventName: 'INSERT', newImage: { pk: 'x' } })));
    expect(change.type).toBe('dynamodb.INSERT');
  });
});
