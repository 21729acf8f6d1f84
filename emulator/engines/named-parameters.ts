/**
 * The Data API's named parameters (`:name` in the text) as PostgreSQL's positional ones (`$1`),
 * for the SQL strategy's local session and the local Data API. No driver here: the contract
 * layer imports it without the optional `pg`.
 */

/** A named parameter as PostgreSQL takes it: its value, and the cast that its type hint stands for (`::numeric`). */
export interface PositionalValue {
  readonly value: unknown;
  readonly cast?: string;
}

/**
 * `:name` placeholders (never a `::type` cast) as `$1`, `$2`, ..., each name numbered once however
 * often it appears, with the values in order.
 * @throws Error when the text names a parameter that `parameterOf` does not know
 */
export function positionalText(sql: string, parameterOf: (name: string) => PositionalValue | undefined): { text: string; values: unknown[] } {
  const numbers = new Map<string, number>();
  const values: unknown[] = [];
  const text = sql.replace(NAMED_PLACEHOLDER, (placeholder: string, name: string) => {
    const parameter = parameterOf(name);
    if (parameter === undefined) throw new Error(`the statement names ${placeholder}, which is not among its parameters: ${sql}`);
    let number = numbers.get(name);
    if (number === undefined) {
      values.push(parameter.value);
      number = values.length;
      numbers.set(name, number);
    }
    return `$${number}${parameter.cast ?? ''}`;
  });
  return { text, values };
}

/** A `:name` placeholder as the Data API reads one; never a `::type` cast. */
const NAMED_PLACEHOLDER = /(?<![:\w]):([A-Za-z_]\w*)/g;
