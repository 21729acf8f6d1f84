/**
 * Decides a request as IAM does within one account (IAM User Guide, "Policy evaluation logic"):
 * an explicit Deny in any applicable policy wins; otherwise an Allow in the role's identity-based
 * policies or in the resource's policy (naming the caller) allows; otherwise the request is
 * implicitly denied. KMS is stricter: its key policy must allow, and a key policy that allows
 * the account (`arn:aws:iam::<account>:root`) delegates the decision to the identity-based
 * policies (AWS KMS Developer Guide, "Default key policy"); only that rule of KMS is modelled,
 * and a key the template does not declare, whose key policy local mode cannot read, is refused.
 *
 * Where local mode cannot know what AWS would decide, it fails closed: a Deny whose condition
 * reads a key it cannot know applies, an Allow whose condition does does not allow, and the
 * denial's message says so (global-keys.ts lists the keys it knows).
 */
import { randomUUID } from 'node:crypto';
import { conditionLookup, type ConditionLookup } from './conditions';
import { awsDenial, type AwsDenial, type Refusal, type WireProtocol } from './denial';
import { NothingToAuthorizeError, UnsupportedConditionOperatorError } from './errors';
import { absentForRoleSession, absentForServiceDelivery, roleSessionKeys } from './global-keys';
import { principalArns, PrincipalMatch, servicePrincipalArns, type PrincipalArns } from './principal';
import { roleIdentity, type RolePolicies } from './role-policies';
import { describe, type CompiledStatement } from './statement';
import { policyResourceOf, ResourcePolicyKind, type ResourcePolicy } from './template-resource-policies';
import { DenyReason, Effect, PolicyType, type AwsService, type ConditionValues, type Permission, type RequestContext, type RolePrincipal, type StatementOrigin } from './types';

/** One request to decide. */
export interface AuthorizationRequest {
  /** The service called: it words the denial (an SNS publish refused by KMS is SNS's error). */
  readonly service: AwsService;
  readonly principal: RolePrincipal;
  /** What the request needs (see `requiredPermissions`), checked in order; the first refused is reported. */
  readonly permissions: readonly Permission[];
  /**
   * The request's own condition keys (`requestKeys`); the role session's are added. A global key
   * that is neither given nor one AWS leaves out of a role session's call is unknown, and so is
   * any service key not given.
   */
  readonly context: RequestContext;
  /** The request id in the denial. @default a random UUID */
  readonly requestId?: string;
  /** SQS only: the protocol the request came in. @default JSON */
  readonly protocol?: WireProtocol;
}

/** The request is allowed. */
export interface Allowed {
  readonly allowed: true;
}

/** The request is refused: the first permission refused, why, and the service's response. */
export interface Denied extends Refusal {
  readonly allowed: false;
  /** The Deny statement that decided it (explicit denies only). */
  readonly origin?: StatementOrigin;
  /** Set when local mode failed closed on condition keys it cannot know: those keys. */
  readonly unknownKeys?: readonly string[];
  readonly denial: AwsDenial;
}

export type AuthorizationResult = Allowed | Denied;

/** A refusal before it is worded: why, by which kind of policy, and what local mode could not know. */
interface Refused {
  readonly allowed: false;
  readonly reason: DenyReason;
  readonly policyType: PolicyType;
  readonly origin?: StatementOrigin;
  readonly unknownKeys?: readonly string[];
  readonly note?: string;
}

type Verdict = Allowed | Refused;

const ALLOWED: Allowed = { allowed: true };

/**
 * Decides whether the principal may make the request.
 * @throws UnknownRoleError when the principal's role is not in the policies
 * @throws UnsupportedConditionOperatorError when the decision depends on a condition it cannot evaluate
 * @throws NothingToAuthorizeError when `permissions` is empty: nothing is allowed by default
 */
export function authorize(policies: RolePolicies, request: AuthorizationRequest): AuthorizationResult {
  if (request.permissions.length === 0) throw new NothingToAuthorizeError(request.service);
  const statements = roleIdentity(policies, request.principal.roleLogicalId).statements;
  const caller = principalArns(request.principal);
  const context = { ...roleSessionKeys(caller), ...request.context };
  for (const permission of request.permissions) {
    const lookup = conditionLookup({ ...context, ...resourceKeys(permission, caller), ...permission.context }, absentForRoleSession);
    const verdict = decide(permission, statements, policies.resourcePolicies.get(policyResourceOf(permission.resource)), caller, lookup);
    if (!verdict.allowed) return denied(request, caller, permission, verdict);
  }
  return ALLOWED;
}

