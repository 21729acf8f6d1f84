/**
 * The envelope parser: every way a producer can get a body wrong must end as a typed
 * InvalidEnvelopeError (a permanent failure: the record goes to the DLQ), never as a crash, and
 * the error must say which field is wrong.
 */
import { classifyError } from '../../../../lambdas/runtime/core/classify';
import { decodeUtf8, ENVELOPE_LIMITS, parseEnvelope } from '../../../../lambdas/runtime/events/envelope';
import { EnvelopeProblem, FailureKind, InvalidEnvelopeError, PermanentError } from '../../../../lambdas/runtime/core/errors';

const VALID = {
  eventId: 'c0a8012e-7f1b-5d2a-9c3e-1b2d3e4f5a6b',
  type: 'page.viewed',
  occurredAt: '2026-11-30T10:00:00.000Z',
  source: 'web-frontend',
  payload: { pageId: 'home' },
} as const;

/** The valid envelope with some fields replaced; `undefined` removes a field. */
function bodyWith(overrides: Record<string, unknown>): string {
  const envelope: Record<string, unknown> = { ...VALID, ...overrides };
  for (const [field, value] of Object.entries(overrides)) if (value === undefined) delete envelope[field];
  return JSON.stringify(envelope);
}

/** The error parseEnvelope throws for `body`; fails the test if it throws something else or nothing. */
function rejectionOf(body: string): InvalidEnvelopeError {
  try {
    parseEnvelope(body);
  } catch (error) {
    if (error instanceof InvalidEnvelopeError) return error;
    throw new Error(`expected an InvalidEnvelopeError, got ${String(error)}`, { cause: error });
  }
  throw new Error(`expected ${JSON.stringify(body)} to be rejected, but it parsed`);
}

