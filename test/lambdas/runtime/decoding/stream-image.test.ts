/**
 * DynamoDB stream images as plain values, and the form their numbers take. The images are written
 * as DynamoDB writes them (attribute values, numbers as text), as in the Lambda developer guide's
 * example event; the conversion is pure, so no engine is involved.
 */
import type { AttributeValue } from 'aws-lambda';
import { ConfigurationError, UndecodableRecordError } from '../../../../lambdas/runtime/core/errors';
import { NumberValue, StreamNumbers, streamImages, streamNumbersOf, unmarshallImage } from '../../../../lambdas/runtime/decoding/stream-image';
import { thrownBy } from '../../../helpers/thrown';

const BIG_INTEGER = '9007199254740993';
const LONG_FRACTION = '0.1234567890123456789012345678901234567';

describe('unmarshallImage', () => {
  test('turns a stream image into plain values, and no image into undefined', () => {
    const image: Record<string, AttributeValue> = {
      pk: { S: 'order#1' },
      version: { N: '3' },
      shipped: { BOOL: true },
      note: { NULL: true },
      lines: { L: [{ M: { qty: { N: '2' } } }] },
      signature: { B: 'c2lnbmVk' },
      tags: { SS: ['gift', 'fragile'] },
      sizes: { NS: ['1.5', '2'] },
      blobs: { BS: ['AAE='] },
    };
    expect(unmarshallImage(image)).toEqual({
      pk: 'order#1', version: 3, shipped: true, note: null, lines: [{ qty: 2 }], signature: 'c2lnbmVk',
      tags: new Set(['gift', 'fragile']), sizes: new Set([1.5, 2]), blobs: new Set(['AAE=']),
    });
    expect(unmarshallImage(undefined)).toBeUndefined();
  });

  test('an attribute named __proto__ stays an attribute', () => {
    const item = unmarshallImage({ ['__proto__']: { M: { n: { N: '1' } } } } as Record<string, AttributeValue>);
    expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(item, '__proto__')?.value).toEqual({ n: 1 });
  });

  test('a value of no DynamoDB type fails the record, naming where it is', () => {
    const error = thrownBy(() => unmarshallImage({ odd: { X: '1' } as unknown as AttributeValue }, 'NewImage'));
    expect(error).toBeInstanceOf(UndecodableRecordError);
    expect((error as Error).message).toBe('NewImage.odd holds no DynamoDB attribute value (its fields: X)');
  });
});

describe('numbers by default: a JavaScript number when one holds them exactly', () => {
  test('numbers a double holds arrive as numbers: 0.1, 2^53, 1.5e40, 1e-130', () => {
    const image = { a: { N: '0.1' }, b: { N: '9007199254740992' }, c: { N: '1.5e40' }, d: { N: '1E-130' } };
    expect(unmarshallImage(image)).toEqual({ a: 0.1, b: 2 ** 53, c: 1.5e40, d: 1e-130 });
  });

  test.each([
    ['an integer past 2^53', { total: { N: BIG_INTEGER } }, 'NewImage.total', BIG_INTEGER, '9007199254740992'],
    ['a 38-digit fraction', { total: { N: LONG_FRACTION } }, 'NewImage.total', LONG_FRACTION, '0.12345678901234568'],
    ['one deep in a list of maps', { lines: { L: [{ M: { qty: { N: '1' } } }, { M: { price: { N: LONG_FRACTION } } }] } }, 'NewImage.lines[1].price', LONG_FRACTION, '0.12345678901234568'],
    ['a member of a number set', { ids: { NS: ['1', BIG_INTEGER] } }, 'NewImage.ids', BIG_INTEGER, '9007199254740992'],
    ['under a name that is no identifier', { 'unit price': { N: BIG_INTEGER } }, 'NewImage["unit price"]', BIG_INTEGER, '9007199254740992'],
  ])('%s fails the record, naming the path, the value and the option that keeps it', (_label, image, path, text, nearest) => {
    const error = thrownBy(() => unmarshallImage(image as Record<string, AttributeValue>, 'NewImage'));
    expect(error).toBeInstanceOf(UndecodableRecordError);
    expect((error as Error).message).toBe(
      `${path} is the DynamoDB number ${text}, which no JavaScript number holds exactly (Number() would make it ${nearest}): ` +
        "decode with dynamoStreamDecoder(keyOf, { numbers: 'lossless' }) to receive every number as a NumberValue, its text kept",
    );
  });

  test('a key is checked as the images are', () => {
    const error = thrownBy(() => streamImages({ Keys: { id: { N: BIG_INTEGER } }, NewImage: { id: { N: BIG_INTEGER } } }));
    expect((error as Error).message).toMatch(/^Keys\.id is the DynamoDB number 9007199254740993/);
  });
});

describe("numbers: 'lossless': every number a NumberValue holding DynamoDB's text", () => {
  test('numbers keep their text, in keys, images, lists and number sets alike', () => {
    const images = streamImages(
      {
        Keys: { id: { N: BIG_INTEGER } },
        NewImage: { id: { N: BIG_INTEGER }, total: { N: LONG_FRACTION }, small: { N: '3' }, lines: { L: [{ N: '0.1' }] }, ids: { NS: [BIG_INTEGER] } },
      },
      StreamNumbers.LOSSLESS,
    );
    expect(images.keys.id).toEqual(NumberValue.from(BIG_INTEGER));
    const image = images.newImage as { total: NumberValue; small: NumberValue; lines: NumberValue[]; ids: Set<NumberValue> };
    expect(image.total).toBeInstanceOf(NumberValue);
    expect(image.total.value).toBe(LONG_FRACTION);
    expect(String(image.small)).toBe('3');
    expect(image.lines[0]?.value).toBe('0.1');
    expect([...image.ids].map((member) => member.toBigInt())).toEqual([9_007_199_254_740_993n]);
    expect(images.oldImage).toBeUndefined();
  });
});

describe('streamNumbersOf', () => {
  test('no option is the default, number; a known one is itself', () => {
    expect(streamNumbersOf(undefined)).toBe(StreamNumbers.NUMBER);
    expect(streamNumbersOf('lossless')).toBe(StreamNumbers.LOSSLESS);
  });

  test.each(['loseless', 'NUMBER', 'toString', 1])('refuses %p, naming it and the allowed values', (given) => {
    const error = thrownBy(() => streamNumbersOf(given));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toBe(`numbers must be one of number, lossless (given ${JSON.stringify(given)})`);
  });
});
