/**
 * The deployed stack as the test compares it with its template: what CloudFormation says (status,
 * outputs, template, physical ids), each resource read back from its own service, and a resolver
 * that turns the template's `Ref`s and `Fn::GetAtt`s into the deployed names and ARNs.
 */
import { DescribeStacksCommand, GetTemplateCommand, paginateListStackResources, type CloudFormationClient } from '@aws-sdk/client-cloudformation';
import type { StreamDescriptionSummary } from '@aws-sdk/client-kinesis';
import { resolveValue, type LocalResource, type ResolveContext } from '../../aws/cloudformation/intrinsics';
import { resourcesOfType, ResourceType, type NamedResource, type Template } from '../../aws/cloudformation/template';
import type { Target } from './commands';
import { describeStream, describeTable, listFunctions, listMappings, queueAttributes, topicAttributes, type DeployedFunction, type DeployedMapping, type DeployedTable, type MotoClients } from './readback';

export interface Deployment {
  readonly stackName: string;
  readonly stackId: string;
  readonly stackStatus: string;
  readonly outputs: Readonly<Record<string, string>>;
  /** The template `cdk deploy` synthesized into the test's output directory. */
  readonly template: Template;
  /** The template as CloudFormation returns it (`GetTemplate`). */
  readonly deployedTemplate: unknown;
  /** Logical id -> physical id, for the resources CloudFormation created. */
  readonly physicalIds: Readonly<Record<string, string>>;
  /** Logical id -> what each service says about the resource. */
  readonly queues: ReadonlyMap<string, Readonly<Record<string, string>>>;
  readonly tables: ReadonlyMap<string, DeployedTable>;
  readonly streams: ReadonlyMap<string, StreamDescriptionSummary>;
  readonly topics: ReadonlyMap<string, Readonly<Record<string, string>>>;
  readonly functions: ReadonlyMap<string, DeployedFunction>;
  readonly mappings: readonly DeployedMapping[];
  readonly context: ResolveContext;
}

/** Reads the stack back; `template` is the one synthesized for the deploy. */
export async function readDeployment(target: Target, clients: MotoClients, stackName: string, template: Template): Promise<Deployment> {
  const stack = await describeStack(clients.cloudFormation, stackName);
  const physicalIds = await physicalIdsOf(clients.cloudFormation, stackName);
  const byType = (type: string) => resourcesOfType(template, type).filter((resource) => physicalIds[resource.logicalId]);
  const read = <T>(type: string, reader: (physicalId: string) => Promise<T>) => readEach(byType(type), physicalIds, reader);
  const queues = await read(ResourceType.QUEUE, (url) => queueAttributes(clients.sqs, url));
  const tables = await read(ResourceType.TABLE, (name) => describeTable(clients.dynamodb, name));
  const streams = await read(ResourceType.STREAM, (name) => describeStream(clients.kinesis, name));
  const topics = await read(ResourceType.TOPIC, (arn) => topicAttributes(clients.sns, arn));
  const functions = functionsByLogicalId(byType(ResourceType.FUNCTION), physicalIds, await listFunctions(target));
  const deployedTemplate = await templateOf(clients.cloudFormation, stackName);
  const parts = { ...stack, stackName, template, deployedTemplate, physicalIds, queues, tables, streams, topics, functions, mappings: await listMappings(target) };
  return { ...parts, context: resolveContextOf(parts) };
}

async function describeStack(cloudFormation: CloudFormationClient, stackName: string) {
  const { Stacks: [stack] = [] } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }));
  if (!stack?.StackId) throw new Error(`DescribeStacks ${stackName} returned no stack`);
  const outputs = Object.fromEntries((stack.Outputs ?? []).map((output) => [output.OutputKey ?? '', output.OutputValue ?? '']));
  return { stackId: stack.StackId, stackStatus: stack.StackStatus ?? '', outputs };
}

/** moto lists a resource it did not create with empty ids and type: those are left out. */
async function physicalIdsOf(cloudFormation: CloudFormationClient, stackName: string): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for await (const page of paginateListStackResources({ client: cloudFormation }, { StackName: stackName })) {
    for (const { LogicalResourceId, PhysicalResourceId } of page.StackResourceSummaries ?? []) if (LogicalResourceId && PhysicalResourceId) ids[LogicalResourceId] = PhysicalResourceId;
  }
  return ids;
}

