/**
 * The template's event source mappings, emulated: each `AWS::Lambda::EventSourceMapping` becomes
 * an SQS or stream mapping with the template's settings (batch size, batching window, partial
 * batch responses, maximum concurrency or provisioned pollers, bisect, retries, record age, on-failure destination: a
 * queue, or a bucket that keeps the batch whole), invoking the local function it names.
 */
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { LOCAL_REGION, type LocalClients } from '../engines';
import { holdSecondsFor, SQS_MAPPING_DEFAULTS, SqsMapping, StreamMapping, type MappingLog, type OnFailureArchive } from '../event-sources';
import type { LocalFunction } from '../functions';
import type { DeliveryFaults, Invoker } from '../types';
import { resolveString } from '../../aws/cloudformation/intrinsics';
import type { RolePolicies } from '../iam';
import { bucketNameOfArn } from '../../operations/dlq/archive-topology';
import { announcingTargets, archiveWriter, assertMayArchive } from './failure-archives';
import type { LocalRuleTarget } from './fan-out';
import { queueWithArn, refOf, type LocalQueue, type ProvisionedStack } from './provision';
import { LAMBDA_LIMITS } from '../../aws/limits';
import { mappingEnabled, numberProp, ResourceType, resourcesOfType, stringProp, type NamedResource, type Template } from '../../aws/cloudformation/template';

export type Mapping = SqsMapping | StreamMapping;

/** A running mapping and what it connects. */
export interface MappingSpec {
  readonly logicalId: string;
  readonly source: 'sqs' | 'kinesis' | 'dynamodb-stream';
  readonly functionLogicalId: string;
  /** SQS mappings: the source queue, whose depth tells when it has drained. */
  readonly sourceQueueUrl?: string;
  readonly mapping: Mapping;
}

export interface MappingOptions {
  readonly template: Template;
  readonly stack: ProvisionedStack;
  /** Local functions by logical id. */
  readonly functions: ReadonlyMap<string, LocalFunction>;
  readonly clients: LocalClients;
  readonly dynamodbStreams: DynamoDBStreamsClient;
  readonly faults?: DeliveryFaults;
  /**
   * SQS pollers per mapping, never more than the mapping's `ScalingConfig.MaximumConcurrency`.
   * @default 2 (`SQS_MAPPING_DEFAULTS.concurrency`)
   */
  readonly sqsConcurrency?: number;
  /** Rest between polls of a stream with nothing new, in ms. @default 200 */
  readonly streamPollIntervalMs?: number;
  readonly log?: MappingLog;
  /** Settings that replace the template's, for schedules that explore other batch shapes. */
  readonly overrides?: MappingOverrides;
  /** Wraps a function's invoker, e.g. to count deliveries. */
  readonly wrapInvoker?: (functionLogicalId: string, invoke: Invoker) => Invoker;
  /**
   * The clients a mapping calls with on its function's behalf (receive, delete, change visibility,
   * read the stream, send to the on-failure queue, put a failed batch in the on-failure bucket):
   * on AWS those calls are authorized against the function's execution role.
   * @default - `clients` and `dynamodbStreams`
   */
  readonly clientsFor?: (functionLogicalId: string) => { readonly sqs: LocalClients['sqs']; readonly kinesis: LocalClients['kinesis']; readonly dynamodbStreams: DynamoDBStreamsClient; readonly s3?: LocalClients['s3'] };
  /**
   * The template's IAM: a mapping whose on-failure bucket its function's role may not write to is
   * refused at start. @default - not checked
   */
  readonly policies?: RolePolicies;
  /** The EventBridge rule targets local mode wired (fan-out.ts): where a failure archive's objects are announced. @default - none */
  readonly ruleTargets?: readonly LocalRuleTarget[];
}

export interface MappingOverrides {
  readonly sqsBatchSize?: number;
  readonly sqsBatchingWindowSeconds?: number;
  readonly streamBatchSize?: number;
}

/**
 * Builds (without starting) one mapping per enabled template mapping. A mapping with `Enabled:
 * false` is left out, as Lambda neither polls nor invokes for one (`mappingEnabled`); its function
 * is still there to invoke (a generation that `eo replay` fills).
 */
export function createMappings(options: MappingOptions): MappingSpec[] {
  return resourcesOfType(options.template, ResourceType.EVENT_SOURCE_MAPPING)
    .filter((resource) => mappingEnabled(resource.properties))
    .map((resource) => createMapping(resource, options));
}

