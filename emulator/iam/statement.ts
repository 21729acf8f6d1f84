/** A policy statement compiled for matching: its patterns built once, its condition compiled. */
import { compileCondition, type CompiledCondition } from './conditions';
import { PolicyDocumentError } from './errors';
import { principalMatcher, type PrincipalMatch, type PrincipalArns } from './principal';
import { Effect, type Permission, type StatementOrigin } from './types';
import { actionPattern, arnPattern } from './wildcard';

/** Patterns of `Action`/`Resource` (or, negated, of `NotAction`/`NotResource`). */
interface ListMatcher {
  readonly patterns: readonly RegExp[];
  readonly negated: boolean;
}

/** A statement whose values the resolver has resolved (policy-document.ts). */
export interface ResolvedStatement {
  readonly origin: StatementOrigin;
  readonly effect: Effect;
  readonly actions: { readonly values: readonly string[]; readonly negated: boolean };
  readonly resources: { readonly values: readonly string[]; readonly negated: boolean };
  /** Resource-based policies only. */
  readonly principals?: { readonly values: unknown; readonly negated: boolean };
  readonly condition?: unknown;
}

/** A statement ready to be matched against requests. */
export interface CompiledStatement {
  readonly origin: StatementOrigin;
  readonly effect: Effect;
  /** Whether the statement's action and resource elements cover the permission. */
  readonly covers: (permission: Permission) => boolean;
  /** How the statement's principal element matches the caller (resource-based policies only). */
  readonly principal?: (caller: PrincipalArns) => PrincipalMatch;
  readonly condition: CompiledCondition;
}

/** Compiles a resolved statement. @throws PolicyDocumentError for a malformed one */
export function compileStatement(statement: ResolvedStatement): CompiledStatement {
  const policy = describe(statement.origin);
  const actions = listMatcher(statement.actions, actionPattern);
  const resources = listMatcher(statement.resources, arnPattern);
  return {
    origin: statement.origin,
    effect: statement.effect,
    covers: (permission) => matches(actions, permission.action) && matches(resources, permission.resource),
    principal: statement.principals && principalMatcher(statement.principals.values, statement.principals.negated, policy),
    condition: compileCondition(statement.condition, policy),
  };
}

function listMatcher(list: ResolvedStatement['actions'], compile: (pattern: string) => RegExp): ListMatcher {
  return { patterns: list.values.map(compile), negated: list.negated };
}

function matches(matcher: ListMatcher, value: string): boolean {
  return matcher.negated !== matcher.patterns.some((pattern) => pattern.test(value));
}

/** `policy statement 2 (Sid)`, for messages. */
export function describe(origin: StatementOrigin): string {
  return `${origin.policy} statement ${origin.index}${origin.sid ? ` (${origin.sid})` : ''}`;
}

/** The effect of a raw statement. @throws PolicyDocumentError unless it is Allow or Deny */
export function effectOf(value: unknown, origin: StatementOrigin): Effect {
  if (value === Effect.ALLOW || value === Effect.DENY) return value;
  throw new PolicyDocumentError(describe(origin), `Effect must be Allow or Deny (given ${JSON.stringify(value)})`);
}
