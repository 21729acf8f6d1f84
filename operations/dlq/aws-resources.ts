/**
 * Reads a deployed stack: CloudFormation for its resources and template, then each queue, stream
 * and table for its live ARN and settings.
 *
 * What moto 5.2 (`moto_server`, test/operations/aws) does with these calls:
 * - `DescribeStacks`: the stack and its id; outputs only when it could resolve them (a CDK
 *   deploy's came back empty), so nothing here depends on them.
 * - `ListStackResources` and `DescribeStackResources`: logical id, physical id (a queue's is its
 *   URL, on AWS's host) and type, the status always CREATE_COMPLETE. List is the one used: it
 *   pages, while Describe stops at 100 resources.
 * - `GetTemplate`: the body as it was given; `TemplateStage` is ignored.
 * - `GetQueueAttributes` with `RedrivePolicy`, `DescribeStreamSummary`, `DescribeTable` with
 *   `LatestStreamArn`: as on AWS.
 * - `ListEventSourceMappings` is implemented too, `DestinationConfig` included, but reading it
 *   would need `@aws-sdk/client-lambda`, which the project does not depend on, and one more
 *   permission: the mappings come from the template instead (aws-topology.ts).
 */
import { DescribeStacksCommand, GetTemplateCommand, paginateListStackResources, type CloudFormationClient, type StackResourceSummary } from '@aws-sdk/client-cloudformation';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamSummaryCommand, type KinesisClient } from '@aws-sdk/client-kinesis';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { ResourceType, type Template } from '../../aws/cloudformation/template';
import type { DeployedQueue, DeployedStack, DeployedStream, DeployedTable } from './aws-topology';
import { DlqOperationError, StackNotFoundError } from './errors';
import { needing } from './permissions';
import { DEFAULT_RETENTION_HOURS } from './stream-range';
import type { DlqClients } from './types';

/** A resource of the stack that exists (it has a physical id). */
interface LiveResource {
  readonly logicalId: string;
  readonly physicalId: string;
  readonly type: string;
}

/** Everything the topology needs, read from CloudFormation and the services. */
export async function readDeployedStack(cloudFormation: CloudFormationClient, clients: DlqClients, stackName: string, region: string): Promise<DeployedStack> {
  const { stackId, outputs } = await needing({ action: 'cloudformation:DescribeStacks', resource: `stack/${stackName}/* in ${region}` }, () => describeStack(cloudFormation, stackName, region));
  const arn = arnsOfStack(stackId);
  const onStack = (action: string) => ({ action: `cloudformation:${action}`, resource: arn('cloudformation', `stack/${stackName}/*`) });
  const [resources, template] = await Promise.all([needing(onStack('ListStackResources'), () => listResources(cloudFormation, stackName)), needing(onStack('GetTemplate'), () => templateOf(cloudFormation, stackName))]);
  const physicalIds = Object.fromEntries(resources.map((resource) => [resource.logicalId, resource.physicalId]));
  return { stackName, stackId, outputs, physicalIds, ...(await readServices(clients, resources, arn, stackName)), template };
}

/** Each queue, stream and table of the stack, as its service has it now. */
async function readServices(clients: DlqClients, resources: readonly LiveResource[], arn: (service: string, resource: string) => string, stackName: string): Promise<Pick<DeployedStack, 'queues' | 'streams' | 'tables'>> {
  const ofType = (type: string) => resources.filter((resource) => resource.type === type);
  const [queues, streams, tables] = await Promise.all([
    Promise.all(ofType(ResourceType.QUEUE).map((queue) => needing({ action: 'sqs:GetQueueAttributes', resource: arn('sqs', queue.physicalId.split('/').pop() ?? '') }, () => queueOf(clients.sqs, queue, stackName)))),
    Promise.all(ofType(ResourceType.STREAM).map((stream) => needing({ action: 'kinesis:DescribeStreamSummary', resource: arn('kinesis', `stream/${stream.physicalId}`) }, () => streamOf(clients.kinesis, stream)))),
    Promise.all(ofType(ResourceType.TABLE).map((table) => needing({ action: 'dynamodb:DescribeTable', resource: arn('dynamodb', `table/${table.physicalId}`) }, () => tableOf(clients.dynamodb, table)))),
  ]);
  return { queues, streams, tables };
}

