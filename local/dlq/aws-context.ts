/**
 * The DLQ operations against AWS: credentials and region from the environment (the SDK's default
 * chain: AWS_PROFILE, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, SSO, instance roles), the stack's
 * outputs, template and resources from CloudFormation.
 */
import { CloudFormationClient, DescribeStacksCommand, GetTemplateCommand, paginateListStackResources } from '@aws-sdk/client-cloudformation';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Template } from '../stack/template';
import { deployedTopology } from './aws-topology';
import { DlqOperationError, MissingCredentialsError, StackNotFoundError } from './errors';
import type { DlqClients, DlqContext } from './types';

/** The stack `bin/app.ts` deploys. */
export const DEFAULT_STACK_NAME = 'EffectivelyOnce';

export interface AwsContextOptions {
  /** @default 'EffectivelyOnce' */
  readonly stackName?: string;
  /** @default - from the environment (AWS_REGION, the profile's region) */
  readonly region?: string;
}

/**
 * Clients for AWS and the topology of the deployed stack.
 *
 * @throws MissingCredentialsError when no credentials or region can be found
 * @throws StackNotFoundError when the stack does not exist in the region
 */
export async function awsDlqContext(options: AwsContextOptions = {}): Promise<DlqContext & { destroy(): void }> {
  const stackName = options.stackName ?? DEFAULT_STACK_NAME;
  const cloudFormation = new CloudFormationClient({ region: options.region });
  let clients: DlqClients | undefined;
  try {
    const region = await regionOf(cloudFormation);
    clients = awsClients(region);
    const topology = deployedTopology(await describeStack(cloudFormation, clients.dynamodb, stackName, region));
    const ready = clients;
    return { clients: ready, topology, destroy: () => destroyAll(ready) };
  } catch (error) {
    if (clients) destroyAll(clients);
    throw explain(error, stackName, clients?.region);
  } finally {
    cloudFormation.destroy();
  }
}

async function regionOf(client: CloudFormationClient): Promise<string> {
  try {
    return await client.config.region();
  } catch (error) {
    throw new MissingCredentialsError('no AWS region is set', { cause: error });
  }
}

/** One client per service, from the environment's credentials. */
export function awsClients(region: string): DlqClients {
  return {
    sqs: new SQSClient({ region }),
    kinesis: new KinesisClient({ region }),
    dynamodb: new DynamoDBClient({ region }),
    dynamodbStreams: new DynamoDBStreamsClient({ region }),
    region,
  };
}

function destroyAll(clients: DlqClients): void {
  for (const client of [clients.sqs, clients.kinesis, clients.dynamodb, clients.dynamodbStreams]) client.destroy();
}

async function describeStack(cloudFormation: CloudFormationClient, dynamodb: DynamoDBClient, stackName: string, region: string) {
  const { Stacks: [stack] = [] } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }));
  if (!stack?.StackId) throw new StackNotFoundError(stackName, region);
  const outputs = Object.fromEntries((stack.Outputs ?? []).map((output) => [output.OutputKey ?? '', output.OutputValue ?? '']));
  const { TemplateBody = '{}' } = await cloudFormation.send(new GetTemplateCommand({ StackName: stackName, TemplateStage: 'Processed' }));
  const template = parseTemplate(TemplateBody, stackName);
  const physicalIds: Record<string, string> = {};
  for await (const page of paginateListStackResources({ client: cloudFormation }, { StackName: stackName })) {
    for (const resource of page.StackResourceSummaries ?? []) if (resource.LogicalResourceId && resource.PhysicalResourceId) physicalIds[resource.LogicalResourceId] = resource.PhysicalResourceId;
  }
  return { stackName, stackId: stack.StackId, outputs, template, physicalIds, tableStreamArns: await tableStreamArns(dynamodb, template, physicalIds) };
}

function parseTemplate(body: string, stackName: string): Template {
  try {
    return JSON.parse(body) as Template;
  } catch (error) {
    throw new DlqOperationError(`the template of ${stackName} is not JSON (a CDK stack's is): the DLQ tooling reads CDK-deployed stacks only`, { cause: error });
  }
}

/** Streams' ARNs carry a creation label only DescribeTable knows. */
async function tableStreamArns(dynamodb: DynamoDBClient, template: Template, physicalIds: Record<string, string>): Promise<Record<string, string>> {
  const streamed = Object.entries(template.Resources).filter(([, resource]) => resource.Type === 'AWS::DynamoDB::Table' && resource.Properties?.StreamSpecification);
  const arns: Record<string, string> = {};
  for (const [logicalId] of streamed) {
    const tableName = physicalIds[logicalId];
    if (!tableName) continue;
    const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.LatestStreamArn) arns[tableName] = Table.LatestStreamArn;
  }
  return arns;
}

/** Turns the SDK's errors for a missing setup into ones that say what to do. */
function explain(error: unknown, stackName: string, region = 'the configured region'): unknown {
  if (error instanceof DlqOperationError) return error;
  const { name = '', message = '' } = (error ?? {}) as { name?: string; message?: string };
  if (name === 'CredentialsProviderError' || /credential/i.test(message)) return new MissingCredentialsError('no AWS credentials were found', { cause: error });
  if (/region is missing/i.test(message)) return new MissingCredentialsError('no AWS region is set', { cause: error });
  if (name === 'ValidationError' && /does not exist/.test(message)) return new StackNotFoundError(stackName, region, { cause: error });
  return error;
}
