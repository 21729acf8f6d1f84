/**
 * Creates on the local engines what the template declares: queues (with their visibility timeout,
 * retention and redrive policy), tables (keys, streams, TTL), Kinesis streams, SNS topics, each
 * topic with a local inbox queue so that notifications and alarms can be read, and S3 buckets
 * (fauxqs's S3, for the failure archives). The template's own subscriptions wait for its queue
 * policies (`fan-out.ts`).
 */
import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DescribeTableCommand, UpdateTimeToLiveCommand, type CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { CreateStreamCommand, DescribeStreamSummaryCommand } from '@aws-sdk/client-kinesis';
import { CreateTopicCommand, SubscribeCommand } from '@aws-sdk/client-sns';
import { CreateQueueCommand, GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { CreateBucketCommand, PutBucketVersioningCommand } from '@aws-sdk/client-s3';
import { setTimeout as sleep } from 'node:timers/promises';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION, type LocalClients } from '../engines';
import { resolveValue, type LocalResource, type ResolveContext } from '../../aws/cloudformation/intrinsics';
import { numberProp, ResourceType, resourcesOfType, stringProp, type NamedResource, type Template } from '../../aws/cloudformation/template';
import { FIFO_SUFFIX } from '../../aws/sqs/fifo';
import { clusterResource, sqlClusters, type LocalCluster } from './sql-clusters';

export interface LocalQueue {
  readonly logicalId: string;
  readonly name: string;
  readonly url: string;
  readonly arn: string;
  /** As the template declares it. */
  readonly visibilityTimeoutSeconds: number;
  /** As created locally, after time compression. */
  readonly localVisibilityTimeoutSeconds: number;
  /** The DLQ's ARN, when the queue has a redrive policy. */
  readonly deadLetterTargetArn?: string;
  readonly maxReceiveCount?: number;
}

export interface LocalTable {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  readonly streamArn?: string;
}

export interface LocalStream {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  readonly retentionHours: number;
}

export interface LocalTopic {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  /** A local queue subscribed to the topic (SNS envelope, as an SQS subscriber receives it). */
  readonly inbox: { readonly url: string; readonly arn: string };
}

export interface LocalBucket {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  /** `NotificationConfiguration.EventBridgeConfiguration.EventBridgeEnabled`: S3 sends its events to EventBridge. */
  readonly eventBridgeEnabled: boolean;
}

/** Everything provisioned, by logical id, and the context that resolves the template against it. */
export interface ProvisionedStack {
  readonly stackName: string;
  readonly queues: ReadonlyMap<string, LocalQueue>;
  readonly tables: ReadonlyMap<string, LocalTable>;
  readonly streams: ReadonlyMap<string, LocalStream>;
  readonly topics: ReadonlyMap<string, LocalTopic>;
  readonly buckets: ReadonlyMap<string, LocalBucket>;
  /** The Aurora PostgreSQL clusters with the Data API on, named (the runtime serves them on a local PostgreSQL). */
  readonly clusters: ReadonlyMap<string, LocalCluster>;
  readonly context: ResolveContext;
}

export interface ProvisionOptions {
  readonly stackName: string;
  readonly template: Template;
  readonly clients: LocalClients;
  /** Local seconds per template second for visibility timeouts. @default 1 */
  readonly timeScale?: number;
  /** Appended to every physical name, so that several copies of the stack share one set of engines. @default '' */
  readonly nameSuffix?: string;
}

/** Provisions the template's resources. Queues first (DLQs before their sources), then the rest. */
export async function provision(options: ProvisionOptions): Promise<ProvisionedStack> {
  const resources = new Map<string, LocalResource>();
  const context: ResolveContext = { resources, pseudo: pseudoParameters(options.stackName) };
  const queues = await provisionQueues(options, context, resources);
  const [tables, streams, topics, buckets] = await Promise.all([
    provisionAll(resourcesOfType(options.template, ResourceType.TABLE), (resource) => createTable(options, resource, resources)),
    provisionAll(resourcesOfType(options.template, ResourceType.STREAM), (resource) => createStream(options, resource, resources)),
    provisionAll(resourcesOfType(options.template, ResourceType.TOPIC), (resource) => createTopic(options, resource, resources)),
    provisionAll(resourcesOfType(options.template, ResourceType.BUCKET), (resource) => createBucket(options, resource, context, resources)),
  ]);
  const clusters = nameClusters(options, resources);
  nameFunctions(options, resources);
  identifyMappings(options, resources);
  return { stackName: options.stackName, queues, tables, streams, topics, buckets, clusters, context };
}

