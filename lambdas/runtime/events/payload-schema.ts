/**
 * Payload validation through Standard Schema (standardschema.dev): any validator that implements
 * it (zod 3.24+ and 4, valibot, arktype, ...) can be a route's schema, so the app brings its own
 * schema library, and its own version of it, and the runtime imports none.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { ConfigurationError, SchemaViolationError } from '../core/errors';

/** A route's payload schema: a Standard Schema validator whose output is the payload the handler receives. */
export type PayloadSchema<TPayload> = StandardSchemaV1<unknown, TPayload>;

/**
 * Validates a payload; returns the validator's output (parsed, with its defaults and transforms).
 * @throws SchemaViolationError with one line per issue
 * @throws ConfigurationError when the schema validates asynchronously: a batch validates its records in one pass
 */
export function validatePayload<TPayload>(schema: PayloadSchema<TPayload>, eventType: string, payload: unknown): TPayload {
  const result = schema['~standard'].validate(payload);
  if (result instanceof Promise) {
    throw new ConfigurationError(`the schema of "${eventType}" validates asynchronously (${schema['~standard'].vendor}); a route's schema must validate synchronously`);
  }
  if (result.issues) throw new SchemaViolationError(eventType, issueLines(result.issues), { cause: result.issues });
  return result.value;
}

/** An issue as validators report it: Standard Schema's fields, plus what zod adds for a union. */
type Issue = StandardSchemaV1.Issue & { readonly code?: unknown; readonly errors?: unknown };

/**
 * One line per violation, `<path>: <problem>`. A union that matched none of its alternatives
 * (zod reports it as `invalid_union` with each alternative's issues) reports the alternative that
 * came closest, fewest violations, rather than a bare "Invalid input", so that the line names the
 * field at fault.
 */
function issueLines(issues: readonly Issue[], prefix: readonly PropertyKey[] = []): string[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...(issue.path ?? []).map(keyOf)];
    const alternatives = unionAlternatives(issue);
    if (alternatives.length > 0) return closestAlternative(alternatives.map((alternative) => issueLines(alternative, path)));
    return [`${path.map(String).join('.') || '(payload)'}: ${issue.message}`];
  });
}

function keyOf(segment: PropertyKey | StandardSchemaV1.PathSegment): PropertyKey {
  return typeof segment === 'object' ? segment.key : segment;
}

function unionAlternatives(issue: Issue): readonly (readonly Issue[])[] {
  if (issue.code !== 'invalid_union' || !Array.isArray(issue.errors)) return [];
  return (issue.errors as unknown[]).filter((alternative): alternative is Issue[] => Array.isArray(alternative));
}

function closestAlternative(alternatives: readonly string[][]): string[] {
  return alternatives.reduce((closest, candidate) => (candidate.length < closest.length ? candidate : closest));
}
