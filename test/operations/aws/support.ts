/**
 * A stack in moto with the shape the DLQ tooling expects of a deployed one, created through
 * CloudFormation (so that ListStackResources knows every resource), and the failures to triage:
 * wrappers the runtime's own DlqSender writes, and Lambda-shaped on-failure pointers.
 *
 * The template has no outputs on purpose: the tooling must find everything from the resources.
 */
import { CloudFormationClient, CreateStackCommand, DescribeStacksCommand, ListStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import { DescribeStreamSummaryCommand, GetRecordsCommand, GetShardIteratorCommand, KinesisClient, type _Record } from '@aws-sdk/client-kinesis';
import { DeleteMessageCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient, type Message, type MessageAttributeValue } from '@aws-sdk/client-sqs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { DlqSender } from '../../../lambdas/runtime';
import { describeFailure } from '../../../lambdas/runtime/failures/failure-context';
import { DlqReason } from '../../../aws/dlq-format';
import { fromSqsRecord } from '../../../lambdas/runtime/decoding/records';
import { sqsLambdaRecord } from '../../../aws/lambda/event-records';
import { onFailureRecord } from '../../../aws/lambda/on-failure-record';
import { startMoto, type MotoServer } from '../../helpers/moto';
import { pollUntil } from '../../helpers/poll';

export const REGION = 'eu-west-1';
export const CONSUMER = 'page-view-counter';
/** The page-view counter's dedup TTL, as the constructs set it: 4 + 14 + 1 + 4 days. */
export const PAGE_VIEW_DEDUP_TTL_SECONDS = 23 * 86_400;
/** A stream consumer's, for the 48-hour stream: 2 + 14 + 1 + 2 days. */
const STREAM_DEDUP_TTL_SECONDS = 19 * 86_400;

const getAtt = (logicalId: string, attribute: string) => ({ 'Fn::GetAtt': [logicalId, attribute] });

/**
 * Two DLQs fed by redrive and on-failure as the example stack's are, and a table stream's third;
 * the order projection's rebuilt generation (its own table, its mapping off) for `eo compare`.
 * Each consumer function declares its dedup TTL as the constructs' do; the page-view counter names
 * its dedup table (`IDEMPOTENCY_TABLE`), which `dlq inspect` reads. The queue's mapping is
 * disabled: moto invokes an enabled SQS mapping's function (in docker) on every send, and this
 * test drives the consumer side itself.
 */
export const TEST_TEMPLATE = {
  AWSTemplateFormatVersion: '2010-09-09',
  Resources: {
    PageViewCounterDlq: { Type: 'AWS::SQS::Queue', Properties: { MessageRetentionPeriod: 1_209_600 } },
    PageViewCounterQueue: { Type: 'AWS::SQS::Queue', Properties: { VisibilityTimeout: 180, RedrivePolicy: { deadLetterTargetArn: getAtt('PageViewCounterDlq', 'Arn'), maxReceiveCount: 5 } } },
    OrderProjectionStream: { Type: 'AWS::Kinesis::Stream', Properties: { ShardCount: 1, RetentionPeriodHours: 48 } },
    OrderProjectionDlq: { Type: 'AWS::SQS::Queue', Properties: { MessageRetentionPeriod: 1_209_600 } },
    OrdersTable: {
      Type: 'AWS::DynamoDB::Table',
      Properties: { AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST', StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' } },
    },
    ShipmentNotifierDlq: { Type: 'AWS::SQS::Queue' },
    RebuiltOrdersTable: {
      Type: 'AWS::DynamoDB::Table',
      Properties: { AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' },
    },
    IdempotencyTable: {
      Type: 'AWS::DynamoDB::Table',
      Properties: { AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' },
    },
    ConsumerRole: {
      Type: 'AWS::IAM::Role',
      Properties: { AssumeRolePolicyDocument: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }] } },
    },
    PageViewCounterFunction: consumerFunction(CONSUMER, PAGE_VIEW_DEDUP_TTL_SECONDS, { IDEMPOTENCY_TABLE: { Ref: 'IdempotencyTable' } }),
    OrderProjectionFunction: consumerFunction('order-projection', STREAM_DEDUP_TTL_SECONDS, { ORDERS_TABLE: { Ref: 'OrdersTable' } }),
    OrderProjectionRebuildFunction: consumerFunction('order-projection', STREAM_DEDUP_TTL_SECONDS, { ORDERS_TABLE: { Ref: 'RebuiltOrdersTable' }, CONSUMER_GENERATION: '2' }),
    ShipmentNotifierFunction: consumerFunction('shipment-notifier', STREAM_DEDUP_TTL_SECONDS),
    PageViewCounterMapping: { Type: 'AWS::Lambda::EventSourceMapping', Properties: { FunctionName: { Ref: 'PageViewCounterFunction' }, EventSourceArn: getAtt('PageViewCounterQueue', 'Arn'), BatchSize: 10, Enabled: false } },
    OrderProjectionMapping: streamMapping('OrderProjectionFunction', getAtt('OrderProjectionStream', 'Arn'), 'OrderProjectionDlq'),
    ShipmentNotifierMapping: streamMapping('ShipmentNotifierFunction', getAtt('OrdersTable', 'StreamArn'), 'ShipmentNotifierDlq'),
    // The order projection's rebuilt generation, as the example stack has it: the same stream, its mapping off.
    OrderProjectionRebuildMapping: {
      Type: 'AWS::Lambda::EventSourceMapping',
      Properties: { FunctionName: { Ref: 'OrderProjectionRebuildFunction' }, EventSourceArn: getAtt('OrderProjectionStream', 'Arn'), StartingPosition: 'TRIM_HORIZON', BatchSize: 10, Enabled: false },
    },
  },
};

