/**
 * Reads what moto deployed, service by service: the AWS SDK for the services the project depends
 * on (CloudFormation, SQS, DynamoDB, Kinesis, SNS), the AWS CLI for Lambda and CloudWatch, whose
 * SDK clients are not dependencies of the project.
 */
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { DescribeContinuousBackupsCommand, DescribeTableCommand, DescribeTimeToLiveCommand, DynamoDBClient, type TableDescription, type TimeToLiveDescription } from '@aws-sdk/client-dynamodb';
import { DescribeStreamSummaryCommand, KinesisClient, type StreamDescriptionSummary } from '@aws-sdk/client-kinesis';
import { GetTopicAttributesCommand, SNSClient } from '@aws-sdk/client-sns';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { CREDENTIALS, motoEnv, motoEndpoint, parseJson, REGION, run, type Target } from './commands';

export interface MotoClients {
  readonly cloudFormation: CloudFormationClient;
  readonly sqs: SQSClient;
  readonly dynamodb: DynamoDBClient;
  readonly kinesis: KinesisClient;
  readonly sns: SNSClient;
}

/**
 * SDK clients for moto. The endpoint is given explicitly: an SQS client otherwise sends to the
 * queue URL's host, which on moto is `sqs.us-east-1.amazonaws.com`. Kinesis over HTTP/1.1: its
 * client defaults to HTTP/2, which moto's server does not speak.
 */
export function motoClients(target: Target): MotoClients {
  const config = { region: REGION, endpoint: motoEndpoint(target), credentials: { ...CREDENTIALS } };
  return {
    cloudFormation: new CloudFormationClient(config),
    sqs: new SQSClient(config),
    dynamodb: new DynamoDBClient(config),
    kinesis: new KinesisClient({ ...config, requestHandler: new NodeHttpHandler() }),
    sns: new SNSClient(config),
  };
}

export function destroyClients(clients: MotoClients): void {
  for (const client of Object.values(clients)) client.destroy();
}

/** Every attribute of a queue, as SQS returns them (strings). */
export async function queueAttributes(sqs: SQSClient, queueUrl: string): Promise<Record<string, string>> {
  const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }));
  return Attributes;
}

export interface DeployedTable {
  readonly table: TableDescription;
  readonly timeToLive: TimeToLiveDescription;
  readonly pointInTimeRecovery?: string;
}

export async function describeTable(dynamodb: DynamoDBClient, tableName: string): Promise<DeployedTable> {
  const { Table = {} } = await dynamodb.send(new DescribeTableCommand({ TableName: tableName }));
  const { TimeToLiveDescription = {} } = await dynamodb.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  const { ContinuousBackupsDescription } = await dynamodb.send(new DescribeContinuousBackupsCommand({ TableName: tableName }));
  return { table: Table, timeToLive: TimeToLiveDescription, pointInTimeRecovery: ContinuousBackupsDescription?.PointInTimeRecoveryDescription?.PointInTimeRecoveryStatus };
}

export async function describeStream(kinesis: KinesisClient, streamName: string): Promise<StreamDescriptionSummary> {
  const { StreamDescriptionSummary } = await kinesis.send(new DescribeStreamSummaryCommand({ StreamName: streamName }));
  if (!StreamDescriptionSummary) throw new Error(`DescribeStreamSummary of ${streamName} returned no summary`);
  return StreamDescriptionSummary;
}

export async function topicAttributes(sns: SNSClient, topicArn: string): Promise<Record<string, string>> {
  const { Attributes = {} } = await sns.send(new GetTopicAttributesCommand({ TopicArn: topicArn }));
  return Attributes;
}

/** An event source mapping as `lambda list-event-source-mappings` prints it. */
export interface DeployedMapping {
  readonly UUID: string;
  readonly EventSourceArn: string;
  readonly FunctionArn: string;
  readonly State: string;
  readonly [property: string]: unknown;
}

/** A function as `lambda list-functions` prints it. */
export interface DeployedFunction {
  readonly FunctionName: string;
  readonly FunctionArn: string;
  readonly [property: string]: unknown;
}

const AWS_CLI_TIMEOUT_MS = 60_000;

/** Runs `aws <args>` against moto and parses its JSON. */
export async function awsCli<T>(target: Target, args: readonly string[]): Promise<T> {
  const step = `aws ${args.slice(0, 2).join(' ')}`;
  const { stdout } = await run('aws', ['--endpoint-url', motoEndpoint(target), '--region', REGION, '--output', 'json', ...args], { step, env: motoEnv(target), timeoutMs: AWS_CLI_TIMEOUT_MS });
  return stdout.trim() === '' ? ({} as T) : parseJson<T>(step, stdout);
}

export async function listMappings(target: Target): Promise<DeployedMapping[]> {
  const { EventSourceMappings = [] } = await awsCli<{ EventSourceMappings?: DeployedMapping[] }>(target, ['lambda', 'list-event-source-mappings']);
  return EventSourceMappings;
}

export async function listFunctions(target: Target): Promise<DeployedFunction[]> {
  const { Functions = [] } = await awsCli<{ Functions?: DeployedFunction[] }>(target, ['lambda', 'list-functions']);
  return Functions;
}

/** Stops a mapping: moto invokes a mapped queue's function as soon as a message arrives. */
export async function disableMapping(target: Target, uuid: string): Promise<void> {
  await awsCli(target, ['lambda', 'update-event-source-mapping', '--uuid', uuid, '--no-enabled']);
}
