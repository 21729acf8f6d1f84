/** How docs/scale.md prints numbers: the same on every machine, whatever its locale. */
import { dollars, formatNumber, perMillion, tagged } from '../../../tools/scale-model/format';
import { assumed, measured } from '../../../tools/scale-model/figures';

test.each([
  [5_485_714.29, '5,485,714'],
  [100, '100'],
  [31.28, '31.3'],
  [5, '5'],
  [2.333, '2.33'],
  [0.046666, '0.0467'],
  [0, '0'],
  [Infinity, 'unlimited'],
])('%p prints as %p', (value, text) => {
  expect(formatNumber(value)).toBe(text);
});

test('dollars, prices per million, and the basis tag', () => {
  expect([dollars(2.1049), dollars(0.0033), dollars(0)]).toEqual(['$2.10', '$0.0033', '$0']);
  expect([perMillion(0.625 / 1e6), perMillion(0.2 / 1e6), perMillion(0.4 / 1e6)]).toEqual(['$0.625 per million', '$0.20 per million', '$0.40 per million']);
  expect([tagged(measured(3.1533)), tagged(assumed(241.2))]).toEqual(['3.15 m', '241 p']);
});
