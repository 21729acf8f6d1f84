/**
 * SQS's character and size rules for text. Results are checked with test/helpers/sqs-rules.ts,
 * which is written from SQS's documentation and shares no code with the module under test.
 */
import fc from 'fast-check';
import { escapeJsonForSqs, isSqsText, REPLACEMENT_CHARACTER, SQS_TEXT_RANGES, toSqsText, truncateUtf8 } from '../../aws/sqs-text';
import { sqsViolations } from '../helpers/sqs-rules';

const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/q';

/** What SQS would say of `text` as a message body: true when it accepts it. */
function sqsAcceptsBody(text: string): boolean {
  return sqsViolations({ QueueUrl: QUEUE_URL, MessageBody: text }).length === 0;
}

const REFUSED = ['\u0000', '\u0008', '\u000B', '\u000C', '\u000E', '\u001F', '\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uFFFE', '\uFFFF'];
const ACCEPTED = ['\t', '\n', '\r', ' ', '\u007F', '\u0085', '\uD7FF', '\uE000', '\uFFFD', '\u{10000}', '\u{1F600}', '\u{10FFFF}'];

/** Any code point, lone surrogates and the refused ones drawn often, so the edges are hit every run. */
const codePoint = fc.oneof(fc.constantFrom(...REFUSED, ...ACCEPTED), fc.integer({ min: 0, max: 0x10ffff }).map((value) => String.fromCodePoint(value)));
const anyText = fc.array(codePoint, { maxLength: 40 }).map((units) => units.join(''));

describe('SQS_TEXT_RANGES', () => {
  test('are the ranges SQS documents: #x9 | #xA | #xD | #x20-#xD7FF | #xE000-#xFFFD | #x10000-#x10FFFF', () => {
    expect(SQS_TEXT_RANGES).toEqual([[0x9, 0x9], [0xa, 0xa], [0xd, 0xd], [0x20, 0xd7ff], [0xe000, 0xfffd], [0x10000, 0x10ffff]]);
  });
});

describe('isSqsText', () => {
  test.each(REFUSED.map((char) => [hex(char), char]))('refuses %s', (_name, char) => {
    expect(isSqsText(`a${char}b`)).toBe(false);
  });

  test.each(ACCEPTED.map((char) => [hex(char), char]))('accepts %s', (_name, char) => {
    expect(isSqsText(`a${char}b`)).toBe(true);
  });

  test('a surrogate pair in the wrong order is two lone surrogates', () => {
    expect(isSqsText('\uDE00\uD83D')).toBe(false);
  });

  test('agrees with the documented rules on any text', () => {
    fc.assert(fc.property(anyText.filter((text) => text.length > 0), (text) => isSqsText(text) === sqsAcceptsBody(text)));
  });
});

describe('toSqsText', () => {
  test('replaces each refused code point by U+FFFD and keeps everything else, valid pairs included', () => {
    expect(toSqsText('a\u0000b\uFFFFc\uD800d\uD83D\uDE00e\tf')).toBe(`a${REPLACEMENT_CHARACTER}b${REPLACEMENT_CHARACTER}c${REPLACEMENT_CHARACTER}d\uD83D\uDE00e\tf`);
  });

  test('yields text SQS accepts, one code point for one', () => {
    fc.assert(
      fc.property(anyText.filter((text) => text.length > 0), (text) => {
        const sanitized = toSqsText(text);
        return sqsAcceptsBody(sanitized) && [...sanitized].length === [...text].length;
      }),
    );
  });
});

describe('truncateUtf8', () => {
  test('keeps text that fits as it is', () => {
    expect(truncateUtf8('aé😀', 7)).toBe('aé😀');
  });

  test.each([
    [0, ''],
    [1, 'a'],
    [2, 'a'],
    [3, 'aé'],
    [6, 'aé'],
    [7, 'aé😀'],
  ])('cuts "aé😀" (1 + 2 + 4 bytes) at %i bytes between code points: "%s"', (maxBytes, expected) => {
    expect(truncateUtf8('aé😀', maxBytes)).toBe(expected);
  });

  test('never leaves half of a surrogate pair, and keeps the longest prefix that fits', () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 0, max: 200 }), (text, maxBytes) => {
        const cut = truncateUtf8(text, maxBytes);
        const points = [...text];
        const kept = [...cut].length;
        const isWholeCodePoints = cut === points.slice(0, kept).join('');
        const isLongest = kept === points.length || Buffer.byteLength(cut + points[kept]) > maxBytes;
        return isWholeCodePoints && Buffer.byteLength(cut) <= maxBytes && isLongest;
      }),
    );
    expect(truncateUtf8('\uD83D\uDE00', 3)).toBe('');
  });

  test.each([-1, 1.5, Number.NaN])('refuses a byte count of %p', (maxBytes) => {
    expect(() => truncateUtf8('abc', maxBytes)).toThrow(RangeError);
  });
});