/** Builds ARNs in the stack's partition, region and account (its id is `arn:<partition>:cloudformation:<region>:<account>:stack/...`). */
function arnsOfStack(stackId: string): (service: string, resource: string) => string {
  const [, partition, , region, account] = stackId.split(':');
  return (service, resource) => `arn:${partition}:${service}:${region}:${account}:${resource}`;
}

async function describeStack(cloudFormation: CloudFormationClient, stackName: string, region: string): Promise<{ stackId: string; outputs: Record<string, string> }> {
  const { Stacks: [stack] = [] } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }));
  if (!stack?.StackId) throw new StackNotFoundError(stackName, region);
  const outputs = Object.fromEntries((stack.Outputs ?? []).flatMap((output) => (output.OutputKey && output.OutputValue !== undefined ? [[output.OutputKey, output.OutputValue]] : [])));
  return { stackId: stack.StackId, outputs };
}

async function listResources(cloudFormation: CloudFormationClient, stackName: string): Promise<LiveResource[]> {
  const resources: LiveResource[] = [];
  for await (const page of paginateListStackResources({ client: cloudFormation }, { StackName: stackName })) {
    resources.push(...(page.StackResourceSummaries ?? []).flatMap(liveResource));
  }
  return resources;
}

function liveResource(summary: StackResourceSummary): LiveResource[] {
  const { LogicalResourceId: logicalId, PhysicalResourceId: physicalId, ResourceType: type, ResourceStatus: status } = summary;
  if (!logicalId || !physicalId || !type || status === 'DELETE_COMPLETE') return [];
  return [{ logicalId, physicalId, type }];
}

async function templateOf(cloudFormation: CloudFormationClient, stackName: string): Promise<Template> {
  const { TemplateBody = '{}' } = await cloudFormation.send(new GetTemplateCommand({ StackName: stackName, TemplateStage: 'Processed' }));
  try {
    const template = JSON.parse(TemplateBody) as Partial<Template>;
    return { ...template, Resources: template.Resources ?? {} };
  } catch (error) {
    throw new DlqOperationError(`the template of ${stackName} is not JSON (a CDK stack's is): the DLQ tooling reads CDK-deployed stacks only`, { cause: error });
  }
}

/** A queue's ARN and redrive target, as SQS has them now. */
async function queueOf(sqs: SQSClient, resource: LiveResource, stackName: string): Promise<DeployedQueue> {
  const url = resource.physicalId;
  const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn', 'RedrivePolicy'] }));
  if (!Attributes.QueueArn) throw new DlqOperationError(`SQS returned no ARN for ${resource.logicalId} (${url}) of ${stackName}: check that the endpoint is SQS's and the queue exists`);
  const name = Attributes.QueueArn.split(':').pop() ?? url;
  return { logicalId: resource.logicalId, name, url, arn: Attributes.QueueArn, deadLetterTargetArn: deadLetterTargetOf(Attributes.RedrivePolicy) };
}

function deadLetterTargetOf(redrivePolicy: string | undefined): string | undefined {
  if (!redrivePolicy) return undefined;
  try {
    return (JSON.parse(redrivePolicy) as { deadLetterTargetArn?: string }).deadLetterTargetArn;
  } catch {
    return undefined;
  }
}

async function streamOf(kinesis: KinesisClient, resource: LiveResource): Promise<DeployedStream> {
  const { StreamDescriptionSummary: summary } = await kinesis.send(new DescribeStreamSummaryCommand({ StreamName: resource.physicalId }));
  if (!summary?.StreamARN) throw new DlqOperationError(`Kinesis returned no ARN for stream ${resource.physicalId} (${resource.logicalId})`);
  return { logicalId: resource.logicalId, name: resource.physicalId, arn: summary.StreamARN, retentionHours: summary.RetentionPeriodHours ?? DEFAULT_RETENTION_HOURS };
}

/** A table's ARN and, when its stream is on, the stream's ARN (its label only DescribeTable knows). */
async function tableOf(dynamodb: DynamoDBClient, resource: LiveResource): Promise<DeployedTable> {
  const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: resource.physicalId }));
  if (!Table?.TableArn) throw new DlqOperationError(`DynamoDB returned no ARN for table ${resource.physicalId} (${resource.logicalId})`);
  const streamArn = Table.StreamSpecification?.StreamEnabled === false ? undefined : Table.LatestStreamArn;
  return { logicalId: resource.logicalId, name: resource.physicalId, arn: Table.TableArn, ...(streamArn && { streamArn }) };
}