function consumerFunction(consumerName: string, dedupTtlSeconds: number, variables: Record<string, unknown> = {}) {
  return {
    Type: 'AWS::Lambda::Function',
    Properties: {
      Runtime: 'nodejs20.x',
      Handler: 'index.handler',
      Role: getAtt('ConsumerRole', 'Arn'),
      Code: { ZipFile: 'exports.handler = async () => ({ batchItemFailures: [] });' },
      Environment: { Variables: { CONSUMER_NAME: consumerName, DEDUP_TTL_SECONDS: String(dedupTtlSeconds), ...variables } },
    },
  };
}

function streamMapping(functionId: string, sourceArn: unknown, dlqId: string) {
  return {
    Type: 'AWS::Lambda::EventSourceMapping',
    Properties: { FunctionName: { Ref: functionId }, EventSourceArn: sourceArn, StartingPosition: 'TRIM_HORIZON', BatchSize: 10, MaximumRetryAttempts: 2, BisectBatchOnFunctionError: true, DestinationConfig: { OnFailure: { Destination: getAtt(dlqId, 'Arn') } } },
  };
}

/** Clients of moto for the test's own setup and checks, independent of the code under test. */
export interface MotoClients {
  readonly cloudFormation: CloudFormationClient;
  readonly sqs: SQSClient;
  readonly kinesis: KinesisClient;
  readonly dynamodb: DynamoDBClient;
  destroy(): void;
}

export function motoClients(moto: MotoServer): MotoClients {
  const base = { region: REGION, endpoint: moto.endpoint, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } };
  const clients = {
    cloudFormation: new CloudFormationClient(base),
    sqs: new SQSClient({ ...base, useQueueUrlAsEndpoint: false }),
    kinesis: new KinesisClient({ ...base, requestHandler: new NodeHttpHandler() }),
    dynamodb: new DynamoDBClient(base),
  };
  return { ...clients, destroy: () => Object.values(clients).forEach((client) => client.destroy()) };
}

/** moto for one test file, with clients of it: started before the file's tests, stopped after them. */
export interface MotoForFile {
  readonly server: MotoServer;
  readonly clients: MotoClients;
}