/** A delivery an AWS service makes into a resource of the account (SNS to a queue, EventBridge to its target). */
export interface ServiceDeliveryRequest {
  /** The service principal, `sns.amazonaws.com`. */
  readonly service: string;
  readonly accountId: string;
  readonly permission: Permission;
  /** The condition keys the service sets: `aws:SourceArn` (the topic, the rule), `aws:SourceAccount`. */
  readonly context: RequestContext;
}

/** A service delivery is allowed, or refused with the reason (and, when local mode failed closed, why). */
export type DeliveryVerdict = { readonly allowed: true } | { readonly allowed: false; readonly reason: DenyReason; readonly origin?: StatementOrigin; readonly note?: string };

/**
 * Decides a service's delivery: no identity-based policy speaks for a service principal, so the
 * resource's own policy must allow it, and no Deny there may match (IAM User Guide, "Policy
 * evaluation logic", resource-based policies). AWS accepts such a subscription or target all the
 * same and drops what it cannot deliver; local mode asks up front.
 * @throws UnsupportedConditionOperatorError when the decision depends on a condition it cannot evaluate
 */
export function authorizeServiceDelivery(resourcePolicies: ReadonlyMap<string, ResourcePolicy>, request: ServiceDeliveryRequest): DeliveryVerdict {
  const caller = servicePrincipalArns(request.service, request.accountId);
  const keys = { 'aws:SourceAccount': request.accountId, 'aws:PrincipalIsAWSService': 'true', 'aws:PrincipalServiceName': request.service, ...request.context };
  const lookup = conditionLookup(keys, absentForServiceDelivery);
  const policy = resourcePolicies.get(policyResourceOf(request.permission.resource));
  const findings = policy ? scan(policy.statements, request.permission, caller, lookup) : {};
  const deny = explicitDeny({}, findings);
  if (deny) return { allowed: false, reason: deny.reason, origin: deny.origin, ...(deny.note !== undefined && { note: deny.note }) };
  if (isDefinite(findings.allow)) return ALLOWED;
  refuseUnsupported(findings.allow);
  const { note } = undecidedAllow(findings.allow);
  return { allowed: false, reason: DenyReason.NO_ALLOW, ...(note !== undefined && { note }) };
}

/** `aws:ResourceAccount`: the account in the resource's ARN; an S3 ARN names none, and local buckets are the caller's account's. */
function resourceKeys(permission: Permission, caller: PrincipalArns): ConditionValues {
  const [prefix, , service, , account] = permission.resource.split(':');
  if (prefix !== 'arn') return {};
  const resourceAccount = account || (service === 's3' ? caller.accountId : '');
  return resourceAccount === '' ? {} : { 'aws:ResourceAccount': resourceAccount };
}

function denied(request: AuthorizationRequest, caller: PrincipalArns, permission: Permission, verdict: Refused): Denied {
  const { reason, policyType, note } = verdict;
  const refusal: Refusal = { principalArn: caller.sessionArn, action: permission.action, resource: permission.resource, reason, policyType, ...(note !== undefined && { note }) };
  const denial = awsDenial(request.service, refusal, { requestId: request.requestId ?? randomUUID(), protocol: request.protocol });
  return { allowed: false, ...refusal, origin: verdict.origin, ...(verdict.unknownKeys && { unknownKeys: verdict.unknownKeys }), denial };
}

function decide(permission: Permission, identity: readonly CompiledStatement[], resource: ResourcePolicy | undefined, caller: PrincipalArns, lookup: ConditionLookup): Verdict {
  const own = scan(identity, permission, caller, lookup);
  const theirs = resource ? scan(resource.statements, permission, caller, lookup) : {};
  const explicit = explicitDeny(own, theirs);
  if (explicit) return explicit;
  if (resource?.kind === ResourcePolicyKind.KEY) return keyVerdict(own, theirs);
  return isKmsAction(permission.action) ? unknownKey(permission) : eitherVerdict(own, theirs);
}

/** A matching statement: definite, or undecided for an operator the evaluator does not implement or keys it cannot know. */
interface Finding {
  readonly origin: StatementOrigin;
  readonly unsupported?: string;
  readonly unknownKeys?: readonly string[];
}

/** The matching statements by role: a Deny, an Allow naming the caller, an Allow naming its account. */
interface Findings {
  readonly deny?: Finding;
  readonly allow?: Finding;
  readonly delegate?: Finding;
}

function scan(statements: readonly CompiledStatement[], permission: Permission, caller: PrincipalArns, lookup: ConditionLookup): Findings {
  const findings: { -readonly [slot in keyof Findings]: Finding } = {};
  for (const statement of statements) {
    const slot = slotOf(statement, permission, caller);
    if (slot === undefined || isDefinite(findings[slot])) continue;
    const outcome = statement.condition.evaluate(lookup);
    if (outcome === true) findings[slot] = { origin: statement.origin };
    else if (outcome !== false) findings[slot] ??= { origin: statement.origin, ...outcome };
  }
  return findings;
}

