/** Reading `Ref` and `Fn::GetAtt` structurally, without resolving them; resolving what must be strings. */
import { PolicyDocumentError } from './errors';
import type { Resolve } from './types';

/** The logical id that `{ Ref: id }` names, or `undefined` for any other value. */
export function refTarget(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const entries = Object.entries(value);
  return entries.length === 1 && entries[0][0] === 'Ref' && typeof entries[0][1] === 'string' ? entries[0][1] : undefined;
}

/** `[logicalId, attribute]` of `{ 'Fn::GetAtt': [id, attribute] }` (or `'id.attribute'`), else `undefined`. */
export function getAttTarget(value: unknown): readonly [string, string] | undefined {
  const argument = (value as Record<string, unknown> | null | undefined)?.['Fn::GetAtt'];
  if (typeof argument === 'string') {
    const [id, attribute] = argument.split('.', 2);
    return id && attribute ? [id, attribute] : undefined;
  }
  if (Array.isArray(argument) && typeof argument[0] === 'string' && typeof argument[1] === 'string') return [argument[0], argument[1]];
  return undefined;
}

/** `{ 'Fn::GetAtt': [logicalId, attribute] }`. */
export function getAtt(logicalId: string, attribute: string): unknown {
  return { 'Fn::GetAtt': [logicalId, attribute] };
}

/** The items of a list property (a single value counts as a list of one). */
export function listOf(value: unknown): readonly unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** A value that must resolve to a string. @throws PolicyDocumentError naming the policy when it does not */
export function resolveString(value: unknown, policy: string, resolve: Resolve): string {
  let resolved: unknown;
  try {
    resolved = resolve(value);
  } catch (error) {
    throw new PolicyDocumentError(policy, `${JSON.stringify(value)} cannot be resolved, and the policy cannot be applied without it`, { cause: error });
  }
  if (typeof resolved !== 'string') throw new PolicyDocumentError(policy, `${JSON.stringify(value)} resolved to ${JSON.stringify(resolved)}, not a string`);
  return resolved;
}