function pseudoParameters(stackName: string): Record<string, string> {
  return {
    'AWS::Region': LOCAL_REGION,
    'AWS::AccountId': LOCAL_ACCOUNT_ID,
    'AWS::Partition': 'aws',
    'AWS::URLSuffix': 'amazonaws.com',
    'AWS::StackName': stackName,
    'AWS::NoValue': '',
  };
}

/** What `Ref` of a logical id resolves to locally (a function's name, a mapping's UUID, a queue's URL); the id itself when local mode created nothing for it. */
export function refOf(stack: Pick<ProvisionedStack, 'context'>, logicalId: string): string {
  return stack.context.resources.get(logicalId)?.ref ?? logicalId;
}

/** The provisioned queue with this URL, if there is one. */
export function queueWithUrl(queues: ReadonlyMap<string, LocalQueue>, url: string | undefined): LocalQueue | undefined {
  return [...queues.values()].find((queue) => queue.url === url);
}

/** The provisioned queue with this ARN, if there is one. */
export function queueWithArn(queues: ReadonlyMap<string, LocalQueue>, arn: string | undefined): LocalQueue | undefined {
  return [...queues.values()].find((queue) => queue.arn === arn);
}

/** The physical name CloudFormation would generate when the template names none (shortened to fit every service). */
export function physicalName(stackName: string, logicalId: string, maxLength = 80): string {
  return `${stackName}-${logicalId}`.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, maxLength);
}

/** A name with the copy's suffix, cut to the service's limit from the front so that the suffix survives. */
function suffixed(name: string, options: ProvisionOptions, maxLength: number): string {
  const suffix = options.nameSuffix ?? '';
  return `${name.slice(0, maxLength - suffix.length)}${suffix}`;
}

async function provisionAll<T extends { logicalId: string }>(items: readonly NamedResource[], create: (resource: NamedResource) => Promise<T>): Promise<Map<string, T>> {
  const created = await Promise.all(items.map(create));
  return new Map(created.map((item) => [item.logicalId, item]));
}

async function provisionQueues(options: ProvisionOptions, context: ResolveContext, resources: Map<string, LocalResource>): Promise<Map<string, LocalQueue>> {
  const all = resourcesOfType(options.template, ResourceType.QUEUE);
  const withoutRedrive = all.filter((queue) => queue.properties.RedrivePolicy === undefined);
  const withRedrive = all.filter((queue) => queue.properties.RedrivePolicy !== undefined);
  const queues = await provisionAll(withoutRedrive, (queue) => createQueue(options, queue, context, resources));
  for (const [id, queue] of await provisionAll(withRedrive, (resource) => createQueue(options, resource, context, resources))) queues.set(id, queue);
  return queues;
}

async function createQueue(options: ProvisionOptions, resource: NamedResource, context: ResolveContext, resources: Map<string, LocalResource>): Promise<LocalQueue> {
  const { sqs } = options.clients;
  const props = resource.properties;
  const fifo = props.FifoQueue === true || props.FifoQueue === 'true';
  const name = queueName(stringProp(props, 'QueueName') ?? physicalName(options.stackName, resource.logicalId), options, fifo);
  const visibilityTimeoutSeconds = numberProp(props, 'VisibilityTimeout') ?? 30;
  const localVisibilityTimeoutSeconds = Math.max(1, Math.round(visibilityTimeoutSeconds * (options.timeScale ?? 1)));
  const redrive = props.RedrivePolicy === undefined ? undefined : (resolveValue(props.RedrivePolicy, context) as { deadLetterTargetArn: string; maxReceiveCount: number });
  const attributes: Record<string, string> = { VisibilityTimeout: String(localVisibilityTimeoutSeconds) };
  for (const key of ['MessageRetentionPeriod', 'DelaySeconds', 'MaximumMessageSize', 'ReceiveMessageWaitTimeSeconds']) {
    const value = numberProp(props, key);
    if (value !== undefined) attributes[key] = String(value);
  }
  if (fifo) Object.assign(attributes, fifoAttributes(props));
  if (redrive) attributes.RedrivePolicy = JSON.stringify({ deadLetterTargetArn: redrive.deadLetterTargetArn, maxReceiveCount: Number(redrive.maxReceiveCount) });
  const { QueueUrl: url = '' } = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
  const arn = Attributes?.QueueArn ?? '';
  resources.set(resource.logicalId, { ref: url, attributes: { Arn: arn, QueueName: name, QueueUrl: url } });
  return { logicalId: resource.logicalId, name, url, arn, visibilityTimeoutSeconds, localVisibilityTimeoutSeconds, deadLetterTargetArn: redrive?.deadLetterTargetArn, maxReceiveCount: redrive ? Number(redrive.maxReceiveCount) : undefined };
}

