/**
 * A statement's `Condition` block, compiled once and evaluated against each request's context.
 * Semantics (IAM User Guide, "Condition operators"): every operator and every key in the block
 * must hold; one of a key's values must match (for negated operators: none may). A key that is
 * missing from the context fails a positive operator, passes a negated one, and passes any
 * `...IfExists` operator; `Null` tests presence itself. A key may also be *unknown*: local mode
 * neither sets it nor knows that AWS leaves it out (an organization id, a principal tag); a test
 * on it decides nothing, and the block is undecided unless another test fails (authorize.ts then
 * fails closed: a Deny applies, an Allow does not allow).
 */
import { PolicyDocumentError } from './errors';
import type { ConditionValues } from './types';
import { arnPattern, stringPattern } from './wildcard';

/** What a lookup answers for a key local mode cannot know (neither set nor known to be absent). */
export const UNKNOWN_KEY: unique symbol = Symbol('unknown condition key');

/**
 * `true`/`false`, or why the block was left undecided: an operator the evaluator does not
 * implement (`unsupported`, its name), or keys local mode cannot know (`unknownKeys`, as the
 * policy spells them).
 */
export type ConditionOutcome = boolean | { readonly unsupported: string } | { readonly unknownKeys: readonly string[] };

/**
 * The values of one key in the request context: `undefined` when AWS leaves the key out of this
 * request, {@link UNKNOWN_KEY} when local mode cannot tell. The key is lower-case.
 */
export type ConditionLookup = (key: string) => readonly string[] | undefined | typeof UNKNOWN_KEY;

/** A compiled `Condition` block. */
export interface CompiledCondition {
  readonly evaluate: (lookup: ConditionLookup) => ConditionOutcome;
}

type Predicate = (contextValue: string) => boolean;
interface OperatorSpec {
  readonly compile: (policyValue: string) => Predicate;
  readonly negated: boolean;
}

const exact = (value: string): Predicate => (candidate) => candidate === value;
const ignoringCase = (value: string): Predicate => {
  const lower = value.toLowerCase();
  return (candidate) => candidate.toLowerCase() === lower;
};
const like = (value: string): Predicate => {
  const pattern = stringPattern(value);
  return (candidate) => pattern.test(candidate);
};
const arn = (value: string): Predicate => {
  const pattern = arnPattern(value);
  return (candidate) => pattern.test(candidate);
};
const numeric = (compare: (candidate: number, value: number) => boolean) => (value: string): Predicate => {
  const expected = Number(value);
  return (candidate) => candidate.trim() !== '' && compare(Number(candidate), expected);
};

/** The operators implemented; any other fails closed. ArnEquals and ArnLike are the same test in IAM. */
const OPERATORS: Readonly<Record<string, OperatorSpec>> = {
  StringEquals: { compile: exact, negated: false },
  StringNotEquals: { compile: exact, negated: true },
  StringEqualsIgnoreCase: { compile: ignoringCase, negated: false },
  StringNotEqualsIgnoreCase: { compile: ignoringCase, negated: true },
  StringLike: { compile: like, negated: false },
  StringNotLike: { compile: like, negated: true },
  ArnEquals: { compile: arn, negated: false },
  ArnLike: { compile: arn, negated: false },
  ArnNotEquals: { compile: arn, negated: true },
  ArnNotLike: { compile: arn, negated: true },
  Bool: { compile: ignoringCase, negated: false },
  NumericEquals: { compile: numeric((a, b) => a === b), negated: false },
  NumericNotEquals: { compile: numeric((a, b) => a === b), negated: true },
  NumericLessThan: { compile: numeric((a, b) => a < b), negated: false },
  NumericLessThanEquals: { compile: numeric((a, b) => a <= b), negated: false },
  NumericGreaterThan: { compile: numeric((a, b) => a > b), negated: false },
  NumericGreaterThanEquals: { compile: numeric((a, b) => a >= b), negated: false },
};

const IF_EXISTS = 'IfExists';

