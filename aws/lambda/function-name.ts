/**
 * The `FunctionName` of Lambda's Invoke (API Reference, Invoke): a name (`my-function`), a full
 * ARN (`arn:aws:lambda:us-west-2:123456789012:function:my-function`) or a partial one
 * (`123456789012:function:my-function`), each with an optional `:<version or alias>`; the
 * `Qualifier` query parameter may name the version or alias instead. Its pattern, 1 to 170
 * characters: `(arn:(aws[a-zA-Z-]*)?:lambda:)?([a-z]{2}(-gov)?-[a-z]+-\d{1}:)?(\d{12}:)?(function:)?([a-zA-Z0-9-_\.]+)(:(\$LATEST|[a-zA-Z0-9-_]+))?`.
 */

/** The pattern of Invoke's `FunctionName`, anchored, with its parts captured. */
const FUNCTION_NAME = /^(?:arn:(aws[a-zA-Z-]*)?:lambda:)?([a-z]{2}(?:-gov)?-[a-z]+-\d{1}:)?(\d{12}:)?(?:function:)?([a-zA-Z0-9-_.]+)(?::(\$LATEST|[a-zA-Z0-9-_]+))?$/;

/** The pattern as the API Reference writes it, for messages. */
export const FUNCTION_NAME_PATTERN = '(arn:(aws[a-zA-Z-]*)?:lambda:)?([a-z]{2}(-gov)?-[a-z]+-\\d{1}:)?(\\d{12}:)?(function:)?([a-zA-Z0-9-_\\.]+)(:(\\$LATEST|[a-zA-Z0-9-_]+))?';

/** `FunctionName`'s length limit (a name alone may have 64 characters, which the pattern does not say). */
export const MAX_FUNCTION_NAME_LENGTH = 170;

/** The version Lambda runs when no qualifier is given. */
export const LATEST_VERSION = '$LATEST';

/** What a `FunctionName` (and the `Qualifier` beside it) names; what it leaves out is the caller's region and account. */
export interface FunctionReference {
  readonly name: string;
  readonly qualifier?: string;
  readonly partition?: string;
  readonly region?: string;
  readonly accountId?: string;
}

/** Where an ARN is built: the caller's partition, region and account. */
export interface FunctionScope {
  readonly region: string;
  readonly accountId: string;
  /** @default 'aws' */
  readonly partition?: string;
}

/** A `FunctionName` read, or why Lambda refuses it (400, with the code and message Lambda answers). */
export type ParsedFunctionName =
  | { readonly ok: true; readonly reference: FunctionReference }
  | { readonly ok: false; readonly code: 'ValidationException' | 'InvalidParameterValueException'; readonly message: string };

/**
 * Reads a `FunctionName`, with the `Qualifier` query parameter when given.
 * @example parseFunctionName('123456789012:function:orders:live') // { ok: true, reference: { name: 'orders', qualifier: 'live', accountId: '123456789012' } }
 */
export function parseFunctionName(functionName: string, qualifier?: string): ParsedFunctionName {
  const match = functionName.length <= MAX_FUNCTION_NAME_LENGTH ? FUNCTION_NAME.exec(functionName) : null;
  if (!match) return { ok: false, code: 'ValidationException', message: `1 validation error detected: Value '${functionName}' at 'functionName' failed to satisfy constraint: Member must satisfy regular expression pattern: ${FUNCTION_NAME_PATTERN}` };
  const [, partition, region, account, name = '', named] = match;
  if (named !== undefined && qualifier !== undefined && named !== qualifier) {
    return { ok: false, code: 'InvalidParameterValueException', message: 'The derived qualifier from the function name does not match the specified qualifier.' };
  }
  return { ok: true, reference: { name, qualifier: named ?? qualifier, partition, region: region?.slice(0, -1), accountId: account?.slice(0, -1) } };
}

/** The function's ARN, qualified when the reference is; what it leaves out comes from `scope`. */
export function functionArn(reference: FunctionReference, scope: FunctionScope): string {
  const partition = reference.partition ?? scope.partition ?? 'aws';
  const arn = `arn:${partition}:lambda:${reference.region ?? scope.region}:${reference.accountId ?? scope.accountId}:function:${reference.name}`;
  return reference.qualifier === undefined ? arn : `${arn}:${reference.qualifier}`;
}