/** A queue's local name: the copy's suffix goes before a FIFO queue's `.fifo`, which its name must end in. */
function queueName(name: string, options: ProvisionOptions, fifo: boolean): string {
  if (!fifo) return suffixed(name, options, 80);
  return `${suffixed(name.endsWith(FIFO_SUFFIX) ? name.slice(0, -FIFO_SUFFIX.length) : name, options, 80 - FIFO_SUFFIX.length)}${FIFO_SUFFIX}`;
}

/** The FIFO settings of the template's queue, as CreateQueue takes them. */
function fifoAttributes(props: Record<string, unknown>): Record<string, string> {
  const attributes: Record<string, string> = { FifoQueue: 'true' };
  if (props.ContentBasedDeduplication !== undefined) attributes.ContentBasedDeduplication = String(props.ContentBasedDeduplication);
  for (const key of ['DeduplicationScope', 'FifoThroughputLimit']) {
    const value = stringProp(props, key);
    if (value !== undefined) attributes[key] = value;
  }
  return attributes;
}

async function createTable(options: ProvisionOptions, resource: NamedResource, resources: Map<string, LocalResource>): Promise<LocalTable> {
  const { dynamodb } = options.clients;
  const props = resource.properties;
  const name = suffixed(stringProp(props, 'TableName') ?? physicalName(options.stackName, resource.logicalId, 255), options, 255);
  const streamSpec = props.StreamSpecification as { StreamViewType?: string } | undefined;
  const input: CreateTableCommandInput = {
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema: props.KeySchema as CreateTableCommandInput['KeySchema'],
    AttributeDefinitions: props.AttributeDefinitions as CreateTableCommandInput['AttributeDefinitions'],
    GlobalSecondaryIndexes: stripBilling(props.GlobalSecondaryIndexes) as CreateTableCommandInput['GlobalSecondaryIndexes'],
    StreamSpecification: streamSpec?.StreamViewType ? { StreamEnabled: true, StreamViewType: streamSpec.StreamViewType as 'NEW_AND_OLD_IMAGES' } : undefined,
  };
  await dynamodb.send(new CreateTableCommand(input));
  const description = await waitFor(async () => {
    const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: name }));
    return Table?.TableStatus === 'ACTIVE' ? Table : undefined;
  }, `table ${name}`);
  const ttl = props.TimeToLiveSpecification as { AttributeName?: string; Enabled?: boolean } | undefined;
  if (ttl?.Enabled && ttl.AttributeName) {
    await dynamodb.send(new UpdateTimeToLiveCommand({ TableName: name, TimeToLiveSpecification: { Enabled: true, AttributeName: ttl.AttributeName } }));
  }
  const arn = description.TableArn ?? '';
  const streamArn = description.LatestStreamArn;
  resources.set(resource.logicalId, { ref: name, attributes: { Arn: arn, ...(streamArn && { StreamArn: streamArn }) } });
  return { logicalId: resource.logicalId, name, arn, streamArn };
}

function stripBilling(indexes: unknown): unknown {
  if (!Array.isArray(indexes)) return undefined;
  return indexes.map((index: Record<string, unknown>) => ({ ...index, ProvisionedThroughput: undefined, ContributorInsightsSpecification: undefined }));
}

async function createStream(options: ProvisionOptions, resource: NamedResource, resources: Map<string, LocalResource>): Promise<LocalStream> {
  const { kinesis } = options.clients;
  const props = resource.properties;
  const name = suffixed(stringProp(props, 'Name') ?? physicalName(options.stackName, resource.logicalId, 128), options, 128);
  await kinesis.send(new CreateStreamCommand({ StreamName: name, ShardCount: numberProp(props, 'ShardCount') ?? 1 }));
  const arn = await waitFor(async () => {
    const { StreamDescriptionSummary: summary } = await kinesis.send(new DescribeStreamSummaryCommand({ StreamName: name }));
    return summary?.StreamStatus === 'ACTIVE' ? summary.StreamARN : undefined;
  }, `stream ${name}`);
  resources.set(resource.logicalId, { ref: name, attributes: { Arn: arn } });
  return { logicalId: resource.logicalId, name, arn, retentionHours: numberProp(props, 'RetentionPeriodHours') ?? 24 };
}

