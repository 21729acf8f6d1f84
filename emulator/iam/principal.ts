/**
 * The caller's ARNs, and how a resource-based policy's `Principal` names it. A statement can name
 * the caller itself (its role or role session, or everyone with `*`), or the caller's account
 * (`arn:aws:iam::<account>:root` or the bare account id). Naming the account grants nothing by
 * itself: it delegates to the account's identity-based policies (IAM User Guide, "AWS JSON policy
 * elements: Principal"; AWS KMS Developer Guide, "Default key policy").
 */
import { PolicyDocumentError } from './errors';
import type { RolePrincipal } from './types';

/** The ARNs that identify a role session. */
export interface PrincipalArns {
  readonly accountId: string;
  readonly partition: string;
  /** `arn:aws:iam::<account>:role/<name>`: what `aws:PrincipalArn` holds for a role session. */
  readonly roleArn: string;
  /** `arn:aws:sts::<account>:assumed-role/<name>/<session>`: who AWS's messages name. */
  readonly sessionArn: string;
}

/** How a statement's principal element matches the caller. */
export const PrincipalMatch = { CALLER: 'caller', ACCOUNT: 'account', NONE: 'none' } as const;
export type PrincipalMatch = (typeof PrincipalMatch)[keyof typeof PrincipalMatch];

/** The ARNs of a role session. */
export function principalArns(principal: RolePrincipal): PrincipalArns {
  const partition = principal.partition ?? 'aws';
  return {
    accountId: principal.accountId,
    partition,
    roleArn: `arn:${partition}:iam::${principal.accountId}:role/${principal.roleName}`,
    sessionArn: `arn:${partition}:sts::${principal.accountId}:assumed-role/${principal.roleName}/${principal.sessionName}`,
  };
}

const PRINCIPAL_KINDS = ['AWS', 'Service', 'Federated', 'CanonicalUser'];

/**
 * Compiles a resolved `Principal` (or, `negated`, `NotPrincipal`) element. Only `AWS` entries can
 * name a role session; service, federated and canonical-user principals never do.
 * @throws PolicyDocumentError for an element of another shape
 */
export function principalMatcher(element: unknown, negated: boolean, policy: string): (caller: PrincipalArns) => PrincipalMatch {
  const entries = awsEntries(element, policy);
  const match = (caller: PrincipalArns): PrincipalMatch => {
    const found = entries.map((entry) => entryMatch(entry, caller));
    if (found.includes(PrincipalMatch.CALLER)) return PrincipalMatch.CALLER;
    return found.includes(PrincipalMatch.ACCOUNT) ? PrincipalMatch.ACCOUNT : PrincipalMatch.NONE;
  };
  if (!negated) return match;
  return (caller) => (match(caller) === PrincipalMatch.NONE ? PrincipalMatch.CALLER : PrincipalMatch.NONE);
}

function awsEntries(element: unknown, policy: string): string[] {
  if (element === '*') return ['*'];
  if (element === null || typeof element !== 'object' || Array.isArray(element)) {
    throw new PolicyDocumentError(policy, `a Principal must be "*" or an object (given ${JSON.stringify(element)})`);
  }
  const unknown = Object.keys(element).filter((kind) => !PRINCIPAL_KINDS.includes(kind));
  if (unknown.length > 0) throw new PolicyDocumentError(policy, `unknown principal kind ${unknown.join(', ')}`);
  const aws = (element as Record<string, unknown>).AWS;
  return aws === undefined ? [] : (Array.isArray(aws) ? aws : [aws]).map(String);
}

function entryMatch(entry: string, caller: PrincipalArns): PrincipalMatch {
  if (entry === '*' || entry === caller.roleArn || entry === caller.sessionArn) return PrincipalMatch.CALLER;
  const root = `arn:${caller.partition}:iam::${caller.accountId}:root`;
  return entry === root || entry === caller.accountId ? PrincipalMatch.ACCOUNT : PrincipalMatch.NONE;
}