/** Registers the file's `beforeAll` and `afterAll`; read `server` and `clients` inside tests only. */
export function motoForFile(): MotoForFile {
  let server: MotoServer | undefined;
  let clients: MotoClients | undefined;
  beforeAll(async () => {
    server = await startMoto();
    clients = motoClients(server);
  });
  afterAll(async () => {
    clients?.destroy();
    await server?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('moto is read before the file\'s beforeAll started it');
    return value;
  };
  return {
    get server() {
      return started(server);
    },
    get clients() {
      return started(clients);
    },
  };
}

/** A stack's queues, stream and table, by logical id, as the test needs them. */
export interface TestStack {
  readonly name: string;
  readonly physicalIds: Readonly<Record<string, string>>;
  readonly sourceQueue: QueueOf;
  readonly dlq: QueueOf;
  readonly streamDlq: QueueOf;
  readonly tableDlq: QueueOf;
  readonly stream: { readonly name: string; readonly arn: string };
  /** The page-view counter's dedup table. */
  readonly dedupTable: string;
}

export interface QueueOf {
  readonly url: string;
  readonly arn: string;
  readonly name: string;
}

let stacks = 0;

/** Creates the test template as a new stack and waits until CloudFormation says it is complete. */
export async function deployTestStack(clients: MotoClients): Promise<TestStack> {
  const name = `EoDlqTest${Date.now().toString(36)}${(stacks += 1)}`;
  await clients.cloudFormation.send(new CreateStackCommand({ StackName: name, TemplateBody: JSON.stringify(TEST_TEMPLATE), Capabilities: ['CAPABILITY_IAM'] }));
  await pollUntil(async () => ((await clients.cloudFormation.send(new DescribeStacksCommand({ StackName: name }))).Stacks?.[0]?.StackStatus === 'CREATE_COMPLETE' ? true : undefined), `stack ${name} to be created`, { timeoutMs: 30_000, intervalMs: 200 });
  const { StackResourceSummaries = [] } = await clients.cloudFormation.send(new ListStackResourcesCommand({ StackName: name }));
  const physicalIds = Object.fromEntries(StackResourceSummaries.map((resource) => [resource.LogicalResourceId ?? '', resource.PhysicalResourceId ?? '']));
  const queue = (logicalId: string) => queueOf(clients.sqs, physicalIds[logicalId] ?? '');
  const streamName = physicalIds.OrderProjectionStream ?? '';
  const [sourceQueue, dlq, streamDlq, tableDlq] = await Promise.all([queue('PageViewCounterQueue'), queue('PageViewCounterDlq'), queue('OrderProjectionDlq'), queue('ShipmentNotifierDlq')]);
  const { StreamDescriptionSummary } = await clients.kinesis.send(new DescribeStreamSummaryCommand({ StreamName: streamName }));
  return { name, physicalIds, sourceQueue, dlq, streamDlq, tableDlq, stream: { name: streamName, arn: StreamDescriptionSummary?.StreamARN ?? '' }, dedupTable: physicalIds.IdempotencyTable ?? '' };
}

async function queueOf(sqs: SQSClient, url: string): Promise<QueueOf> {
  const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
  const arn = Attributes.QueueArn ?? '';
  return { url, arn, name: arn.split(':').pop() ?? '' };
}

/** A message as a producer sent it. */
export interface Original {
  readonly body: string;
  readonly attributes: Record<string, MessageAttributeValue>;
}

/**
 * Sends each original to the source queue, receives it as the consumer would, and has the
 * runtime's DlqSender write its failure wrapper to the DLQ (the consumer then reports the record
 * handled, so it leaves the source queue).
 */
export async function failThroughRuntime(sqs: SQSClient, stack: TestStack, originals: readonly Original[], error: (original: Original) => Error): Promise<void> {
  for (const original of originals) await sqs.send(new SendMessageCommand({ QueueUrl: stack.sourceQueue.url, MessageBody: original.body, MessageAttributes: original.attributes }));
  const received = await receiveEvery(sqs, stack.sourceQueue.url, originals.length);
  const sender = new DlqSender(sqs, stack.dlq.url);
  for (const message of received) {
    const record = fromSqsRecord(sqsLambdaRecord(message, stack.sourceQueue.arn, REGION));
    const original = originals.find((candidate) => candidate.body === message.Body) ?? originals[0];
    const eventId = message.MessageAttributes?.eventId?.StringValue;
    await sender.send(describeFailure({ consumer: CONSUMER, reason: DlqReason.PERMANENT, error: error(original as Original), record, eventId, eventType: 'page.viewed', now: new Date() }));
    await sqs.send(new DeleteMessageCommand({ QueueUrl: stack.sourceQueue.url, ReceiptHandle: message.ReceiptHandle }));
  }
}

/**
 * Sends each original to the source queue and receives it, deleting nothing, until SQS's redrive
 * policy has moved them all to the DLQ with no context, as when no receive's delete took effect.
 */
export async function moveBySqs(sqs: SQSClient, stack: TestStack, originals: readonly Original[]): Promise<void> {
  for (const original of originals) await sqs.send(new SendMessageCommand({ QueueUrl: stack.sourceQueue.url, MessageBody: original.body, MessageAttributes: original.attributes }));
  await pollUntil(async () => {
    await sqs.send(new ReceiveMessageCommand({ QueueUrl: stack.sourceQueue.url, MaxNumberOfMessages: 10, VisibilityTimeout: 0, WaitTimeSeconds: 0 }));
    return (await depth(sqs, stack.dlq.url)) >= originals.length ? true : undefined;
  }, `${originals.length} messages moved to ${stack.dlq.url}`, { timeoutMs: 15_000, intervalMs: 50 });
}

/** Receives until `count` messages arrived (deleting nothing). */
export async function receiveEvery(sqs: SQSClient, queueUrl: string, count: number): Promise<Message[]> {
  const seen = new Map<string, Message>();
  await pollUntil(async () => {
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 60, WaitTimeSeconds: 0, MessageAttributeNames: ['All'], MessageSystemAttributeNames: ['All'] }));
    for (const message of Messages) seen.set(message.MessageId ?? '', message);
    return seen.size >= count ? true : undefined;
  }, `${count} messages in ${queueUrl}`, { timeoutMs: 15_000, intervalMs: 100 });
  return [...seen.values()];
}

