/**
 * The topology of a deployed stack, from what CloudFormation and the services say about it, with
 * no use of the stack's outputs (moto returns none for a CDK deploy, and an operator's stack may
 * declare other ones):
 * - the stack's resources (`ListStackResources`) give each queue, stream and table by logical id
 *   and type, with its physical id;
 * - each queue's live `RedrivePolicy`, and the template (`GetTemplate`: mappings' on-failure
 *   destinations, archives' rules, functions' `DLQ_URL`), resolved against the live ARNs by the
 *   same intrinsics resolver as local mode's, say which queue is whose DLQ, by the same rules as
 *   local mode's (dlq-links.ts);
 * - the functions' `DEDUP_TTL_SECONDS`, by the sources of their mappings, say how long a redriven
 *   copy may live (consumer-windows.ts).
 */
import { tryResolveString, type LocalResource, type ResolveContext } from '../../aws/cloudformation/intrinsics';
import { ResourceType, type Template } from '../../aws/cloudformation/template';
import { urlSuffixOf } from '../../aws/partitions';
import { consumerFunctions } from './consumer-functions';
import { consumerWindows } from './consumer-windows';
import { dlqLinks } from './dlq-links';
import { groupDlqs } from './topology';
import type { DlqInfo, QueueRef, StackTopology, StreamRef, TableRef } from './types';

/** A queue of the stack, with where its redrive policy sends what SQS gives up on. */
export interface DeployedQueue extends QueueRef {
  readonly logicalId: string;
  /** `RedrivePolicy.deadLetterTargetArn`, when the queue has one. */
  readonly deadLetterTargetArn?: string;
}

export interface DeployedStream extends StreamRef {
  readonly logicalId: string;
}

export interface DeployedTable extends TableRef {
  readonly logicalId: string;
}

/** What CloudFormation and the services returned about the stack. */
export interface DeployedStack {
  readonly stackName: string;
  /** `arn:<partition>:cloudformation:<region>:<account>:stack/<name>/<id>`. */
  readonly stackId: string;
  /** The stack's outputs; often empty (moto), used only to find a DLQ by output name. */
  readonly outputs: Readonly<Record<string, string>>;
  /** Logical id -> physical id of every resource of the stack. */
  readonly physicalIds: Readonly<Record<string, string>>;
  readonly queues: readonly DeployedQueue[];
  readonly streams: readonly DeployedStream[];
  readonly tables: readonly DeployedTable[];
  /** The deployed template: its event source mappings name the on-failure destinations. */
  readonly template: Template;
}

interface Account {
  readonly partition: string;
  readonly region: string;
  readonly accountId: string;
}

/** Builds the topology; pure, so it can be checked against a synthesized template. */
export function deployedTopology(stack: DeployedStack): StackTopology {
  const account = accountOf(stack.stackId);
  const context = resolveContext(stack, account);
  return {
    stackName: stack.stackName,
    region: account.region,
    outputs: stack.outputs,
    deadLetterQueues: dlqsOf(stack, context),
    queues: stack.queues.map(({ name, url, arn }) => ({ name, url, arn })),
    streams: stack.streams.map(({ name, arn, retentionHours }) => ({ name, arn, retentionHours })),
    tables: stack.tables.map(({ name, arn, streamArn }) => ({ name, arn, streamArn })),
    consumerWindows: consumerWindows(stack.template, (value) => tryResolveString(value, context)),
    consumerFunctions: consumerFunctions(stack.template, (value) => tryResolveString(value, context)),
  };
}

function accountOf(stackId: string): Account {
  const [, partition = 'aws', , region = '', accountId = ''] = stackId.split(':');
  return { partition, region, accountId };
}

/** Every DLQ of the stack, with every source that feeds it (dlq-links.ts). */
function dlqsOf(stack: DeployedStack, context: ResolveContext): DlqInfo[] {
  return groupDlqs(dlqLinks(stack.queues, stack.template, (value) => tryResolveString(value, context)));
}

function resolveContext(stack: DeployedStack, account: Account): ResolveContext {
  const resources = new Map<string, LocalResource>(Object.entries(stack.physicalIds).map(([logicalId, physicalId]) => [logicalId, { ref: physicalId, attributes: {} }]));
  for (const queue of stack.queues) resources.set(queue.logicalId, { ref: queue.url, attributes: { Arn: queue.arn, QueueName: queue.name, QueueUrl: queue.url } });
  for (const stream of stack.streams) resources.set(stream.logicalId, { ref: stream.name, attributes: { Arn: stream.arn } });
  for (const [logicalId, resource] of Object.entries(stack.template.Resources)) {
    const name = stack.physicalIds[logicalId];
    if (resource.Type === ResourceType.BUCKET && name) resources.set(logicalId, { ref: name, attributes: { Arn: `arn:${account.partition}:s3:::${name}` } });
  }
  for (const table of stack.tables) resources.set(table.logicalId, { ref: table.name, attributes: { Arn: table.arn, ...(table.streamArn && { StreamArn: table.streamArn }) } });
  const pseudo = {
    'AWS::Region': account.region,
    'AWS::AccountId': account.accountId,
    'AWS::Partition': account.partition,
    'AWS::URLSuffix': urlSuffixOf(account.partition, stack.queues[0]?.url),
    'AWS::StackName': stack.stackName,
    'AWS::StackId': stack.stackId,
    'AWS::NoValue': '',
  };
  return { resources, pseudo };
}