function createMapping(resource: NamedResource, options: MappingOptions): MappingSpec {
  const props = resource.properties;
  const functionName = resolveString(props.FunctionName, options.stack.context);
  const [functionLogicalId, fn] = [...options.functions.entries()].find(([logicalId]) => options.stack.context.resources.get(logicalId)?.ref === functionName) ?? [];
  if (!functionLogicalId || !fn) throw new Error(`event source mapping ${resource.logicalId} names function ${functionName}, which local mode did not start`);
  const invoke = options.wrapInvoker ? options.wrapInvoker(functionLogicalId, fn.invoke) : fn.invoke;
  const sourceArn = resolveString(props.EventSourceArn, options.stack.context);
  const queue = queueWithArn(options.stack.queues, sourceArn);
  const reportBatchItemFailures = ((props.FunctionResponseTypes as string[] | undefined) ?? []).includes('ReportBatchItemFailures');
  if (queue) {
    const target = { queue, invoke, functionTimeoutSeconds: fn.timeoutSeconds };
    return { logicalId: resource.logicalId, source: 'sqs', functionLogicalId, sourceQueueUrl: queue.url, mapping: sqsMapping(props, target, reportBatchItemFailures, { ...options, ...clientsOf(options, functionLogicalId) }) };
  }
  const kind = sourceArn.includes(':kinesis:') ? 'kinesis' : 'dynamodb-stream';
  // Lambda puts a failed batch in the bucket under the function's execution role ("Your execution
  // role must have permissions for the destination: s3:PutObject and s3:ListBucket", Lambda
  // Developer Guide, https://docs.aws.amazon.com/lambda/latest/dg/kinesis-on-failure-destination.html),
  // so each put is signed as the function and decided at the gateway; EventBridge's announcement
  // is the service's own, decided up front (fan-out.ts).
  const archive = onFailureArchive(resource, functionLogicalId, options.clientsFor?.(functionLogicalId).s3 ?? options.clients.s3, options);
  return { logicalId: resource.logicalId, source: kind, functionLogicalId, mapping: streamMapping(props, kind, sourceArn, functionLogicalId, invoke, reportBatchItemFailures, archive, { ...options, ...clientsOf(options, functionLogicalId) }) };
}

/** The clients a function's mapping calls with: its own, when the caller gives them. */
function clientsOf(options: MappingOptions, functionLogicalId: string): Partial<Pick<MappingOptions, 'clients' | 'dynamodbStreams'>> {
  const own = options.clientsFor?.(functionLogicalId);
  return own ? { clients: { ...options.clients, sqs: own.sqs, kinesis: own.kinesis }, dynamodbStreams: own.dynamodbStreams } : {};
}

/** What an SQS mapping reads and invokes. */
interface SqsTarget {
  readonly queue: LocalQueue;
  readonly invoke: Invoker;
  /** The local function's timeout, which the hold of a batch covers. */
  readonly functionTimeoutSeconds: number;
}

function sqsMapping(props: Record<string, unknown>, { queue, invoke, functionTimeoutSeconds }: SqsTarget, reportBatchItemFailures: boolean, options: MappingOptions): SqsMapping {
  const maximumBatchingWindowSeconds = options.overrides?.sqsBatchingWindowSeconds ?? numberProp(props, 'MaximumBatchingWindowInSeconds') ?? 0;
  return new SqsMapping({
    queueUrl: queue.url,
    queueArn: queue.arn,
    region: LOCAL_REGION,
    batchSize: options.overrides?.sqsBatchSize ?? numberProp(props, 'BatchSize') ?? 10,
    maximumBatchingWindowSeconds,
    reportBatchItemFailures,
    visibilityTimeoutSeconds: queue.localVisibilityTimeoutSeconds,
    // Scaled down, the visibility timeout no longer covers the real batching window and run time: a
    // held batch gets the constructs' rule on the local timings instead (held-batch.ts).
    keepHeldInvisible: queue.localVisibilityTimeoutSeconds < queue.visibilityTimeoutSeconds,
    holdSeconds: Math.max(queue.localVisibilityTimeoutSeconds, holdSecondsFor(functionTimeoutSeconds, maximumBatchingWindowSeconds)),
    concurrency: sqsPollerCount(props, options.sqsConcurrency),
    invoke,
    faults: options.faults,
    sqs: options.clients.sqs,
    log: options.log,
  });
}

/**
 * The pollers of an SQS mapping: the local count, capped by the template's maximum concurrency,
 * or in provisioned mode by its maximum pollers x 10 (the invocations one AWS poller runs at
 * once). Each local poller holds at most one batch, so no more batches are in flight than AWS
 * would invoke at once. Provisioned mode's minimum is not modelled: local pollers run from the
 * start and never scale, and no local count reaches the smallest cap (2 pollers, 20 invocations).
 */
