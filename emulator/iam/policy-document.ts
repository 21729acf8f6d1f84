/**
 * Reads a policy document of the template into compiled statements, resolving its intrinsics
 * with the caller's resolver. What the resolver cannot resolve never widens a grant: an `Allow`
 * loses the `Resource` entries it cannot resolve, and is set aside whole when the value sits in
 * its `NotResource`, `Principal`, `NotPrincipal` or `Condition`; a `Deny` loses the `NotResource`
 * entries it cannot resolve (it denies more without them), and any other part of a `Deny` that
 * cannot be resolved is an error. An `Allow` with `NotPrincipal`, which IAM does not support, is
 * set aside too. Every part set aside is recorded as a {@link CompileNote}.
 */
import { PolicyDocumentError } from './errors';
import { compileStatement, describe, effectOf, type CompiledStatement, type ResolvedStatement } from './statement';
import { Effect, type CompileNote, type Resolve, type StatementOrigin } from './types';

/** Options of {@link compilePolicyDocument}. */
export interface PolicyDocumentOptions {
  /** The policy's name in messages (a logical id, `<role>/<inline policy>`, a managed policy). */
  readonly policy: string;
  readonly resolve: Resolve;
  /** Resource-based policies name principals; identity-based ones may not. */
  readonly resourceBased: boolean;
  /** Where the parts set aside are recorded. */
  readonly notes: CompileNote[];
}

type RawStatement = Readonly<Record<string, unknown>>;

/** Compiles a policy document (`{ Version, Statement }`). @throws PolicyDocumentError for one IAM would refuse */
export function compilePolicyDocument(document: unknown, options: PolicyDocumentOptions): CompiledStatement[] {
  const statements = (document as { Statement?: unknown } | undefined)?.Statement;
  if (statements === undefined) throw new PolicyDocumentError(options.policy, 'the document has no Statement');
  const list = Array.isArray(statements) ? statements : [statements];
  return list.flatMap((raw, index) => {
    const resolved = resolveStatement(raw as RawStatement, { policy: options.policy, index, sid: sidOf(raw) }, options);
    return resolved ? [compileStatement(resolved)] : [];
  });
}

function sidOf(raw: unknown): string | undefined {
  const sid = (raw as RawStatement | undefined)?.Sid;
  return typeof sid === 'string' ? sid : undefined;
}

function resolveStatement(raw: RawStatement, origin: StatementOrigin, options: PolicyDocumentOptions): ResolvedStatement | undefined {
  const context = { origin, effect: effectOf(raw.Effect, origin), options };
  const actions = strictList(context, pick(raw, 'Action', origin, true));
  const resources = resolveResources(context, pick(raw, 'Resource', origin, true));
  const principals = resolvePrincipal(context, pick(raw, 'Principal', origin, options.resourceBased));
  const condition = resolveWhole(context, 'Condition', raw.Condition);
  if (!resources || principals === null || condition === null) return undefined;
  if (principals?.negated && context.effect === Effect.ALLOW) return setAsideNotPrincipalAllow(context, principals.values);
  return { origin, effect: context.effect, actions, resources, principals, condition };
}

/**
 * `NotPrincipal` with `Allow` is not supported by IAM ("NotPrincipal must be used with
 * "Effect":"Deny"", IAM User Guide, "AWS JSON policy elements: NotPrincipal"): it grants nothing here.
 */
function setAsideNotPrincipalAllow(context: Context, value: unknown): undefined {
  context.options.notes.push({ origin: context.origin, element: 'NotPrincipal', value, detail: 'the Allow statement is set aside: IAM supports NotPrincipal only with Deny' });
  return undefined;
}

interface Context {
  readonly origin: StatementOrigin;
  readonly effect: Effect;
  readonly options: PolicyDocumentOptions;
}

/** An element given as `X` or (negated) `NotX`. */
interface Element {
  readonly name: string;
  readonly value: unknown;
  readonly negated: boolean;
}

