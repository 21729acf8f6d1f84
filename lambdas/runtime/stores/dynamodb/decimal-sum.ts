/**
 * The exact sum of increments, as DynamoDB would reach it one `ADD` at a time. DynamoDB keeps a
 * number as a decimal of up to 38 significant digits and adds decimals exactly ("Numbers",
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html),
 * and each increment reaches it as its JavaScript decimal form (`String(amount)`). A batch that
 * merges an item's increments into one `ADD` must send the decimal sum of those forms: summed as
 * JavaScript numbers, `0.1 + 0.2` would store 0.30000000000000004 where two `ADD`s store 0.3, and
 * integers past 2^53 would round, so that the stored total would depend on how events were batched.
 */

/** A decimal as digits and a count of them after the point: `-1.25` is `{ digits: -125n, scale: 2 }`. */
interface Decimal {
  readonly digits: bigint;
  readonly scale: number;
}

const NUMBER_FORM = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/;

/** `amount`'s decimal form, exactly. @throws RangeError for a number with no decimal form (NaN, an infinity) */
function decimalOf(amount: number): Decimal {
  const match = NUMBER_FORM.exec(String(amount));
  if (match === null) throw new RangeError(`an increment must be a finite number, got ${amount}`);
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  const scale = fraction.length - Number(exponent);
  const digits = BigInt(`${sign}${whole}${fraction}`);
  return scale >= 0 ? { digits, scale } : { digits: digits * 10n ** BigInt(-scale), scale: 0 };
}

/** A decimal in DynamoDB's number form: no exponent, no trailing zeros after the point. */
function formatted({ digits, scale }: Decimal): string {
  const magnitude = (digits < 0n ? -digits : digits).toString().padStart(scale + 1, '0');
  const whole = magnitude.slice(0, magnitude.length - scale);
  const fraction = magnitude.slice(magnitude.length - scale).replace(/0+$/, '');
  return `${digits < 0n ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

/** The exact decimal sum of `amounts`, in the form a DynamoDB `N` value takes. */
export function exactDecimalSum(amounts: readonly number[]): string {
  const decimals = amounts.map(decimalOf);
  const scale = Math.max(0, ...decimals.map((decimal) => decimal.scale));
  const digits = decimals.reduce((sum, decimal) => sum + decimal.digits * 10n ** BigInt(scale - decimal.scale), 0n);
  return formatted({ digits, scale });
}
