/**
 * Decimal text: one spelling per value, and which DynamoDB numbers a JavaScript number holds. A
 * DynamoDB number has up to 38 significant digits, sent as text; a double's shortest spelling has
 * at most 17. Pure functions: no engine involved.
 */
import fc from 'fast-check';
import { canonicalDecimal, exactNumber } from '../../../../lambdas/runtime/core/decimal';

describe('canonicalDecimal', () => {
  test.each([
    ['1.50', '15e-1'],
    ['15e-1', '15e-1'],
    ['0.15E1', '15e-1'],
    ['+1.5', '15e-1'],
    ['-0001.500', '-15e-1'],
    ['100', '1e2'],
    ['1e+21', '1e21'],
    ['1.', '1e0'],
    ['.5', '5e-1'],
    ['0', '0'],
    ['-0.000', '0'],
    ['0e99', '0'],
    ['9007199254740993', '9007199254740993e0'],
    ['1e-130', '1e-130'],
    ['1e99999999999999999999', '1e99999999999999999999'],
  ])('%s is spelled %s', (text, canonical) => {
    expect(canonicalDecimal(text)).toBe(canonical);
  });

  test.each(['', '.', '-', 'e5', 'NaN', 'Infinity', '0x10', '1_000', ' 1', '1e', '1.2.3'])('%p is not a decimal', (text) => {
    expect(canonicalDecimal(text)).toBeUndefined();
  });

  test('exponents that a double cannot tell apart stay apart', () => {
    expect(canonicalDecimal('1e99999999999999999999')).not.toBe(canonicalDecimal('1e99999999999999999998'));
  });
});

describe('exactNumber', () => {
  test.each([
    ['0.1', 0.1],
    ['3', 3],
    ['-42.5', -42.5],
    ['9007199254740992', 2 ** 53],
    ['1.5e40', 1.5e40],
    ['100000000000000000000', 1e20],
    ['1e-130', 1e-130],
    ['1E+125', 1e125],
    ['0.30000000000000004', 0.1 + 0.2],
  ])('the DynamoDB number %s is held as %p', (text, value) => {
    expect(exactNumber(text)).toBe(value);
  });

  test.each([
    ['2^53 + 1', '9007199254740993'],
    ['a 38-digit fraction', '0.1234567890123456789012345678901234567'],
    ['the largest DynamoDB number', '9.9999999999999999999999999999999999999E+125'],
    ['18 significant digits', '0.300000000000000044'],
    ['not a number', 'NaN'],
    ['past the doubles', '1e400'],
  ])('%s (%s) is held by no JavaScript number', (_label, text) => {
    expect(exactNumber(text)).toBeUndefined();
  });

  test('every finite double is held as itself, however its decimal is spelled', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        // String(-0) is "0": DynamoDB has one zero.
        const expected = value === 0 ? 0 : value;
        for (const text of [String(value), value.toExponential(), String(value).replace(/^(-?)/, '$1000')]) {
          expect(exactNumber(text)).toBe(expected);
        }
      }),
    );
  });

  test('a decimal of more than 17 significant digits is never held: a double has no such spelling', () => {
    const digits = fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 16, maxLength: 36 }).map((list) => list.join(''));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9 }), digits, fc.integer({ min: 1, max: 9 }), fc.integer({ min: -130, max: 125 }), (first, middle, last, exponent) => {
        expect(exactNumber(`${first}.${middle}${last}e${exponent}`)).toBeUndefined();
      }),
    );
  });
});
