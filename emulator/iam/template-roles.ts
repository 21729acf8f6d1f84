/**
 * The identity-based statements of each role of the template: its inline `Policies`, the
 * `AWS::IAM::Policy`, `AWS::IAM::RolePolicy` and `AWS::IAM::ManagedPolicy` resources attached to
 * it, and the managed policies in its `ManagedPolicyArns` (template ones by `Ref`, AWS ones from
 * the built-in catalog).
 */
import { resourcesOfType, stringProp, type NamedResource, type Template } from '../../aws/cloudformation/template';
import { UnknownManagedPolicyError } from './errors';
import { MANAGED_POLICIES, managedPolicyDocument } from './managed-policies';
import { compilePolicyDocument } from './policy-document';
import type { CompiledStatement } from './statement';
import { getAtt, getAttTarget, listOf, refTarget, resolveString } from './template-refs';
import type { CompileNote, Resolve } from './types';

/** A role's identity-based statements. */
export interface RoleIdentity {
  readonly logicalId: string;
  /** The role's physical name: its resolved `Ref`, else `RoleName`, else the logical id. */
  readonly roleName: string;
  /** The role's unique id (`Fn::GetAtt` `RoleId`), when the resolver knows it: half of `aws:userid`. */
  readonly roleId?: string;
  readonly statements: readonly CompiledStatement[];
}

const IamType = {
  ROLE: 'AWS::IAM::Role',
  POLICY: 'AWS::IAM::Policy',
  ROLE_POLICY: 'AWS::IAM::RolePolicy',
  MANAGED_POLICY: 'AWS::IAM::ManagedPolicy',
} as const;

interface Compilation {
  readonly template: Template;
  readonly resolve: Resolve;
  readonly notes: CompileNote[];
}

/** Every role of the template, by logical id. */
export function compileRoles(template: Template, resolve: Resolve, notes: CompileNote[]): Map<string, RoleIdentity> {
  const compilation: Compilation = { template, resolve, notes };
  return new Map(resourcesOfType(template, IamType.ROLE).map((role) => [role.logicalId, compileRole(role, compilation)]));
}

function compileRole(role: NamedResource, compilation: Compilation): RoleIdentity {
  const roleName = nameOf(role, compilation.resolve);
  const documents = [...inlinePolicies(role), ...managedPolicies(role, compilation), ...attachedPolicies(role, roleName, compilation.template)];
  const statements = documents.flatMap(([policy, document]) =>
    compilePolicyDocument(document, { policy, resolve: compilation.resolve, resourceBased: false, notes: compilation.notes }),
  );
  const roleId = tryResolve(compilation.resolve, getAtt(role.logicalId, 'RoleId'));
  return { logicalId: role.logicalId, roleName, ...(typeof roleId === 'string' && roleId !== '' && { roleId }), statements };
}

function nameOf(role: NamedResource, resolve: Resolve): string {
  try {
    const name = resolve({ Ref: role.logicalId });
    if (typeof name === 'string' && name !== '') return name;
  } catch {
    // Local mode creates no roles: a resolver that knows none falls back to the template's name.
  }
  return stringProp(role.properties, 'RoleName') ?? role.logicalId;
}

type NamedDocument = readonly [policy: string, document: unknown];

function inlinePolicies(role: NamedResource): NamedDocument[] {
  return listOf(role.properties.Policies).map((entry) => {
    const { PolicyName, PolicyDocument } = entry as { PolicyName?: unknown; PolicyDocument?: unknown };
    return [`${role.logicalId}/${String(PolicyName)}`, PolicyDocument] as const;
  });
}

function managedPolicies(role: NamedResource, compilation: Compilation): NamedDocument[] {
  return listOf(role.properties.ManagedPolicyArns).map((entry) => {
    const templatePolicy = refTarget(entry);
    const resource = templatePolicy === undefined ? undefined : compilation.template.Resources[templatePolicy];
    if (templatePolicy !== undefined && resource?.Type === IamType.MANAGED_POLICY) return [templatePolicy, resource.Properties?.PolicyDocument] as const;
    const policyArn = resolveString(entry, role.logicalId, compilation.resolve);
    const document = managedPolicyDocument(policyArn);
    if (document === undefined) throw new UnknownManagedPolicyError(policyArn, role.logicalId, Object.keys(MANAGED_POLICIES));
    return [policyArn.slice(policyArn.lastIndexOf('/') + 1), document] as const;
  });
}

/** Policy resources that name the role in `Roles` (or `RoleName`); managed ones only when not already in `ManagedPolicyArns`. */
function attachedPolicies(role: NamedResource, roleName: string, template: Template): NamedDocument[] {
  const listed = new Set(listOf(role.properties.ManagedPolicyArns).map(refTarget));
  const namesRole = (entry: unknown): boolean => refTarget(entry) === role.logicalId || entry === roleName;
  const attached = [IamType.POLICY, IamType.MANAGED_POLICY, IamType.ROLE_POLICY]
    .flatMap((type) => resourcesOfType(template, type))
    .filter((policy) => !listed.has(policy.logicalId))
    .filter((policy) => listOf(policy.properties.Roles ?? policy.properties.RoleName).some(namesRole));
  return attached.map((policy) => [policy.logicalId, policy.properties.PolicyDocument] as const);
}

/** The role logical id of each function whose `Role` is a role of the template. */
export function functionRoles(template: Template, roles: ReadonlyMap<string, RoleIdentity>, resolve: Resolve): Map<string, string> {
  const byArn = roleArns(roles, resolve);
  const result = new Map<string, string>();
  for (const fn of resourcesOfType(template, 'AWS::Lambda::Function')) {
    const [roleId] = getAttTarget(fn.properties.Role) ?? [];
    const role = roleId !== undefined && roles.has(roleId) ? roleId : byArn.get(String(tryResolve(resolve, fn.properties.Role)));
    if (role !== undefined) result.set(fn.logicalId, role);
  }
  return result;
}

function roleArns(roles: ReadonlyMap<string, RoleIdentity>, resolve: Resolve): Map<string, string> {
  const entries = [...roles.keys()].map((id) => [tryResolve(resolve, getAtt(id, 'Arn')), id] as const);
  return new Map(entries.filter((entry): entry is readonly [string, string] => typeof entry[0] === 'string'));
}

function tryResolve(resolve: Resolve, value: unknown): unknown {
  try {
    return resolve(value);
  } catch {
    return undefined;
  }
}
