/**
 * Local mode's IAM evaluator: the statements a template gives each role, decided against each
 * request as IAM would, and refusals worded as the services word them. Pure and synchronous:
 * compile once per template, then authorize every request.
 */
export { compileRolePolicies, functionPrincipal, roleIdentity } from './role-policies';
export { authorize, authorizeServiceDelivery } from './authorize';
export { requiredPermissions } from './required-permissions';
export { awsDenial, dynamodbDenial, kinesisDenial, kmsDenial, lambdaDenial, notAuthorizedMessage, rdsDataDenial, s3Denial, snsDenial, sqsDenial, WireProtocol } from './denial';
export { deployedResolveContext, deployedResources } from './deployed-names';
export { kinesisStreamArn, keyArn, queueArn, queueArnFromUrl, tableArn } from './arns';
export { principalArns } from './principal';
export { MANAGED_POLICIES } from './managed-policies';
export { SUPPORTED_CONDITION_OPERATORS } from './conditions';
export { absentForRoleSession, requestKeys, ROLE_SESSION_ABSENT } from './global-keys';
export { policyResourceOf, ResourcePolicyKind } from './template-resource-policies';
export { AwsService, DenyReason, Effect, PolicyType } from './types';
export {
  IamError,
  NothingToAuthorizeError,
  PolicyDocumentError,
  UnknownManagedPolicyError,
  UnknownResourceError,
  UnknownRoleError,
  UnsupportedConditionOperatorError,
  UnsupportedOperationError,
} from './errors';
export type { Allowed, AuthorizationRequest, AuthorizationResult, DeliveryVerdict, Denied, ServiceDeliveryRequest } from './authorize';
export type { AwsDenial, DenialOptions, Refusal } from './denial';
export type { DeployedNamesOptions } from './deployed-names';
export type { RequestKeysOptions } from './global-keys';
export type { S3RequestInput } from './s3-permissions';
export type { ArnScope } from './arns';
export type { PrincipalArns } from './principal';
export type { FunctionPrincipalOptions, RolePolicies } from './role-policies';
export type { PermissionLookups, RequestInput } from './request-input';
export type { ResourcePolicy } from './template-resource-policies';
export type { RoleIdentity } from './template-roles';
export type { CompiledStatement } from './statement';
export type { CompileNote, ConditionValues, Permission, RequestContext, Resolve, RolePrincipal, StatementOrigin } from './types';
