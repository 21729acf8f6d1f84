/**
 * A consumer's name and the identifiers derived from it. The name becomes the dedup key prefix,
 * the handler's file name and, in PascalCase, the construct id, so it must be safe as all three.
 */
import { CONSUMER_NAME_PATTERN } from '../../lib/consumer-props';

/** Kebab-case: lowercase words of letters and digits joined by single hyphens. */
const KEBAB_CASE = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/**
 * Names that would read as a keyword where the name becomes code, or clash with a module or a
 * device file: JavaScript's reserved words (strict mode and TypeScript's contextual ones
 * included), `index` (the folder modules), and Windows' device names.
 */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  ...['break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else'],
  ...['enum', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'import', 'in', 'instanceof'],
  ...['new', 'null', 'return', 'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof', 'var', 'void'],
  ...['while', 'with', 'yield', 'let', 'static', 'implements', 'interface', 'package', 'private'],
  ...['protected', 'public', 'await', 'async', 'arguments', 'eval', 'undefined', 'constructor', 'prototype'],
  ...['index', 'con', 'prn', 'aux', 'nul', 'com1', 'com2', 'com3', 'com4', 'lpt1', 'lpt2', 'lpt3'],
]);

/** Why `name` cannot be a consumer name; empty when it can. */
export function nameProblems(name: string): string[] {
  if (!CONSUMER_NAME_PATTERN.test(name) || !KEBAB_CASE.test(name)) {
    const suggestion = kebabCaseOf(name);
    const instead = suggestion !== name && CONSUMER_NAME_PATTERN.test(suggestion) && KEBAB_CASE.test(suggestion) ? `; did you mean ${suggestion}?` : '';
    return [
      `"${name}" is not a valid consumer name: use 2 to 63 lowercase letters, digits and single hyphens, ` +
        `starting with a letter and not ending with a hyphen (${CONSUMER_NAME_PATTERN}, kebab-case)${instead}`,
    ];
  }
  if (RESERVED_NAMES.has(name)) return [`"${name}" is a reserved word: choose a name that says what the consumer does (e.g. ${name}-audit)`];
  return [];
}

/** `Audit_Trail` -> `audit-trail`: a guess at the kebab-case name someone meant. */
function kebabCaseOf(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** The identifiers a consumer's generated code uses. */
export interface ConsumerIdentifiers {
  /** `audit-trail`: consumer name and file name. */
  readonly kebab: string;
  /** `AuditTrail`: construct id, and the suffix of `createAuditTrail` and `addAuditTrail`. */
  readonly pascal: string;
}

/** `audit-trail` -> `{ kebab: 'audit-trail', pascal: 'AuditTrail' }`. */
export function identifiersOf(name: string): ConsumerIdentifiers {
  const pascal = name
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
  return { kebab: name, pascal };
}
