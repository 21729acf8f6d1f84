/** The exact decimal sum that a merged `ADD` sends: what DynamoDB reaches one `ADD` at a time. */
import fc from 'fast-check';
import { exactDecimalSum } from '../../../../../lambdas/runtime/stores/dynamodb/decimal-sum';

test.each([
  [[0.1, 0.2], '0.3'],
  [[1, 2, 3], '6'],
  [[0.1, -0.1], '0'],
  [[-1.25, 0.05], '-1.2'],
  [[1e21, 1], '1000000000000000000001'],
  [[1.5e-7, 1e-7], '0.00000025'],
  [[Number.MAX_SAFE_INTEGER, 2], '9007199254740993'],
  [[-0, 0], '0'],
  [[7], '7'],
])('%p sums to %p', (amounts, sum) => {
  expect(exactDecimalSum(amounts)).toBe(sum);
});

test('a number with no decimal form is refused', () => {
  expect(() => exactDecimalSum([1, Number.NaN])).toThrow(RangeError);
  expect(() => exactDecimalSum([Number.POSITIVE_INFINITY])).toThrow(/finite number/);
});

test('sums of whole numbers are the integers\' exact sum, whatever their order', () => {
  fc.assert(
    fc.property(fc.array(fc.maxSafeInteger(), { maxLength: 20 }), (amounts) => {
      const exact = amounts.reduce((sum, amount) => sum + BigInt(amount), 0n).toString();
      expect(exactDecimalSum(amounts)).toBe(exact);
      expect(exactDecimalSum([...amounts].reverse())).toBe(exact);
    }),
  );
});