function slotOf(statement: CompiledStatement, permission: Permission, caller: PrincipalArns): keyof Findings | undefined {
  if (!statement.covers(permission)) return undefined;
  const match = statement.principal ? statement.principal(caller) : PrincipalMatch.CALLER;
  if (match === PrincipalMatch.NONE) return undefined;
  if (statement.effect === Effect.DENY) return 'deny';
  return match === PrincipalMatch.CALLER ? 'allow' : 'delegate';
}

/** A Deny that matches wins; one undecided for keys local mode cannot know applies (fail closed). */
function explicitDeny(own: Findings, theirs: Findings): Refused | undefined {
  const sides = [[own, PolicyType.IDENTITY], [theirs, PolicyType.RESOURCE]] as const;
  for (const [findings, policyType] of sides) {
    if (isDefinite(findings.deny)) return { allowed: false, reason: DenyReason.EXPLICIT_DENY, policyType, origin: findings.deny?.origin };
  }
  refuseUnsupported(own.deny, theirs.deny);
  for (const [{ deny }, policyType] of sides) {
    if (deny?.unknownKeys) return { allowed: false, reason: DenyReason.EXPLICIT_DENY, policyType, origin: deny.origin, unknownKeys: deny.unknownKeys, note: failClosedDeny(deny.origin, deny.unknownKeys) };
  }
  return undefined;
}

/** Queues, topics and buckets: either the identity-based policy or the resource's policy may allow. */
function eitherVerdict(own: Findings, theirs: Findings): Verdict {
  if (isDefinite(own.allow) || isDefinite(theirs.allow)) return ALLOWED;
  refuseUnsupported(own.allow, theirs.allow);
  return { allowed: false, reason: DenyReason.NO_ALLOW, policyType: PolicyType.IDENTITY, ...undecidedAllow(own.allow, theirs.allow) };
}

/** KMS keys: the key policy must allow the caller, or allow the account and leave it to IAM. */
function keyVerdict(own: Findings, key: Findings): Verdict {
  if (isDefinite(key.allow)) return ALLOWED;
  const delegated = isDefinite(key.delegate);
  const verdict = delegated ? eitherVerdict(own, {}) : undefined;
  if (verdict?.allowed) return verdict;
  refuseUnsupported(key.allow, key.delegate);
  const policyType = delegated ? PolicyType.IDENTITY : PolicyType.RESOURCE;
  return { allowed: false, reason: DenyReason.NO_ALLOW, policyType, ...undecidedAllow(key.allow, key.delegate, delegated ? own.allow : undefined) };
}

/** A KMS key the template does not declare: its key policy, which must allow, is unknown to local mode. */
function unknownKey(permission: Permission): Refused {
  const note = `the key ${permission.resource} is not declared in the template, so local mode cannot read its key policy, which must allow the call: refused (fail closed)`;
  return { allowed: false, reason: DenyReason.NO_ALLOW, policyType: PolicyType.RESOURCE, note };
}

function isKmsAction(action: string): boolean {
  return action.toLowerCase().startsWith('kms:');
}

function isDefinite(finding: Finding | undefined): finding is Finding {
  return finding !== undefined && finding.unsupported === undefined && finding.unknownKeys === undefined;
}

/** The decision hangs on a statement with an operator the evaluator does not implement: refuse, naming it. */
function refuseUnsupported(...findings: readonly (Finding | undefined)[]): void {
  const undecided = findings.find((finding) => finding?.unsupported !== undefined);
  if (undecided?.unsupported) throw new UnsupportedConditionOperatorError(undecided.unsupported, describe(undecided.origin));
}

/** The first Allow that only keys local mode cannot know kept from allowing, for the denial to name. */
function undecidedAllow(...findings: readonly (Finding | undefined)[]): Pick<Refused, 'unknownKeys' | 'note'> {
  const undecided = findings.find((finding) => finding?.unknownKeys !== undefined);
  if (!undecided?.unknownKeys) return {};
  const note = `${describe(undecided.origin)} allows it only if its condition on ${keyList(undecided.unknownKeys)} holds, which local mode cannot know: it does not allow (fail closed)`;
  return { unknownKeys: undecided.unknownKeys, note };
}

function failClosedDeny(origin: StatementOrigin, keys: readonly string[]): string {
  return `${describe(origin)} denies it if its condition on ${keyList(keys)} holds, which local mode cannot know: the Deny applies (fail closed)`;
}

function keyList(keys: readonly string[]): string {
  return keys.join(', ');
}