/** The element `name` or `Not<name>`; `required` says whether the statement must name one (or must not). */
function pick(raw: RawStatement, name: string, origin: StatementOrigin, required: boolean): Element | undefined {
  const [plain, negated] = [raw[name], raw[`Not${name}`]];
  const where = describe(origin);
  if (plain !== undefined && negated !== undefined) throw new PolicyDocumentError(where, `a statement has either ${name} or Not${name}, not both`);
  if (plain === undefined && negated === undefined) {
    if (required) throw new PolicyDocumentError(where, `the statement needs ${name} or Not${name}`);
    return undefined;
  }
  if (!required) throw new PolicyDocumentError(where, `an identity-based policy may not name a ${name}`);
  return plain === undefined ? { name: `Not${name}`, value: negated, negated: true } : { name, value: plain, negated: false };
}

function strictList(context: Context, element: Element | undefined): { values: string[]; negated: boolean } {
  const { resolved, failed } = resolveEach(element?.value, context.options.resolve);
  if (failed.length > 0) throw unreadable(context, element?.name ?? '', failed[0]);
  return { values: resolved, negated: element?.negated ?? false };
}

function resolveResources(context: Context, element: Element | undefined): { values: string[]; negated: boolean } | undefined {
  const { resolved, failed } = resolveEach(element?.value, context.options.resolve);
  const [name, negated] = [element?.name ?? '', element?.negated ?? false];
  if (failed.length === 0) return { values: resolved, negated };
  // Without a Resource entry a statement covers less; without a NotResource entry, more.
  const coversLess = !negated;
  if (coversLess === (context.effect === Effect.ALLOW)) {
    for (const failure of failed) note(context, name, failure, 'the entry is set aside: the statement grants less without it');
    return { values: resolved, negated };
  }
  if (context.effect === Effect.DENY) throw unreadable(context, name, failed[0]);
  note(context, name, failed[0], 'the Allow statement is set aside: without this entry it would grant more');
  return undefined;
}

/** The resolved principal element; `null` when the statement is set aside. */
function resolvePrincipal(context: Context, element: Element | undefined): ResolvedStatement['principals'] | null {
  if (!element) return undefined;
  const value = resolveWhole(context, element.name, element.value);
  return value === null ? null : { values: value, negated: element.negated };
}

/** A resolved element; `null` when an Allow is set aside for it. @throws PolicyDocumentError when a Deny cannot be read */
function resolveWhole(context: Context, name: string, value: unknown): unknown {
  if (value === undefined) return undefined;
  try {
    return context.options.resolve(value);
  } catch (error) {
    if (context.effect === Effect.DENY) throw unreadable(context, name, { value, error });
    note(context, name, { value, error }, 'the Allow statement is set aside: its grant depends on a value local mode cannot resolve');
    return null;
  }
}

interface Failure {
  readonly value: unknown;
  readonly error: unknown;
}

function resolveEach(value: unknown, resolve: Resolve): { resolved: string[]; failed: Failure[] } {
  const resolved: string[] = [];
  const failed: Failure[] = [];
  for (const item of value === undefined ? [] : Array.isArray(value) ? value : [value]) {
    try {
      const result = resolve(item);
      resolved.push(...(Array.isArray(result) ? result : [result]).map(String));
    } catch (error) {
      failed.push({ value: item, error });
    }
  }
  return { resolved, failed };
}

function note(context: Context, element: string, failure: Failure, detail: string): void {
  context.options.notes.push({ origin: context.origin, element, value: failure.value, detail: `${detail} (${messageOf(failure.error)})` });
}

function unreadable(context: Context, element: string, failure: Failure | undefined): PolicyDocumentError {
  const detail = `${element} ${JSON.stringify(failure?.value)} cannot be resolved (${messageOf(failure?.error)}), and the ${context.effect} statement cannot be evaluated without it`;
  return new PolicyDocumentError(describe(context.origin), detail, { cause: failure?.error });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
