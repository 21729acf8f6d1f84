/**
 * The subset of DynamoDB's expressions that the runtime writes, evaluated on an item in its
 * AttributeValue form (DynamoDB Developer Guide, "Condition and filter expressions" and "Update
 * expressions"): conditions with `attribute_exists`, `attribute_not_exists`, comparisons
 * (`=`, `<>`, `<`, `<=`, `>`, `>=`), `AND`, `OR`, `NOT` and parentheses; updates with `SET a = :v`
 * and `ADD a :n` clauses, where ADD on a missing number starts from 0. Anything else is refused
 * with an {@link ExpressionError}, so that a model built on it never accepts what it does not
 * understand.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

export type Item = Record<string, AttributeValue>;

/** The names and values an expression refers to (`#name`, `:value`). */
export interface ExpressionContext {
  readonly names?: Readonly<Record<string, string>>;
  readonly values?: Readonly<Record<string, AttributeValue>>;
}

/** An expression outside the subset, or one that refers to a name or value it was not given (DynamoDB: ValidationException). */
export class ExpressionError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'ExpressionError';
  }
}

const TOKEN = /\s*(attribute_not_exists|attribute_exists|AND|OR|NOT|<>|<=|>=|[=<>(),]|[#:]?[A-Za-z_][A-Za-z0-9_]*)/y;

function tokenize(expression: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < expression.length) {
    const match = TOKEN.exec(expression);
    if (match === null) {
      if (expression.slice(TOKEN.lastIndex).trim() === '') break;
      throw new ExpressionError(`unsupported expression near "${expression.slice(TOKEN.lastIndex)}"`);
    }
    tokens.push(match[1] as string);
  }
  return tokens;
}

/** True when `item` (undefined: no item) meets the condition. */
export function meetsCondition(expression: string, item: Item | undefined, context: ExpressionContext): boolean {
  const parser = new TokenReader(tokenize(expression), context);
  const result = parser.condition(item ?? {});
  parser.expectEnd();
  return result;
}

/** The item after the update (a new object); `key` seeds an item that does not exist yet. */
export function applyUpdate(expression: string, item: Item | undefined, key: Item, context: ExpressionContext): Item {
  const updated: Item = { ...(item ?? key) };
  const reader = new TokenReader(tokenize(expression), context);
  while (!reader.atEnd()) {
    const action = reader.next();
    if (action !== 'SET' && action !== 'ADD') throw new ExpressionError(`unsupported update action "${action}"`);
    do {
      const name = reader.path();
      if (action === 'SET') reader.expect('=');
      updated[name] = action === 'SET' ? reader.value() : addNumbers(updated[name], reader.value(), name);
    } while (reader.skip(','));
  }
  return updated;
}

function addNumbers(current: AttributeValue | undefined, amount: AttributeValue, name: string): AttributeValue {
  if (amount.N === undefined || (current !== undefined && current.N === undefined)) throw new ExpressionError(`ADD ${name} needs numbers`);
  return { N: String(Number(current?.N ?? '0') + Number(amount.N)) };
}

/** Reads tokens left to right: a recursive descent over the condition grammar. */
class TokenReader {
  private position = 0;

  public constructor(
    private readonly tokens: readonly string[],
    private readonly context: ExpressionContext,
  ) {}

  public condition(item: Item): boolean {
    let result = this.conjunction(item);
    while (this.skip('OR')) result = this.conjunction(item) || result;
    return result;
  }

  public atEnd(): boolean {
    return this.position >= this.tokens.length;
  }

  public expectEnd(): void {
    if (!this.atEnd()) throw new ExpressionError(`unexpected "${this.tokens[this.position]}"`);
  }

  public next(): string {
    const token = this.tokens[this.position];
    if (token === undefined) throw new ExpressionError('the expression ends too early');
    this.position += 1;
    return token;
  }

  public skip(token: string): boolean {
    if (this.tokens[this.position] !== token) return false;
    this.position += 1;
    return true;
  }

  public expect(token: string): void {
    if (!this.skip(token)) throw new ExpressionError(`expected "${token}" at "${this.tokens[this.position] ?? 'the end'}"`);
  }

  /** An attribute name, `#name` resolved. */
  public path(): string {
    const token = this.next();
    if (token.startsWith(':')) throw new ExpressionError(`expected an attribute name, got ${token}`);
    if (!token.startsWith('#')) return token;
    const name = this.context.names?.[token];
    if (name === undefined) throw new ExpressionError(`${token} is not in ExpressionAttributeNames`);
    return name;
  }

  public value(): AttributeValue {
    const token = this.next();
    const value = this.context.values?.[token];
    if (!token.startsWith(':') || value === undefined) throw new ExpressionError(`${token} is not in ExpressionAttributeValues`);
    return value;
  }

  private conjunction(item: Item): boolean {
    let result = this.factor(item);
    while (this.skip('AND')) result = this.factor(item) && result;
    return result;
  }

  private factor(item: Item): boolean {
    if (this.skip('NOT')) return !this.factor(item);
    if (this.skip('(')) {
      const result = this.condition(item);
      this.expect(')');
      return result;
    }
    const token = this.tokens[this.position];
    if (token === 'attribute_exists' || token === 'attribute_not_exists') return this.existence(item);
    return this.comparison(item);
  }

  private existence(item: Item): boolean {
    const exists = this.next() === 'attribute_exists';
    this.expect('(');
    const present = item[this.path()] !== undefined;
    this.expect(')');
    return exists === present;
  }

  private comparison(item: Item): boolean {
    const left = this.operand(item);
    const operator = this.next();
    const right = this.operand(item);
    return compare(left, operator, right);
  }

  private operand(item: Item): AttributeValue | undefined {
    return this.tokens[this.position]?.startsWith(':') ? this.value() : item[this.path()];
  }
}

/** A comparison: false with a missing operand; of two kinds, only `<>` holds (DynamoDB compares like with like). */
function compare(left: AttributeValue | undefined, operator: string, right: AttributeValue | undefined): boolean {
  const a = scalar(left);
  const b = scalar(right);
  if (a === undefined || b === undefined) return false;
  if (typeof a !== typeof b) return operator === '<>';
  switch (operator) {
    case '=': return a === b;
    case '<>': return a !== b;
    case '<': return a < b;
    case '<=': return a <= b;
    case '>': return a > b;
    case '>=': return a >= b;
    default: throw new ExpressionError(`unsupported comparison "${operator}"`);
  }
}

function scalar(value: AttributeValue | undefined): string | number | undefined {
  if (value?.N !== undefined) return Number(value.N);
  return value?.S;
}
