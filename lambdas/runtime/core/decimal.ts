/**
 * Decimal numbers written as text (DynamoDB's `N`, a `NumberValue`, a bigint's digits): one
 * spelling per value, and whether a JavaScript number holds the value.
 */

/** Sign, whole digits, fraction digits, exponent: what DynamoDB and `String(number)` write. */
const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * The one spelling of a decimal's value: `<digits>e<exponent>`, `-` first when negative, meaning
 * digits × 10^exponent, the digits without leading or trailing zeros; zero is `0`. `1.50`, `15e-1`
 * and `0.15E1` all give `15e-1`. Undefined when the text is not a decimal (`NaN`, `0x10`, ``).
 */
export function canonicalDecimal(text: string): string | undefined {
  const match = DECIMAL.exec(text);
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match ?? [];
  const digits = (whole + fraction).replace(/^0+/, '');
  if (!match || whole + fraction === '') return undefined;
  if (digits === '') return '0';
  const significant = digits.replace(/0+$/, '');
  // BigInt: an exponent of twenty digits must still compare exactly.
  const power = BigInt(exponent) - BigInt(fraction.length) + BigInt(digits.length - significant.length);
  return `${sign === '-' ? '-' : ''}${significant}e${power}`;
}

/**
 * The JavaScript number that holds the decimal `text` exactly, or undefined when none does. Exactly
 * means the number's shortest spelling (`String(n)`) is the same decimal: `0.1` and `1e125` are
 * held, `9007199254740993` (2^53 + 1) and `0.1234567890123456789` (more digits than a double
 * keeps) are not, as nothing of more than 17 significant digits is.
 */
export function exactNumber(text: string): number | undefined {
  const value = Number(text);
  if (!Number.isFinite(value)) return undefined;
  // Most numbers DynamoDB sends are already spelled as JavaScript spells them.
  if (String(value) === text) return value;
  const canonical = canonicalDecimal(text);
  return canonical !== undefined && canonicalDecimal(String(value)) === canonical ? value : undefined;
}