async function templateOf(cloudFormation: CloudFormationClient, stackName: string): Promise<unknown> {
  const { TemplateBody = '' } = await cloudFormation.send(new GetTemplateCommand({ StackName: stackName }));
  try {
    return JSON.parse(TemplateBody);
  } catch {
    return TemplateBody;
  }
}

async function readEach<T>(resources: readonly NamedResource[], physicalIds: Readonly<Record<string, string>>, reader: (physicalId: string) => Promise<T>): Promise<Map<string, T>> {
  const read = new Map<string, T>();
  for (const { logicalId } of resources) read.set(logicalId, await reader(physicalIds[logicalId] ?? ''));
  return read;
}

function functionsByLogicalId(resources: readonly NamedResource[], physicalIds: Readonly<Record<string, string>>, deployed: readonly DeployedFunction[]): Map<string, DeployedFunction> {
  const byName = new Map(deployed.map((fn) => [fn.FunctionName, fn]));
  const found = new Map<string, DeployedFunction>();
  for (const { logicalId } of resources) {
    const fn = byName.get(physicalIds[logicalId] ?? '');
    if (fn) found.set(logicalId, fn);
  }
  return found;
}

/** Template resources CloudFormation did not create (no physical id). */
export function notCreated(deployment: Deployment): NamedResource[] {
  return Object.entries(deployment.template.Resources)
    .filter(([logicalId]) => !deployment.physicalIds[logicalId])
    .map(([logicalId, resource]) => ({ logicalId, type: resource.Type, properties: resource.Properties ?? {}, metadata: resource.Metadata ?? {} }));
}

/** A template value with the deployed names and ARNs in place of its intrinsics. */
export function resolved(deployment: Deployment, value: unknown): unknown {
  return resolveValue(value, deployment.context);
}

type ContextParts = Omit<Deployment, 'context'>;

function resolveContextOf(parts: ContextParts): ResolveContext {
  const [, partition = 'aws', , region = '', account = ''] = parts.stackId.split(':');
  const resources = new Map<string, LocalResource>(Object.entries(parts.physicalIds).map(([id, physicalId]) => [id, { ref: physicalId, attributes: derivedAttributes(parts, id, { partition, region, account }) }]));
  for (const [id, attributes] of readAttributes(parts)) resources.set(id, { ref: parts.physicalIds[id] ?? '', attributes });
  const pseudo = { 'AWS::Partition': partition, 'AWS::Region': region, 'AWS::AccountId': account, 'AWS::StackName': parts.stackName, 'AWS::URLSuffix': 'amazonaws.com' };
  return { resources, pseudo };
}

/** Attributes the services returned. */
function* readAttributes(parts: ContextParts): Generator<[string, Record<string, string>]> {
  for (const [id, queue] of parts.queues) yield [id, { Arn: queue.QueueArn ?? '', QueueName: (queue.QueueArn ?? '').split(':').pop() ?? '', QueueUrl: parts.physicalIds[id] ?? '' }];
  for (const [id, { table }] of parts.tables) yield [id, { Arn: table.TableArn ?? '', ...(table.LatestStreamArn && { StreamArn: table.LatestStreamArn }) }];
  for (const [id, stream] of parts.streams) yield [id, { Arn: stream.StreamARN ?? '' }];
  for (const [id, topic] of parts.topics) yield [id, { TopicArn: topic.TopicArn ?? '', TopicName: (topic.TopicArn ?? '').split(':').pop() ?? '' }];
  for (const [id, fn] of parts.functions) yield [id, { Arn: fn.FunctionArn }];
}

/** ARNs of what the test has no client for, built the way AWS builds them. */
function derivedAttributes(parts: ContextParts, logicalId: string, { partition, region, account }: { partition: string; region: string; account: string }): Record<string, string> {
  const physicalId = parts.physicalIds[logicalId] ?? '';
  switch (parts.template.Resources[logicalId]?.Type) {
    case 'AWS::KMS::Key':
      return { Arn: `arn:${partition}:kms:${region}:${account}:key/${physicalId}`, KeyId: physicalId };
    case 'AWS::IAM::Role':
      return { Arn: `arn:${partition}:iam::${account}:role/${physicalId}` };
    default:
      return {};
  }
}