describe('parseEnvelope rejects a broken body with a typed error', () => {
  // [scenario, body, problem, field]
  test.each<[string, string, EnvelopeProblem, string | undefined]>([
    ['an empty body', '', EnvelopeProblem.EMPTY_BODY, undefined],
    ['a body of spaces', '   ', EnvelopeProblem.EMPTY_BODY, undefined],
    ['a body of newlines and tabs', '\n\t\r\n', EnvelopeProblem.EMPTY_BODY, undefined],
    ['a body that is not JSON', 'page viewed: home', EnvelopeProblem.NOT_JSON, undefined],
    ['truncated JSON', bodyWith({}).slice(0, 40), EnvelopeProblem.NOT_JSON, undefined],
    ['a JSON array', JSON.stringify([VALID]), EnvelopeProblem.NOT_AN_OBJECT, undefined],
    ['a JSON string', JSON.stringify('page.viewed'), EnvelopeProblem.NOT_AN_OBJECT, undefined],
    ['a JSON number', '42', EnvelopeProblem.NOT_AN_OBJECT, undefined],
    ['JSON null', 'null', EnvelopeProblem.NOT_AN_OBJECT, undefined],
    ['JSON true', 'true', EnvelopeProblem.NOT_AN_OBJECT, undefined],
    ['a missing eventId', bodyWith({ eventId: undefined }), EnvelopeProblem.MISSING_FIELD, 'eventId'],
    ['a null eventId', bodyWith({ eventId: null }), EnvelopeProblem.MISSING_FIELD, 'eventId'],
    ['a numeric eventId', bodyWith({ eventId: 12345 }), EnvelopeProblem.WRONG_TYPE, 'eventId'],
    ['an object eventId', bodyWith({ eventId: { id: 'x' } }), EnvelopeProblem.WRONG_TYPE, 'eventId'],
    ['an empty eventId', bodyWith({ eventId: '' }), EnvelopeProblem.EMPTY_FIELD, 'eventId'],
    ['a blank eventId', bodyWith({ eventId: '   ' }), EnvelopeProblem.EMPTY_FIELD, 'eventId'],
    ['an eventId of 257 characters', bodyWith({ eventId: 'e'.repeat(257) }), EnvelopeProblem.TOO_LONG, 'eventId'],
    ['an eventId with a space', bodyWith({ eventId: 'order 42' }), EnvelopeProblem.INVALID_CHARACTERS, 'eventId'],
    ['an eventId with a trailing newline', bodyWith({ eventId: 'order-42\n' }), EnvelopeProblem.INVALID_CHARACTERS, 'eventId'],
    ['an eventId with a NUL character', bodyWith({ eventId: 'order\u000042' }), EnvelopeProblem.INVALID_CHARACTERS, 'eventId'],
    ['an eventId with a DEL character', bodyWith({ eventId: 'order\u007f42' }), EnvelopeProblem.INVALID_CHARACTERS, 'eventId'],
    ['an eventId with an accented letter', bodyWith({ eventId: 'commande-été' }), EnvelopeProblem.INVALID_CHARACTERS, 'eventId'],
    ['an eventId with a zero-width space', bodyWith({ eventId: 'order-\u200b42' }), EnvelopeProblem.INVALID_CHARACTERS, 'eventId'],
    ['an eventId with an emoji', bodyWith({ eventId: 'order-🚚' }), EnvelopeProblem.INVALID_CHARACTERS, 'eventId'],
    ['a missing type', bodyWith({ type: undefined }), EnvelopeProblem.MISSING_FIELD, 'type'],
    ['a numeric type', bodyWith({ type: 7 }), EnvelopeProblem.WRONG_TYPE, 'type'],
    ['an empty type', bodyWith({ type: '' }), EnvelopeProblem.EMPTY_FIELD, 'type'],
    ['a type with a space', bodyWith({ type: 'page viewed' }), EnvelopeProblem.INVALID_CHARACTERS, 'type'],
    ['a type starting with a dot', bodyWith({ type: '.page' }), EnvelopeProblem.INVALID_CHARACTERS, 'type'],
    ['a type of 129 characters', bodyWith({ type: 't'.repeat(129) }), EnvelopeProblem.TOO_LONG, 'type'],
    ['a missing occurredAt', bodyWith({ occurredAt: undefined }), EnvelopeProblem.MISSING_FIELD, 'occurredAt'],
    ['an epoch-millis occurredAt', bodyWith({ occurredAt: 1_764_496_800_000 }), EnvelopeProblem.WRONG_TYPE, 'occurredAt'],
    ['an occurredAt that is not a timestamp', bodyWith({ occurredAt: 'yesterday' }), EnvelopeProblem.INVALID_TIMESTAMP, 'occurredAt'],
    ['an occurredAt without a zone', bodyWith({ occurredAt: '2026-11-30T10:00:00' }), EnvelopeProblem.INVALID_TIMESTAMP, 'occurredAt'],
    ['an occurredAt with only a date', bodyWith({ occurredAt: '2026-11-30' }), EnvelopeProblem.INVALID_TIMESTAMP, 'occurredAt'],
    ['an occurredAt in RFC 2822 form', bodyWith({ occurredAt: 'Mon, 30 Nov 2026 10:00:00 GMT' }), EnvelopeProblem.INVALID_TIMESTAMP, 'occurredAt'],
    ['an occurredAt with month 13', bodyWith({ occurredAt: '2026-13-01T10:00:00Z' }), EnvelopeProblem.INVALID_TIMESTAMP, 'occurredAt'],
    ['an occurredAt at hour 25', bodyWith({ occurredAt: '2026-11-30T25:00:00Z' }), EnvelopeProblem.INVALID_TIMESTAMP, 'occurredAt'],
    ['an occurredAt with a lowercase zone', bodyWith({ occurredAt: '2026-11-30T10:00:00z' }), EnvelopeProblem.INVALID_TIMESTAMP, 'occurredAt'],
    ['a missing source', bodyWith({ source: undefined }), EnvelopeProblem.MISSING_FIELD, 'source'],
    ['an empty source', bodyWith({ source: '' }), EnvelopeProblem.EMPTY_FIELD, 'source'],
    ['an array source', bodyWith({ source: ['web'] }), EnvelopeProblem.WRONG_TYPE, 'source'],
    ['a source of 257 characters', bodyWith({ source: 's'.repeat(257) }), EnvelopeProblem.TOO_LONG, 'source'],
    ['a missing payload', bodyWith({ payload: undefined }), EnvelopeProblem.MISSING_FIELD, 'payload'],
    ['a null payload', bodyWith({ payload: null }), EnvelopeProblem.MISSING_FIELD, 'payload'],
    ['an array payload', bodyWith({ payload: [{ pageId: 'home' }] }), EnvelopeProblem.WRONG_TYPE, 'payload'],
    ['a string payload', bodyWith({ payload: '{"pageId":"home"}' }), EnvelopeProblem.WRONG_TYPE, 'payload'],
    ['a numeric payload', bodyWith({ payload: 0 }), EnvelopeProblem.WRONG_TYPE, 'payload'],
  ])('%s', (_scenario, body, problem, field) => {
    const error = rejectionOf(body);
    expect(error.problem).toBe(problem);
    expect(error.field).toBe(field);
    if (field) expect(error.message).toContain(field);
  });

  test('every rejection is a permanent failure named InvalidEnvelopeError', () => {
    const error = rejectionOf('not json');
    expect(error).toBeInstanceOf(PermanentError);
    expect(error.name).toBe('InvalidEnvelopeError');
    expect(classifyError(error)).toBe(FailureKind.PERMANENT);
  });

  test('a body that is not JSON keeps the parser error as its cause and quotes it', () => {
    const error = rejectionOf('{"eventId": ');
    expect(error.cause).toBeInstanceOf(SyntaxError);
    expect(error.message).toMatch(/^body is not JSON: /);
  });

  test('a wrong-typed field says what it got', () => {
    expect(rejectionOf(bodyWith({ payload: [1] })).message).toContain('an array');
    expect(rejectionOf(bodyWith({ eventId: 12 })).message).toContain('a number');
    expect(rejectionOf('null').message).toContain('null');
  });

  test('the first broken field is reported when several are broken', () => {
    const error = rejectionOf(bodyWith({ eventId: '', type: undefined, payload: [] }));
    expect(error.field).toBe('eventId');
  });

  test('rejects an occurredAt on a day that does not exist (2026-02-30)', () => {
    const error = rejectionOf(bodyWith({ occurredAt: '2026-02-30T10:00:00Z' }));
    expect(error.problem).toBe(EnvelopeProblem.INVALID_TIMESTAMP);
    expect(error.field).toBe('occurredAt');
  });
});

