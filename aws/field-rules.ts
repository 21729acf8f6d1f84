/**
 * Checking a parsed JSON body field by field, for bodies that anyone who can send to a queue can
 * write: each rule names a field by its path (one level of nesting: `source.arn`), what it must be
 * in words, and the test. A nested field is checked only when its parent is an object, so that a
 * missing parent is one problem, not one per child. The DLQ wrapper and Lambda's on-failure
 * record are both checked with these.
 */

/** A field's path, what it must be (in words), and the test. */
export type FieldRule = readonly [path: string, expected: string, test: (value: unknown) => boolean];

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
export const isString = (value: unknown): value is string => typeof value === 'string';
export const isTime = (value: unknown): boolean => isString(value) && !Number.isNaN(Date.parse(value));
export const isCount = (value: unknown): boolean => Number.isInteger(value) && (value as number) >= 0;
export const oneOf = (values: readonly unknown[]) => (value: unknown): boolean => values.includes(value);
export const optional = (test: (value: unknown) => boolean) => (value: unknown): boolean => value === undefined || test(value);
export const recordOf = (test: (value: unknown) => boolean) => (value: unknown): boolean => isRecord(value) && Object.values(value).every(test);

/** Every problem of `body` under `rules`, each naming its field: `source.arn is missing`, `version is 2, expected 1`. */
export function problemsOf(body: Record<string, unknown>, rules: readonly FieldRule[]): string[] {
  return rules.flatMap((rule) => problemOf(body, rule));
}

function problemOf(body: Record<string, unknown>, [path, expected, test]: FieldRule): string[] {
  const [parent, field] = path.includes('.') ? (path.split('.') as [string, string]) : [undefined, path];
  const holder = parent === undefined ? body : body[parent];
  if (!isRecord(holder)) return [];
  const value = holder[field];
  if (test(value)) return [];
  return [value === undefined ? `${path} is missing` : `${path} is ${describe(value)}, expected ${expected}`];
}

/** A value, briefly, for a problem's text. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return 'an object';
  return String(value);
}