/** Names of the condition operators the evaluator implements (each also with `IfExists`, and `Null`). */
export const SUPPORTED_CONDITION_OPERATORS: readonly string[] = [...Object.keys(OPERATORS), 'Null'];

type KeyTest = (lookup: ConditionLookup) => ConditionOutcome;

/** Compiles a resolved `Condition` block (`undefined` for a statement without one). @throws PolicyDocumentError when it is not an object of objects */
export function compileCondition(block: unknown, policy: string): CompiledCondition {
  if (block === undefined) return { evaluate: () => true };
  const tests = Object.entries(asObject(block, policy)).flatMap(([operator, keys]) =>
    Object.entries(asObject(keys, policy)).map(([key, values]) => keyTest(operator, key, toStrings(values))),
  );
  return { evaluate: (lookup) => all(tests, lookup) };
}

/** A false test decides the block; else an unimplemented operator leaves it undecided, else unknown keys do. */
function all(tests: readonly KeyTest[], lookup: ConditionLookup): ConditionOutcome {
  let unsupported: string | undefined;
  const unknownKeys = new Set<string>();
  for (const test of tests) {
    const outcome = test(lookup);
    if (outcome === false) return false;
    if (outcome === true) continue;
    if ('unsupported' in outcome) unsupported ??= outcome.unsupported;
    else for (const key of outcome.unknownKeys) unknownKeys.add(key);
  }
  if (unsupported !== undefined) return { unsupported };
  return unknownKeys.size > 0 ? { unknownKeys: [...unknownKeys] } : true;
}

/** `key` as the policy spells it (for messages); the lookup is by its lower-case form. */
function keyTest(operator: string, key: string, values: readonly string[]): KeyTest {
  if (operator === 'Null') return nullTest(key, values);
  const ifExists = operator.endsWith(IF_EXISTS);
  const spec = OPERATORS[ifExists ? operator.slice(0, -IF_EXISTS.length) : operator];
  if (!spec || values.some((value) => value.includes('${'))) {
    const unsupported = { unsupported: spec ? `${operator} with a policy variable` : operator };
    return () => unsupported;
  }
  const predicates = values.map(spec.compile);
  const unknown = { unknownKeys: [key] };
  return (lookup) => {
    const present = lookup(key.toLowerCase());
    if (present === UNKNOWN_KEY) return unknown;
    if (present === undefined) return ifExists || spec.negated;
    const matched = present.some((candidate) => predicates.some((predicate) => predicate(candidate)));
    return spec.negated ? !matched : matched;
  };
}

function nullTest(key: string, values: readonly string[]): KeyTest {
  const wantsAbsent = values.map((value) => value.toLowerCase() === 'true');
  const unknown = { unknownKeys: [key] };
  return (lookup) => {
    const present = lookup(key.toLowerCase());
    return present === UNKNOWN_KEY ? unknown : wantsAbsent.includes(present === undefined);
  };
}

function asObject(value: unknown, policy: string): Record<string, unknown> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  throw new PolicyDocumentError(policy, `a Condition must map operators to objects of keys (given ${JSON.stringify(value)})`);
}

function toStrings(value: unknown): string[] {
  return (Array.isArray(value) ? value : [value]).map((item) => String(item));
}

/**
 * A lookup over a request's condition values, with IAM's case-insensitive key names. A key
 * given as `null` is absent; a key not given is absent too, unless `isKnown` (asked with the
 * lower-case key) says local mode cannot know it.
 * @param isKnown @default every key is known: what is not given is absent
 */
export function conditionLookup(values: ConditionValues, isKnown: (key: string) => boolean = () => true): ConditionLookup {
  const byKey = new Map<string, readonly string[] | null>();
  for (const [key, value] of Object.entries(values)) byKey.set(key.toLowerCase(), typeof value === 'string' ? [value] : value);
  return (key) => {
    const value = byKey.get(key);
    if (value !== undefined) return value ?? undefined;
    return isKnown(key) ? undefined : UNKNOWN_KEY;
  };
}