export function sqsPollerCount(props: Record<string, unknown>, requested: number = SQS_MAPPING_DEFAULTS.concurrency): number {
  const maximum = maximumConcurrencyOf(props) ?? provisionedInvocationsOf(props);
  return maximum === undefined ? requested : Math.min(requested, maximum);
}

/** In provisioned mode, the invocations at once that `ProvisionedPollerConfig.MaximumPollers` allows; undefined otherwise or when not a literal. */
function provisionedInvocationsOf(props: Record<string, unknown>): number | undefined {
  const config = props.ProvisionedPollerConfig;
  if (typeof config !== 'object' || config === null) return undefined;
  const pollers = numberProp(config as Record<string, unknown>, 'MaximumPollers');
  return pollers === undefined ? undefined : pollers * LAMBDA_LIMITS.sqsInvocationsPerPoller;
}

/** `ScalingConfig.MaximumConcurrency` as a number; undefined when absent or not a literal. */
function maximumConcurrencyOf(props: Record<string, unknown>): number | undefined {
  const scaling = props.ScalingConfig;
  if (typeof scaling !== 'object' || scaling === null) return undefined;
  return numberProp(scaling as Record<string, unknown>, 'MaximumConcurrency');
}

/**
 * The mapping's failure archive, when its on-failure destination is a bucket of the stack.
 * @throws Error when the bucket is not the stack's, or the function's role may not write to it
 */
function onFailureArchive(resource: NamedResource, functionLogicalId: string, s3: LocalClients['s3'], options: MappingOptions): OnFailureArchive | undefined {
  const destinationArn = onFailureArnOf(resource.properties, options);
  const name = destinationArn === undefined ? undefined : bucketNameOfArn(destinationArn);
  if (name === undefined) return undefined;
  const bucket = [...options.stack.buckets.values()].find((candidate) => candidate.name === name);
  if (bucket === undefined) throw new Error(`${functionLogicalId}'s stream mapping sends failed batches to the bucket ${name}, which is not a bucket of the stack`);
  if (options.policies) assertMayArchive(options.policies, functionLogicalId, refOf(options.stack, functionLogicalId), bucket);
  const announceTo = announcingTargets(options.template, options.stack.context, options.ruleTargets ?? [], bucket);
  const mappingUuid = refOf(options.stack, resource.logicalId);
  return archiveWriter({ bucket, clients: { s3, sqs: options.clients.sqs }, announceTo, mappingUuid });
}

/** The ARN of the mapping's on-failure destination, if it has one. */
function onFailureArnOf(props: Record<string, unknown>, options: MappingOptions): string | undefined {
  const onFailure = (props.DestinationConfig as { OnFailure?: { Destination?: unknown } } | undefined)?.OnFailure?.Destination;
  return onFailure === undefined ? undefined : resolveString(onFailure, options.stack.context);
}

function streamMapping(props: Record<string, unknown>, kind: 'kinesis' | 'dynamodb-stream', streamArn: string, functionLogicalId: string, invoke: Invoker, reportBatchItemFailures: boolean, archive: OnFailureArchive | undefined, options: MappingOptions): StreamMapping {
  const onFailureQueue = queueWithArn(options.stack.queues, onFailureArnOf(props, options));
  const stream = [...options.stack.streams.values()].find((candidate) => candidate.arn === streamArn);
  return new StreamMapping({
    kind,
    streamName: stream?.name,
    streamArn,
    region: LOCAL_REGION,
    functionArn: options.stack.context.resources.get(functionLogicalId)?.attributes.Arn ?? '',
    batchSize: options.overrides?.streamBatchSize ?? numberProp(props, 'BatchSize') ?? 100,
    bisectBatchOnFunctionError: props.BisectBatchOnFunctionError === true || props.BisectBatchOnFunctionError === 'true',
    maximumRetryAttempts: numberProp(props, 'MaximumRetryAttempts') ?? -1,
    // Not compressed: DynamoDB Local rounds record times down to the minute, so a compressed age would expire records at once.
    maximumRecordAgeSeconds: numberProp(props, 'MaximumRecordAgeInSeconds') ?? -1,
    reportBatchItemFailures,
    startingPosition: (stringProp(props, 'StartingPosition') ?? 'TRIM_HORIZON') as 'TRIM_HORIZON' | 'LATEST',
    onFailureQueueUrl: onFailureQueue?.url,
    onFailureArchive: archive,
    pollIntervalMs: options.streamPollIntervalMs ?? 200,
    invoke,
    faults: options.faults,
    clients: { kinesis: options.clients.kinesis, dynamodbStreams: options.dynamodbStreams, sqs: options.clients.sqs },
    log: options.log,
  });
}
