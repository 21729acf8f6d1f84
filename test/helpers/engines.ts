import {
  CreateTableCommand,
  DescribeTableCommand,
  UpdateTimeToLiveCommand,
  type DynamoDBClient,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import { CreateStreamCommand, DescribeStreamSummaryCommand, type KinesisClient } from '@aws-sdk/client-kinesis';
import { SubscribeCommand, type SNSClient } from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { localClients, type EngineEndpoints, type Engines, type LocalClients } from '../../emulator/engines';
import { TEST_ENDPOINT_ENV, TEST_ENGINE_ENDPOINT_ENV, TEST_ENGINES_ENV, TEST_LAMBDA_ENDPOINT_ENV } from './engine-env';
import { pollUntil } from './poll';

/** The contract layer's gateways that Jest's global setup started: what tests talk to. Throws if one is missing. */
export function testEndpoints(): Required<EngineEndpoints> {
  return endpointsFrom(TEST_ENDPOINT_ENV);
}

/** The global gateways' Lambda Invoke API, which serves no function (engine-env.ts). */
export function testLambdaEndpoint(): string {
  return endpointFromEnv(TEST_LAMBDA_ENDPOINT_ENV);
}

/**
 * The engines' own endpoints, behind the gateways: for a test that shows what an emulator accepts
 * alone, and for a local stack started on the shared engines (it puts its own gateways in front).
 */
export function engineEndpoints(): Required<EngineEndpoints> {
  return endpointsFrom(TEST_ENGINE_ENDPOINT_ENV);
}

/** This run's shared engines, for a local stack started on them: stopping the stack leaves them running for the other tests. */
export function sharedEngines(): Engines {
  return { endpoints: engineEndpoints(), stop: async () => undefined };
}

/** Clients of the engines alone, bypassing the contract layer. Destroy them in `afterAll`. */
export function engineClients(): LocalClients {
  return localClients(engineEndpoints());
}

function endpointsFrom(variables: Readonly<Record<keyof typeof TEST_ENDPOINT_ENV, string>>): Required<EngineEndpoints> {
  return { dynamodb: endpointFromEnv(variables.dynamodb), sqs: endpointFromEnv(variables.sqs), kinesis: endpointFromEnv(variables.kinesis) };
}

function endpointFromEnv(variable: string): string {
  const endpoint = process.env[variable];
  if (endpoint) return endpoint;
  throw new Error(
    `${variable} is not set: integration tests need the engines that Jest's globalSetup starts ` +
      `(run them through jest, without ${TEST_ENGINES_ENV}=none).`,
  );
}

/**
 * Clients for the engines of this Jest run, through the contract layer. Call `destroyClients` on
 * them in `afterAll`, so idle sockets do not keep the worker alive.
 */
export function testClients(): LocalClients {
  return localClients(testEndpoints());
}

let nameCounter = 0;

/**
 * A name no other test uses, even in another worker of the same run: the engines are shared.
 * Valid for tables, queues, topics and streams (letters, digits, `-`).
 */
export function uniqueName(prefix: string): string {
  nameCounter += 1;
  return `${prefix}-${nameCounter}-${randomBytes(4).toString('hex')}`;
}

/** What `createTable` creates: an on-demand table with a string partition key. */
export interface TableSpec {
  readonly name: string;
  readonly partitionKey: string;
  /** Enable a stream of NEW_AND_OLD_IMAGES. @default false */
  readonly stream?: boolean;
  /** Enable TTL on this attribute. @default - no TTL */
  readonly ttlAttribute?: string;
}

/** A table that `createTable` made. */
export interface CreatedTable {
  readonly tableName: string;
  readonly tableArn: string;
  /** Set when the spec asked for a stream. */
  readonly streamArn: string | undefined;
}

/** Creates a table and resolves once it is ACTIVE (and its TTL is set, if asked). */
export async function createTable(client: DynamoDBClient, spec: TableSpec): Promise<CreatedTable> {
  await client.send(
    new CreateTableCommand({
      TableName: spec.name,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: spec.partitionKey, AttributeType: 'S' }],
      KeySchema: [{ AttributeName: spec.partitionKey, KeyType: 'HASH' }],
      ...(spec.stream && { StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' } }),
    }),
  );
  const table = await pollUntil(() => activeTable(client, spec.name), `table ${spec.name} to be ACTIVE`);
  if (table.TableArn === undefined) throw new Error(`Table ${spec.name} has no TableArn`);
  if (spec.ttlAttribute !== undefined) await enableTtl(client, spec.name, spec.ttlAttribute);
  return { tableName: spec.name, tableArn: table.TableArn, streamArn: table.LatestStreamArn };
}

async function activeTable(client: DynamoDBClient, name: string): Promise<TableDescription | undefined> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
  return Table?.TableStatus === 'ACTIVE' ? Table : undefined;
}

async function enableTtl(client: DynamoDBClient, table: string, attribute: string): Promise<void> {
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: table,
      TimeToLiveSpecification: { Enabled: true, AttributeName: attribute },
    }),
  );
}