describe('decodeUtf8 refuses invalid UTF-8 instead of replacing characters', () => {
  test.each([
    ['bytes that never occur in UTF-8', [0xff, 0xfe, 0x7b]],
    ['a truncated three-byte sequence', [0x7b, 0xe2, 0x82]],
    ['an overlong encoding of "/"', [0xc0, 0xaf]],
    ['an encoded UTF-16 surrogate', [0xed, 0xa0, 0x80]],
    ['a lone continuation byte', [0x7b, 0x80, 0x7d]],
  ])('%s', (_scenario, bytes) => {
    let caught: unknown;
    try {
      decodeUtf8(Uint8Array.from(bytes));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidEnvelopeError);
    expect((caught as InvalidEnvelopeError).problem).toBe(EnvelopeProblem.NOT_UTF8);
    expect((caught as InvalidEnvelopeError).message).toMatch(/UTF-8/);
  });

  test('decodes valid multi-byte text unchanged', () => {
    const text = JSON.stringify({ ...VALID, payload: { title: 'Café — 東京 🚚' } });
    expect(decodeUtf8(Buffer.from(text, 'utf8'))).toBe(text);
  });
});

describe('parseEnvelope accepts a valid envelope', () => {
  test('returns exactly the five envelope fields', () => {
    expect(parseEnvelope(bodyWith({}))).toEqual(VALID);
  });

  test('drops unknown top-level fields instead of passing them on', () => {
    const envelope = parseEnvelope(bodyWith({ traceId: 'abc', eventId: VALID.eventId }));
    expect(envelope).not.toHaveProperty('traceId');
  });

  test('keeps the payload as the producer wrote it, nested fields included', () => {
    const payload = { pageId: 'home', tags: ['a', 'b'], viewer: { id: 7, anonymous: false } };
    expect(parseEnvelope(bodyWith({ payload })).payload).toEqual(payload);
  });

  test('accepts an empty payload object: the event type\'s schema decides whether it is enough', () => {
    expect(parseEnvelope(bodyWith({ payload: {} })).payload).toEqual({});
  });

  test.each([
    '2026-11-30T10:00:00Z',
    '2026-11-30T10:00Z',
    '2026-11-30T10:00:00.123456789Z',
    '2026-11-30T11:00:00+01:00',
    '2026-11-30T05:00:00-05:00',
    '2026-11-30T11:00:00+0100',
    '2028-02-29T10:00:00Z',
  ])('accepts occurredAt %s', (occurredAt) => {
    expect(parseEnvelope(bodyWith({ occurredAt })).occurredAt).toBe(occurredAt);
  });

  test('accepts an eventId of exactly the maximum length', () => {
    const eventId = 'e'.repeat(ENVELOPE_LIMITS.eventIdMaxLength);
    expect(parseEnvelope(bodyWith({ eventId })).eventId).toBe(eventId);
  });

  test('accepts every visible ASCII character in an eventId', () => {
    const eventId = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
    expect(parseEnvelope(bodyWith({ eventId })).eventId).toBe(eventId);
  });

  test.each(['page.viewed', 'order.status-changed', 'billing:invoice/paid', 'v2_event'])('accepts type %s', (type) => {
    expect(parseEnvelope(bodyWith({ type })).type).toBe(type);
  });

  test('accepts a body surrounded by whitespace', () => {
    expect(parseEnvelope(`\n  ${bodyWith({})}  \n`)).toEqual(VALID);
  });
});