async function createTopic(options: ProvisionOptions, resource: NamedResource, resources: Map<string, LocalResource>): Promise<LocalTopic> {
  const { sns, sqs } = options.clients;
  const name = suffixed(stringProp(resource.properties, 'TopicName') ?? physicalName(options.stackName, resource.logicalId, 256), options, 256);
  const { TopicArn: arn = '' } = await sns.send(new CreateTopicCommand({ Name: name }));
  const { QueueUrl: inboxUrl = '' } = await sqs.send(new CreateQueueCommand({ QueueName: `${name.slice(0, 70)}-inbox` }));
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: inboxUrl, AttributeNames: ['QueueArn'] }));
  const inboxArn = Attributes?.QueueArn ?? '';
  await sns.send(new SubscribeCommand({ TopicArn: arn, Protocol: 'sqs', Endpoint: inboxArn }));
  resources.set(resource.logicalId, { ref: arn, attributes: { TopicArn: arn, TopicName: name } });
  return { logicalId: resource.logicalId, name, arn, inbox: { url: inboxUrl, arn: inboxArn } };
}

/** S3 names: 3..63 of lowercase letters, digits and hyphens here (CloudFormation's generated names are lowercase). */
const BUCKET_NAME_MAX = 63;

async function createBucket(options: ProvisionOptions, resource: NamedResource, context: ResolveContext, resources: Map<string, LocalResource>): Promise<LocalBucket> {
  const { s3 } = options.clients;
  const props = resource.properties;
  const given = props.BucketName === undefined ? undefined : String(resolveValue(props.BucketName, context));
  const name = bucketName(given ?? physicalName(options.stackName, resource.logicalId, BUCKET_NAME_MAX), options);
  await s3.send(new CreateBucketCommand({ Bucket: name }));
  const versioning = props.VersioningConfiguration as { Status?: string } | undefined;
  if (versioning?.Status === 'Enabled') await s3.send(new PutBucketVersioningCommand({ Bucket: name, VersioningConfiguration: { Status: 'Enabled' } }));
  const arn = `arn:aws:s3:::${name}`;
  resources.set(resource.logicalId, { ref: name, attributes: { Arn: arn, DomainName: `${name}.s3.amazonaws.com`, RegionalDomainName: `${name}.s3.${LOCAL_REGION}.amazonaws.com` } });
  const notifications = props.NotificationConfiguration as { EventBridgeConfiguration?: { EventBridgeEnabled?: unknown } } | undefined;
  const enabled = notifications?.EventBridgeConfiguration?.EventBridgeEnabled;
  return { logicalId: resource.logicalId, name, arn, eventBridgeEnabled: enabled === true || enabled === 'true' };
}

/** A bucket's local name: lower case, as S3 requires, with the copy's suffix. */
function bucketName(name: string, options: ProvisionOptions): string {
  return suffixed(name.toLowerCase().replace(/[^a-z0-9-]/g, '-'), { ...options, nameSuffix: options.nameSuffix?.toLowerCase() }, BUCKET_NAME_MAX).replace(/-+$/, '');
}

/** The clusters' names and ARNs in the resolve context; their databases are the runtime's (sql-database.ts). */
function nameClusters(options: ProvisionOptions, resources: Map<string, LocalResource>): Map<string, LocalCluster> {
  const clusters = sqlClusters(options.template, options.stackName, options.nameSuffix);
  for (const cluster of clusters) resources.set(cluster.logicalId, clusterResource(cluster));
  return new Map(clusters.map((cluster) => [cluster.logicalId, cluster]));
}

function nameFunctions(options: ProvisionOptions, resources: Map<string, LocalResource>): void {
  for (const fn of resourcesOfType(options.template, ResourceType.FUNCTION)) {
    const name = suffixed(stringProp(fn.properties, 'FunctionName') ?? physicalName(options.stackName, fn.logicalId, 64), options, 64);
    resources.set(fn.logicalId, { ref: name, attributes: { Arn: `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:function:${name}` } });
  }
}

/** Each event source mapping's `Ref`: a UUID, as Lambda gives it (alarms and dashboards name a mapping by it). */
function identifyMappings(options: ProvisionOptions, resources: Map<string, LocalResource>): void {
  for (const mapping of resourcesOfType(options.template, ResourceType.EVENT_SOURCE_MAPPING)) {
    const uuid = randomUUID();
    resources.set(mapping.logicalId, { ref: uuid, attributes: { EventSourceMappingArn: `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:event-source-mapping:${uuid}` } });
  }
}

async function waitFor<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} to become ACTIVE`);
    await sleep(50);
  }
}