describe('escapeJsonForSqs', () => {
  test('escapes U+FFFE and U+FFFF, which JSON.stringify leaves raw', () => {
    const json = JSON.stringify({ text: 'a\uFFFEb\uFFFFc' });
    expect(json).toContain('\uFFFF');
    expect(escapeJsonForSqs(json)).toBe('{"text":"a\\uFFFEb\\uFFFFc"}');
  });

  test('escapes a lone surrogate in JSON text that holds it raw, as JSON from elsewhere may', () => {
    const json = '{"text":"\uD800"}';
    expect(JSON.parse(escapeJsonForSqs(json))).toEqual({ text: '\uD800' });
    expect(sqsAcceptsBody(escapeJsonForSqs(json))).toBe(true);
  });

  test('leaves JSON that SQS accepts unchanged', () => {
    const json = JSON.stringify({ text: 'plain, é, \uD83D\uDE00', list: [1, null, true] }, null, 2);
    expect(escapeJsonForSqs(json)).toBe(json);
  });

  test('any string, stringified and escaped, is a body SQS accepts and parses back to the same string', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const body = escapeJsonForSqs(JSON.stringify({ text }));
        return sqsAcceptsBody(body) && (JSON.parse(body) as { text: string }).text === text;
      }),
    );
  });
});

describe('the SQS rules checker these tests rely on (test/helpers/sqs-rules.ts)', () => {
  const attribute = (StringValue: string, DataType = 'String') => ({ DataType, StringValue });
  const violationsOf = (MessageAttributes: Record<string, { DataType: string; StringValue: string }>, MessageBody = 'x') => sqsViolations({ QueueUrl: QUEUE_URL, MessageBody, MessageAttributes });

  test.each(['AWS.trace', 'aws.x', 'Amazon.x', 'AMAZON.x', '.leading', 'trailing.', 'two..periods', 'a space', 'ümlaut', '', 'n'.repeat(257)])('refuses the attribute name "%s"', (name) => {
    expect(violationsOf({ [name]: attribute('v') })).not.toEqual([]);
  });

  test.each(['a', 'eo-error-message', 'a.b_c-D9', 'awsx.y', 'n'.repeat(256)])('accepts the attribute name "%s"', (name) => {
    expect(violationsOf({ [name]: attribute('v') })).toEqual([]);
  });

  test('refuses an empty or refused-character value, an unknown data type, a non-numeric Number, 11 attributes, an empty body', () => {
    expect(violationsOf({ a: attribute('') })).toHaveLength(1);
    expect(violationsOf({ a: attribute('\u0001') })).toHaveLength(1);
    expect(violationsOf({ a: attribute('v', 'Text') })).toHaveLength(1);
    expect(violationsOf({ a: attribute('twelve', 'Number') })).toHaveLength(1);
    expect(violationsOf(Object.fromEntries(Array.from({ length: 11 }, (_, index) => [`a${index}`, attribute('v')])))).toHaveLength(1);
    expect(violationsOf({}, '')).toHaveLength(1);
    expect(violationsOf({ a: attribute('12.5', 'Number.price'), b: attribute('v', 'String.label') })).toEqual([]);
  });

  test('counts the body and every attribute name, type and value toward the queue\'s MaximumMessageSize (default 1,048,576)', () => {
    const input = { QueueUrl: QUEUE_URL, MessageBody: 'b'.repeat(1_000), MessageAttributes: { abc: attribute('v'.repeat(18)) } };
    expect(sqsViolations(input, { maximumMessageSize: 1_027 })).toEqual([]);
    expect(sqsViolations(input, { maximumMessageSize: 1_026 })).toHaveLength(1);
    expect(sqsViolations({ QueueUrl: QUEUE_URL, MessageBody: 'b'.repeat(1_048_577) })).toHaveLength(1);
    expect(sqsViolations({ QueueUrl: QUEUE_URL, MessageBody: 'b'.repeat(1_048_576) })).toEqual([]);
  });
});

function hex(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}
