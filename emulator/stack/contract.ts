/**
 * The local stack behind the AWS contract layer: the gateways in front of the engines, each
 * function's own credentials, and IAM from the template's roles once the resources exist.
 */
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION, localClients, type EngineEndpoints, type LocalClients } from '../engines';
import { functionCredentials, IamGuard, startContractGateways, type ContractGateways, type ContractGatewaysOptions, type LatencyModel, type LocalCredentials, type RefusalListener } from '../gateway';
import { compileRolePolicies, deployedResolveContext, functionPrincipal, UnknownRoleError, type PermissionLookups, type Resolve, type RolePolicies, type RolePrincipal } from '../iam';
import { awsCallCaller, scheduleCaller, type ServiceCaller } from './service-callers';
import type { FunctionSpec } from './functions';
import { resolveValue } from '../../aws/cloudformation/intrinsics';
import type { ProvisionedStack } from './provision';
import { ResourceType, resourcesOfType, type Template } from '../../aws/cloudformation/template';

/** The clients an event source mapping uses on its function's behalf: signed as the function. */
export interface MappingClients {
  readonly sqs: LocalClients['sqs'];
  readonly kinesis: LocalClients['kinesis'];
  readonly dynamodbStreams: DynamoDBStreamsClient;
  /** The on-failure bucket's writes, which Lambda makes under the function's execution role. */
  readonly s3: LocalClients['s3'];
}

/**
 * Starts the gateways; the functions' DynamoDB requests go on to `functionDynamodb` (the fault
 * proxy). With `dataApi` (a stack with a SQL database), the Data API's gateway too, in the same layer.
 */
export function startStackGateways(engines: Required<EngineEndpoints>, functionDynamodb: string, onRefusal?: RefusalListener, latency?: LatencyModel, dataApi?: ContractGatewaysOptions['dataApi']): Promise<ContractGateways> {
  return startContractGateways({ engines, functionDynamodb, onRefusal, latency, dataApi });
}

/** A function's variables for signing as itself: what Lambda gives a function from its role. */
export function credentialsEnvironment(functionLogicalId: string): Record<string, string> {
  const { accessKeyId, secretAccessKey } = functionCredentials(functionLogicalId);
  return { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey };
}

/** Clients through the gateways, signed as the function: what its event source mapping calls with. */
export function mappingClients(gateways: ContractGateways, functionLogicalId: string): MappingClients {
  const credentials = gateways.callers.register(functionLogicalId);
  const clients = localClients(gateways.endpoints, credentials);
  const dynamodbStreams = new DynamoDBStreamsClient({ region: LOCAL_REGION, credentials, endpoint: gateways.endpoints.dynamodb });
  return { sqs: clients.sqs, kinesis: clients.kinesis, dynamodbStreams, s3: clients.s3 };
}

/** The template's policies, compiled against the provisioned resources, and how its values resolve. */
export interface StackPolicies {
  readonly policies: RolePolicies;
  readonly resolve: Resolve;
  /** What each `Custom::AWS` resource and schedule signs with, by its logical id: its role's credentials (service-callers.ts). */
  readonly serviceCredentials: ReadonlyMap<string, LocalCredentials>;
}

/**
 * From now on every function's calls (and its mapping's) are decided against its role: the
 * template's policies, resolved against the provisioned resources. Returns them, for the
 * deliveries that services make (SNS subscriptions, EventBridge targets).
 */
export function enforceTemplateIam(gateways: ContractGateways, template: Template, stack: ProvisionedStack, specs: readonly FunctionSpec[]): StackPolicies {
  const context = deployedResolveContext(template, { stackName: stack.stackName, region: LOCAL_REGION, accountId: LOCAL_ACCOUNT_ID }, stack.context);
  const resolve: Resolve = (value) => resolveValue(value, context);
  const policies = compileRolePolicies(template, resolve);
  const principals = new Map<string, RolePrincipal>();
  for (const spec of specs) {
    gateways.callers.register(spec.logicalId);
    principals.set(spec.logicalId, functionPrincipal(policies, spec.logicalId, { functionName: spec.name, accountId: LOCAL_ACCOUNT_ID }));
  }
  const serviceCredentials = new Map<string, LocalCredentials>();
  for (const { resource, caller } of serviceCallersOf(template)) {
    const principal = callerPrincipal(policies, caller);
    if (principal === undefined) continue;
    principals.set(caller.callerId, principal);
    serviceCredentials.set(resource, gateways.callers.register(caller.callerId));
  }
  gateways.layer.enforceIam(new IamGuard({ policies, principals, lookups: stackLookups(stack), tokens: gateways.layer.tokens }));
  return { policies, resolve, serviceCredentials };
}

/** The `Custom::AWS` resources and schedules of the template, each with the caller it signs as. */
function serviceCallersOf(template: Template): { resource: string; caller: ServiceCaller }[] {
  const calls = resourcesOfType(template, ResourceType.AWS_CALL).map((resource) => ({ resource: resource.logicalId, caller: awsCallCaller(resource) }));
  const schedules = resourcesOfType(template, ResourceType.SCHEDULE).map((resource) => ({ resource: resource.logicalId, caller: scheduleCaller(resource) }));
  return [...calls, ...schedules].flatMap(({ resource, caller }) => (caller === undefined ? [] : [{ resource, caller }]));
}

/** The caller's role as a principal; undefined when the template holds no such role (the caller then signs as the administrator). */
function callerPrincipal(policies: RolePolicies, caller: ServiceCaller): RolePrincipal | undefined {
  try {
    return functionPrincipal(policies, caller.callerId, { functionName: caller.sessionName, accountId: LOCAL_ACCOUNT_ID });
  } catch (error) {
    if (error instanceof UnknownRoleError) return undefined;
    throw error;
  }
}

/** Names in requests to the ARNs local mode gave the resources (DynamoDB Local's name `ddblocal` as region, for one). */
function stackLookups(stack: ProvisionedStack): Omit<PermissionLookups, 'streamArnOfToken' | 'topicKeys' | 'secretKeys'> {
  const byName = <T extends { name: string; arn: string }>(items: Iterable<T>) => new Map([...items].map((item) => [item.name, item.arn]));
  const tables = byName(stack.tables.values());
  const streams = byName(stack.streams.values());
  const queues = new Map([...stack.queues.values()].map((queue) => [queue.url, queue.arn]));
  return {
    region: LOCAL_REGION,
    accountId: LOCAL_ACCOUNT_ID,
    tableArn: (name) => tables.get(name),
    streamArn: (name) => streams.get(name),
    queueArn: (url) => queues.get(url),
  };
}