/** A queue that `createQueue` made. Its URL names fauxqs's host; the test clients ignore that. */
export interface CreatedQueue {
  readonly url: string;
  readonly arn: string;
}

/**
 * Creates an SQS queue. Attribute values are strings, as in the SQS API.
 *
 * @example
 * const dlq = await createQueue(sqs, uniqueName('dlq'));
 * const queue = await createQueue(sqs, uniqueName('q'), {
 *   RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: 5 }),
 * });
 */
export async function createQueue(
  sqs: SQSClient,
  name: string,
  attributes: Readonly<Record<string, string>> = {},
): Promise<CreatedQueue> {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: { ...attributes } }));
  if (QueueUrl === undefined) throw new Error(`CreateQueue ${name} returned no QueueUrl`);
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  const arn = Attributes?.QueueArn;
  if (arn === undefined) throw new Error(`Queue ${name} has no QueueArn attribute`);
  return { url: QueueUrl, arn };
}

/** A stream that `createStream` made. */
export interface CreatedStream {
  readonly streamName: string;
  readonly streamArn: string;
}

/** Creates a Kinesis stream and resolves once it is ACTIVE. */
export async function createStream(kinesis: KinesisClient, name: string, shards: number): Promise<CreatedStream> {
  await kinesis.send(new CreateStreamCommand({ StreamName: name, ShardCount: shards }));
  const streamArn = await pollUntil(() => activeStreamArn(kinesis, name), `stream ${name} to be ACTIVE`);
  return { streamName: name, streamArn };
}

async function activeStreamArn(kinesis: KinesisClient, name: string): Promise<string | undefined> {
  const { StreamDescriptionSummary: summary } = await kinesis.send(
    new DescribeStreamSummaryCommand({ StreamName: name }),
  );
  return summary?.StreamStatus === 'ACTIVE' ? summary.StreamARN : undefined;
}

/** Options for `receiveAll`. */
export interface ReceiveAllOptions {
  /** Stop once this many messages have arrived. @default 10 */
  readonly max?: number;
  /** Stop after this long, however many have arrived. @default 5_000 */
  readonly waitMs?: number;
  /** Delete what was received, so the queue is drained. @default true */
  readonly deleteMessages?: boolean;
}

/**
 * Receives until `max` messages or `waitMs` have passed, with all system and message attributes.
 *
 * @example
 * const [dead] = await receiveAll(sqs, dlq.url, { max: 1 });
 */
export async function receiveAll(
  sqs: SQSClient,
  queueUrl: string,
  { max = 10, waitMs = 5_000, deleteMessages = true }: ReceiveAllOptions = {},
): Promise<Message[]> {
  const deadline = Date.now() + waitMs;
  const received: Message[] = [];
  while (received.length < max && Date.now() < deadline) {
    const batch = await receiveBatch(sqs, queueUrl, max - received.length, deadline);
    if (deleteMessages) await deleteBatch(sqs, queueUrl, batch);
    received.push(...batch);
  }
  return received;
}

async function receiveBatch(sqs: SQSClient, queueUrl: string, wanted: number, deadline: number): Promise<Message[]> {
  // Long-poll in whole seconds without overshooting the deadline; below one second, short-poll.
  const waitSeconds = Math.min(20, Math.floor((deadline - Date.now()) / 1000));
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: Math.min(10, wanted),
      WaitTimeSeconds: Math.max(0, waitSeconds),
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    }),
  );
  if (Messages.length === 0 && waitSeconds <= 0) await sleep(50);
  return Messages;
}

async function deleteBatch(sqs: SQSClient, queueUrl: string, messages: readonly Message[]): Promise<void> {
  if (messages.length === 0) return;
  await sqs.send(
    new DeleteMessageBatchCommand({
      QueueUrl: queueUrl,
      Entries: messages.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })),
    }),
  );
}

/** Options for `subscribeQueueToTopic`. */
export interface QueueSubscription {
  readonly topicArn: string;
  readonly queueArn: string;
  /** Deliver the bare message instead of the SNS JSON envelope. @default false */
  readonly rawMessageDelivery?: boolean;
}

/**
 * Subscribes a queue to a topic, e.g. an inbox that a test reads alarm notifications from.
 * fauxqs does not check the queue policy that AWS would require for SNS to send to the queue.
 */
export async function subscribeQueueToTopic(sns: SNSClient, subscription: QueueSubscription): Promise<string> {
  const { SubscriptionArn } = await sns.send(
    new SubscribeCommand({
      TopicArn: subscription.topicArn,
      Protocol: 'sqs',
      Endpoint: subscription.queueArn,
      Attributes: { RawMessageDelivery: String(subscription.rawMessageDelivery ?? false) },
      ReturnSubscriptionArn: true,
    }),
  );
  if (SubscriptionArn === undefined) throw new Error(`Subscribe ${subscription.queueArn} returned no ARN`);
  return SubscriptionArn;
}
