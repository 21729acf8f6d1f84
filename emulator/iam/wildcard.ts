/**
 * IAM's two wildcards, `*` (any run of characters) and `?` (one character), compiled once to
 * regular expressions so that matching on every request is a `RegExp.test`.
 */

const SPECIAL = /[.+^${}()|[\]\\]/g;

function escape(text: string): string {
  return text.replace(SPECIAL, '\\$&');
}

function globSource(pattern: string, star: (index: number) => string, one: string): string {
  let source = '';
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index];
    source += char === '*' ? star(index) : char === '?' ? one : escape(char);
  }
  return source;
}

/**
 * An `Action`/`NotAction` pattern: `dynamodb:*`, `kms:GenerateDataKey*`. Action names are
 * case-insensitive (IAM: "sqs:SendMessage" and "SQS:sendmessage" are the same action).
 */
export function actionPattern(pattern: string): RegExp {
  return new RegExp(`^${globSource(pattern, () => '.*', '.')}$`, 'i');
}

/**
 * A `Resource`/`NotResource` pattern, also used by `ArnLike`/`ArnEquals`. Case-sensitive; a
 * wildcard stays within its colon-delimited segment, except a `*` that ends a segment, which may
 * run on past colons (IAM User Guide, "IAM JSON policy elements: Resource", using wildcards).
 * `*` alone matches every resource.
 */
export function arnPattern(pattern: string): RegExp {
  if (pattern === '*') return /^.*$/s;
  const endsSegment = (index: number): boolean => index === pattern.length - 1 || pattern[index + 1] === ':';
  return new RegExp(`^${globSource(pattern, (index) => (endsSegment(index) ? '.*' : '[^:]*'), '[^:]')}$`, 's');
}

/** A `StringLike` pattern: the whole value, `*` and `?` anywhere. */
export function stringPattern(pattern: string, ignoreCase = false): RegExp {
  return new RegExp(`^${globSource(pattern, () => '.*', '.')}$`, ignoreCase ? 'is' : 's');
}