/** Every record of the stream's one shard, from its start. */
export async function readStream(kinesis: KinesisClient, streamName: string): Promise<_Record[]> {
  const { ShardIterator } = await kinesis.send(new GetShardIteratorCommand({ StreamName: streamName, ShardId: 'shardId-000000000000', ShardIteratorType: 'TRIM_HORIZON' }));
  const { Records = [] } = await kinesis.send(new GetRecordsCommand({ ShardIterator, Limit: 10_000 }));
  return Records;
}

/** Lambda's on-failure message for `records` of the stream, sent to the stream's DLQ. */
export async function sendPointer(sqs: SQSClient, stack: TestStack, records: readonly _Record[]): Promise<void> {
  const range = records.map((record) => ({ sequenceNumber: record.SequenceNumber ?? '', arrivalMs: record.ApproximateArrivalTimestamp?.getTime() ?? Date.now() }));
  const body = onFailureRecord({ kind: 'kinesis', condition: 'RetryAttemptsExhausted', functionArn: `arn:aws:lambda:${REGION}:${stack.stream.arn.split(':')[4]}:function:${stack.physicalIds.OrderProjectionFunction}`, streamArn: stack.stream.arn, shardId: 'shardId-000000000000', records: range, approximateInvokeCount: 3 });
  await sqs.send(new SendMessageCommand({ QueueUrl: stack.streamDlq.url, MessageBody: JSON.stringify(body) }));
}

/** Visible messages of a queue. */
export async function depth(sqs: SQSClient, queueUrl: string): Promise<number> {
  const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }));
  return Number(Attributes.ApproximateNumberOfMessages ?? 0);
}
