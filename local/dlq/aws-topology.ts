/**
 * The topology of a deployed stack, from what CloudFormation knows: the template says which queue
 * is whose DLQ (`RedrivePolicy`) and which is a mapping's on-failure destination
 * (`DestinationConfig`); the stack's resources give each logical id its physical name. The same
 * intrinsics resolver as local mode's joins the two, so both read the stack the same way.
 */
import { resolveString, resolveValue, type LocalResource, type ResolveContext } from '../stack/intrinsics';
import { numberProp, ResourceType, resourcesOfType, type Template } from '../stack/template';
import { groupDlqs } from './topology';
import type { DlqSource, QueueRef, StackTopology, StreamRef, TableRef } from './types';

/** What CloudFormation returned about the stack. */
export interface DeployedStack {
  readonly stackName: string;
  /** `arn:<partition>:cloudformation:<region>:<account>:stack/<name>/<id>`. */
  readonly stackId: string;
  readonly outputs: Readonly<Record<string, string>>;
  readonly template: Template;
  /** Logical id -> physical id (queue URL, stream name, table name, function name, topic ARN). */
  readonly physicalIds: Readonly<Record<string, string>>;
  /** Table name -> its latest stream ARN (from DescribeTable). */
  readonly tableStreamArns: Readonly<Record<string, string>>;
}

interface Account {
  readonly partition: string;
  readonly region: string;
  readonly accountId: string;
}

/** Builds the topology; pure, so it can be checked against a synthesized template. */
export function deployedTopology(stack: DeployedStack): StackTopology {
  const account = accountOf(stack.stackId);
  const queues = queueRefs(stack, account);
  const streams = streamRefs(stack, account);
  const tables = tableRefs(stack, account);
  const context = resolveContext(stack, account, queues, streams, tables);
  return { stackName: stack.stackName, region: account.region, outputs: stack.outputs, deadLetterQueues: dlqsOf(stack.template, context, queues), queues: [...queues.values()], streams: [...streams.values()], tables: [...tables.values()] };
}

function accountOf(stackId: string): Account {
  const [, partition = 'aws', , region = '', accountId = ''] = stackId.split(':');
  return { partition, region, accountId };
}

function queueRefs(stack: DeployedStack, account: Account): Map<string, QueueRef> {
  return physicalOf(stack, ResourceType.QUEUE, (url) => {
    const name = url.split('/').pop() ?? url;
    return { name, url, arn: `arn:${account.partition}:sqs:${account.region}:${account.accountId}:${name}` };
  });
}

function streamRefs(stack: DeployedStack, account: Account): Map<string, StreamRef> {
  const retention = new Map(resourcesOfType(stack.template, ResourceType.STREAM).map((stream) => [stream.logicalId, numberProp(stream.properties, 'RetentionPeriodHours') ?? 24]));
  return physicalOf(stack, ResourceType.STREAM, (name, logicalId) => ({ name, arn: `arn:${account.partition}:kinesis:${account.region}:${account.accountId}:stream/${name}`, retentionHours: retention.get(logicalId) ?? 24 }));
}

function tableRefs(stack: DeployedStack, account: Account): Map<string, TableRef> {
  return physicalOf(stack, ResourceType.TABLE, (name) => ({ name, arn: `arn:${account.partition}:dynamodb:${account.region}:${account.accountId}:table/${name}`, streamArn: stack.tableStreamArns[name] }));
}

/** One entry per resource of `type` that the stack created, by logical id. */
function physicalOf<T>(stack: DeployedStack, type: string, build: (physicalId: string, logicalId: string) => T): Map<string, T> {
  const built = new Map<string, T>();
  for (const { logicalId } of resourcesOfType(stack.template, type)) {
    const physicalId = stack.physicalIds[logicalId];
    if (physicalId) built.set(logicalId, build(physicalId, logicalId));
  }
  return built;
}

function resolveContext(stack: DeployedStack, account: Account, queues: Map<string, QueueRef>, streams: Map<string, StreamRef>, tables: Map<string, TableRef>): ResolveContext {
  const resources = new Map<string, LocalResource>(Object.entries(stack.physicalIds).map(([logicalId, physicalId]) => [logicalId, { ref: physicalId, attributes: {} }]));
  for (const [id, queue] of queues) resources.set(id, { ref: queue.url, attributes: { Arn: queue.arn, QueueName: queue.name, QueueUrl: queue.url } });
  for (const [id, stream] of streams) resources.set(id, { ref: stream.name, attributes: { Arn: stream.arn } });
  for (const [id, table] of tables) resources.set(id, { ref: table.name, attributes: { Arn: table.arn, ...(table.streamArn && { StreamArn: table.streamArn }) } });
  const pseudo = { 'AWS::Region': account.region, 'AWS::AccountId': account.accountId, 'AWS::Partition': account.partition, 'AWS::URLSuffix': 'amazonaws.com', 'AWS::StackName': stack.stackName, 'AWS::NoValue': '' };
  return { resources, pseudo };
}

/** Redrive targets of queues, then on-failure destinations of mappings; what cannot be resolved is left out. */
function dlqsOf(template: Template, context: ResolveContext, queues: Map<string, QueueRef>) {
  const byArn = new Map([...queues.values()].map((queue) => [queue.arn, queue]));
  const links: { queue: QueueRef; source: DlqSource }[] = [];
  for (const [logicalId, queue] of queues) {
    const policy = tryResolve(() => resolveValue(template.Resources[logicalId]?.Properties?.RedrivePolicy, context)) as { deadLetterTargetArn?: string } | undefined;
    const dlq = policy?.deadLetterTargetArn ? byArn.get(policy.deadLetterTargetArn) : undefined;
    if (dlq) links.push({ queue: dlq, source: { role: 'redrive', arn: queue.arn } });
  }
  for (const mapping of resourcesOfType(template, ResourceType.EVENT_SOURCE_MAPPING)) {
    const destination = (mapping.properties.DestinationConfig as { OnFailure?: { Destination?: unknown } } | undefined)?.OnFailure?.Destination;
    const dlq = byArn.get(tryResolve(() => resolveString(destination, context)) ?? '');
    const sourceArn = tryResolve(() => resolveString(mapping.properties.EventSourceArn, context));
    if (dlq && sourceArn) links.push({ queue: dlq, source: { role: 'on-failure', arn: sourceArn } });
  }
  return groupDlqs(links);
}

function tryResolve<T>(resolve: () => T): T | undefined {
  try {
    return resolve();
  } catch {
    return undefined;
  }
}
