/** Everything the evaluator needs from a template, compiled once: see {@link compileRolePolicies}. */
import type { Template } from '../../aws/cloudformation/template';
import { UnknownRoleError } from './errors';
import { compileResourcePolicies, secretKeys, topicKeys, type ResourcePolicy } from './template-resource-policies';
import { compileRoles, functionRoles, type RoleIdentity } from './template-roles';
import type { CompileNote, Resolve, RolePrincipal } from './types';

/** A template's policies, compiled for {@link authorize}. */
export interface RolePolicies {
  /** Each role's identity-based statements, by the role's logical id. */
  readonly roles: ReadonlyMap<string, RoleIdentity>;
  /** The role's logical id of each function, by the function's logical id. */
  readonly functionRoles: ReadonlyMap<string, string>;
  /** Queue, topic and key policies, by the ARN of the resource they protect. */
  readonly resourcePolicies: ReadonlyMap<string, ResourcePolicy>;
  /** The KMS key (ARN) of each encrypted topic, by topic ARN: the input `requiredPermissions` needs for SNS. */
  readonly topicKeys: ReadonlyMap<string, string>;
  /** The customer-managed KMS key (ARN) of each secret, by secret ARN: the input `requiredPermissions` needs for the Data API. */
  readonly secretKeys: ReadonlyMap<string, string>;
  /** Parts of policies set aside because the resolver could not resolve them (each grants less for it). */
  readonly notes: readonly CompileNote[];
}

/**
 * Compiles the identity-based policies of every role, the resource-based policies and the topic
 * and secret keys of a synthesized template. Run it once per template; {@link authorize} then needs no I/O.
 * @param resolve resolves the template's intrinsics, e.g. with {@link deployedResolveContext}
 * @throws UnknownManagedPolicyError for a managed policy the catalog does not hold
 * @throws PolicyDocumentError for a policy IAM would refuse, or a Deny that cannot be resolved
 * @example
 * const policies = compileRolePolicies(template, (value) => resolveValue(value, context));
 */
export function compileRolePolicies(template: Template, resolve: Resolve): RolePolicies {
  const notes: CompileNote[] = [];
  const roles = compileRoles(template, resolve, notes);
  return {
    roles,
    functionRoles: functionRoles(template, roles, resolve),
    resourcePolicies: compileResourcePolicies(template, resolve, notes),
    topicKeys: topicKeys(template, resolve),
    secretKeys: secretKeys(template, resolve),
    notes,
  };
}

/** A role's identity, by the role's logical id or by a function's. @throws UnknownRoleError */
export function roleIdentity(policies: RolePolicies, logicalId: string): RoleIdentity {
  const role = policies.roles.get(policies.functionRoles.get(logicalId) ?? logicalId);
  if (!role) throw new UnknownRoleError(logicalId, 'is neither a role of the template nor a function whose Role is one');
  return role;
}

/** Options of {@link functionPrincipal}. */
export interface FunctionPrincipalOptions {
  /** The function's name: Lambda's session name for its role. */
  readonly functionName: string;
  readonly accountId: string;
  /** @default 'aws' */
  readonly partition?: string;
}

/** The principal a function's calls (and its event source mapping's) are made as. @throws UnknownRoleError */
export function functionPrincipal(policies: RolePolicies, functionLogicalId: string, options: FunctionPrincipalOptions): RolePrincipal {
  const role = roleIdentity(policies, functionLogicalId);
  return { roleLogicalId: role.logicalId, roleName: role.roleName, sessionName: options.functionName, accountId: options.accountId, partition: options.partition, roleId: role.roleId };
}
