/**
 * The caller's ARNs, and how a resource-based policy's `Principal` names it. A statement can name
 * the caller itself (its role or role session, or everyone with `*`), or the caller's account
 * (`arn:aws:iam::<account>:root` or the bare account id). Naming the account grants nothing by
 * itself: it delegates to the account's identity-based policies (IAM User Guide, "AWS JSON policy
 * elements: Principal"; AWS KMS Developer Guide, "Default key policy").
 *
 * `NotPrincipal` (with `Deny`) spares a role session only when it names the session, its role and
 * its account: AWS may check the account, then the role, then the session, and denies at the
 * first one not named (IAM User Guide, "AWS JSON policy elements: NotPrincipal",
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_notprincipal.html).
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
  /** `<role id>:<session name>`: what `aws:userid` holds for a role session, when the role's id is known. */
  readonly userId?: string;
  /** Set when the caller is an AWS service delivering on someone's behalf (`sns.amazonaws.com`): then no AWS principal but `*` names it. */
  readonly service?: string;
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
    ...(principal.roleId !== undefined && { userId: `${principal.roleId}:${principal.sessionName}` }),
  };
}

/**
 * An AWS service as the caller: SNS delivering to a queue, EventBridge sending to its target.
 * A resource policy names it with `{ "Service": "sns.amazonaws.com" }` or `*`.
 */
export function servicePrincipalArns(service: string, accountId: string, partition = 'aws'): PrincipalArns {
  return { accountId, partition, roleArn: service, sessionArn: service, service };
}

const PRINCIPAL_KINDS = ['AWS', 'Service', 'Federated', 'CanonicalUser'];

/** One entry of a principal element: an `AWS` ARN or account, or a `Service` name. */
interface PrincipalEntry {
  readonly kind: 'AWS' | 'Service';
  readonly value: string;
}

/**
 * Compiles a resolved `Principal` (or, `negated`, `NotPrincipal`) element. Only `AWS` entries can
 * name a role session, and only `Service` entries (or `*`) a service caller; federated and
 * canonical-user principals name neither.
 * @throws PolicyDocumentError for an element of another shape
 */
export function principalMatcher(element: unknown, negated: boolean, policy: string): (caller: PrincipalArns) => PrincipalMatch {
  const entries = principalEntries(element, policy);
  if (negated) return (caller) => (spares(entries, caller) ? PrincipalMatch.NONE : PrincipalMatch.CALLER);
  return (caller) => {
    const found = entries.map((entry) => entryMatch(entry, caller));
    if (found.includes(PrincipalMatch.CALLER)) return PrincipalMatch.CALLER;
    return found.includes(PrincipalMatch.ACCOUNT) ? PrincipalMatch.ACCOUNT : PrincipalMatch.NONE;
  };
}

/**
 * Whether a `NotPrincipal` list leaves the caller out: `*`, a service caller's own name, or, for
 * a role session, every identity AWS may check in turn (the account, the role, the session).
 */
function spares(entries: readonly PrincipalEntry[], caller: PrincipalArns): boolean {
  if (entries.some((entry) => entry.kind === 'AWS' && entry.value === '*')) return true;
  if (caller.service !== undefined) return entries.some((entry) => entry.kind === 'Service' && entry.value === caller.service);
  const named = new Set(entries.filter((entry) => entry.kind === 'AWS').map((entry) => entry.value));
  const account = named.has(`arn:${caller.partition}:iam::${caller.accountId}:root`) || named.has(caller.accountId);
  return account && named.has(caller.roleArn) && named.has(caller.sessionArn);
}

function principalEntries(element: unknown, policy: string): PrincipalEntry[] {
  if (element === '*') return [{ kind: 'AWS', value: '*' }];
  if (element === null || typeof element !== 'object' || Array.isArray(element)) {
    throw new PolicyDocumentError(policy, `a Principal must be "*" or an object (given ${JSON.stringify(element)})`);
  }
  const unknown = Object.keys(element).filter((kind) => !PRINCIPAL_KINDS.includes(kind));
  if (unknown.length > 0) throw new PolicyDocumentError(policy, `unknown principal kind ${unknown.join(', ')}`);
  const listed = (kind: PrincipalEntry['kind']): PrincipalEntry[] => {
    const values = (element as Record<string, unknown>)[kind];
    return values === undefined ? [] : (Array.isArray(values) ? values : [values]).map((value) => ({ kind, value: String(value) }));
  };
  return [...listed('AWS'), ...listed('Service')];
}

function entryMatch({ kind, value: entry }: PrincipalEntry, caller: PrincipalArns): PrincipalMatch {
  if (kind === 'Service') return caller.service !== undefined && entry === caller.service ? PrincipalMatch.CALLER : PrincipalMatch.NONE;
  if (entry === '*') return PrincipalMatch.CALLER;
  if (caller.service !== undefined) return PrincipalMatch.NONE;
  if (entry === caller.roleArn || entry === caller.sessionArn) return PrincipalMatch.CALLER;
  const root = `arn:${caller.partition}:iam::${caller.accountId}:root`;
  return entry === root || entry === caller.accountId ? PrincipalMatch.ACCOUNT : PrincipalMatch.NONE;
}
