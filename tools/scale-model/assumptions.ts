/**
 * What the scale model takes from AWS rather than from the bench: limits, prices and the few
 * things nobody can measure on this machine. Each carries where it is stated and whether a search
 * of AWS's documentation confirmed it on {@link CHECKED_ON}; docs/scale.md prints this list.
 *
 * The limits that the runtime and the constructs already read come from aws/limits.ts, so that
 * the two can never disagree; the rest could move there once code needs them.
 */
import { DYNAMODB_LIMITS, LAMBDA_LIMITS, SQS_LIMITS } from '../../aws/limits';

/** The day every figure below was looked up. */
export const CHECKED_ON = '2026-12-01';

/** The region the prices are for. */
export const REGION = 'us-east-1';

/** How far a search got in confirming a figure. */
export const CONFIRMATION = {
  /** AWS's own documentation states it. */
  aws: 'AWS docs',
  /** Only pages by others state it (AWS's page renders its prices in the browser, or search did not reach it). */
  thirdParty: 'third-party pages only',
  /** Nothing states it: it is this model's assumption. */
  none: 'not confirmed (assumption)',
} as const;

export type Confirmation = (typeof CONFIRMATION)[keyof typeof CONFIRMATION];

export interface Assumption {
  readonly value: number;
  readonly unit: string;
  /** What the number is, for the table in docs/scale.md. */
  readonly label: string;
  readonly sources: readonly string[];
  readonly confirmed: Confirmation;
  /** What to know before relying on it. */
  readonly note?: string;
}

const DYNAMODB_PARTITIONS = 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html';
const DYNAMODB_WARM = 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput-scenarios.html';
const DYNAMODB_PROVISIONED_PRICING = 'https://aws.amazon.com/dynamodb/pricing/provisioned/';
const DYNAMODB_ON_DEMAND_PRICING = 'https://aws.amazon.com/dynamodb/pricing/on-demand/';
const LAMBDA_PRICING = 'https://aws.amazon.com/lambda/pricing/';
const SQS_PRICING = 'https://aws.amazon.com/sqs/pricing/';
// Where search confirmed the prices, since AWS's own pages did not show their figures to it.
const DYNAMODB_PRICE_CHECK = 'https://airbyte.com/data-engineering-resources/dynamodb-pricing';
const LAMBDA_PRICE_CHECK = 'https://cloudchipr.com/blog/aws-lambda-pricing';
const SQS_PRICE_CHECK = 'https://cloudburn.io/blog/amazon-sqs-pricing';

/** DynamoDB's limits on one item and one table. */
export const DYNAMODB = {
  itemWriteUnits: {
    value: DYNAMODB_LIMITS.maxItemWriteUnitsPerSecond,
    unit: 'WCU/s',
    label: 'write units a second one partition (so one item) takes',
    sources: [DYNAMODB_PARTITIONS, DYNAMODB_WARM],
    confirmed: CONFIRMATION.aws,
    note: 'however the table is provisioned; DynamoDB splits a hot partition, never a hot item',
  },
  itemReadUnits: {
    value: 3_000,
    unit: 'RCU/s',
    label: 'read units a second one partition takes',
    sources: [DYNAMODB_PARTITIONS, DYNAMODB_WARM],
    confirmed: CONFIRMATION.aws,
  },
  transactionalWriteUnitsPerKb: {
    value: 2,
    unit: 'WCU per KB',
    label: 'a transactional write of an item (prepare and commit)',
    sources: [DYNAMODB_PROVISIONED_PRICING, 'https://docs.aws.amazon.com/whitepapers/latest/how-aws-pricing-works/dynamodb.html'],
    confirmed: CONFIRMATION.aws,
  },
  standardWriteUnitsPerKb: {
    value: 1,
    unit: 'WCU per KB',
    label: 'a standard write (PutItem, UpdateItem) of an item',
    sources: [DYNAMODB_PROVISIONED_PRICING],
    confirmed: CONFIRMATION.aws,
  },
  transactionActions: {
    value: DYNAMODB_LIMITS.maxTransactionActions,
    unit: 'actions',
    label: 'actions in one TransactWriteItems (and at most 4 MB)',
    sources: ['https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html'],
    confirmed: CONFIRMATION.aws,
  },
  tableWriteUnits: {
    value: 40_000,
    unit: 'WRU/s',
    label: 'on-demand table-level write quota (default, per table, adjustable)',
    sources: ['https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode-max-throughput.html', 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html'],
    confirmed: CONFIRMATION.aws,
    note: 'a Service Quotas default: an account may have asked for more',
  },
  tableReadUnits: {
    value: 40_000,
    unit: 'RRU/s',
    label: 'on-demand table-level read quota (default, per table, adjustable)',
    sources: ['https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode-max-throughput.html', 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html'],
    confirmed: CONFIRMATION.aws,
  },
  newTableWarmWriteUnits: {
    value: 4_000,
    unit: 'WRU/s',
    label: 'what a new on-demand table takes at once (warm throughput), before it scales',
    sources: [DYNAMODB_WARM],
    confirmed: CONFIRMATION.aws,
    note: 'a table can be pre-warmed to more',
  },
} as const satisfies Record<string, Assumption>;

/** Lambda's limits on concurrency and scaling, and on CPU. */
export const LAMBDA = {
  accountConcurrency: {
    value: 1_000,
    unit: 'concurrent executions',
    label: 'regional account concurrency (default quota)',
    sources: ['https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html'],
    confirmed: CONFIRMATION.aws,
    note: 'new accounts start lower, raised by AWS with use; can be raised to tens of thousands',
  },
  scalingPerTenSeconds: {
    value: 1_000,
    unit: 'execution environments per 10 s',
    label: 'how fast one function scales',
    sources: ['https://docs.aws.amazon.com/lambda/latest/dg/scaling-behavior.html'],
    confirmed: CONFIRMATION.aws,
  },
  sqsInitialBatches: {
    value: 5,
    unit: 'concurrent batches',
    label: 'where an SQS mapping starts when messages arrive',
    sources: ['https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html'],
    confirmed: CONFIRMATION.aws,
  },
  sqsScaleUpPerMinute: {
    value: 300,
    unit: 'concurrent batches per minute',
    label: 'how fast an SQS mapping adds pollers',
    sources: ['https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html'],
    confirmed: CONFIRMATION.aws,
  },
  sqsMaxBatches: {
    value: 1_000,
    unit: 'concurrent batches',
    label: 'the most batches one SQS mapping processes at once',
    sources: ['https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html'],
    confirmed: CONFIRMATION.aws,
    note: 'the current English page says 1,000; older versions said 1,250, which search did not confirm',
  },
  sqsMaximumConcurrency: {
    value: LAMBDA_LIMITS.maxSqsMaximumConcurrency,
    unit: 'concurrent invocations',
    label: 'the largest ScalingConfig.MaximumConcurrency (the smallest is 2)',
    sources: ['https://docs.aws.amazon.com/lambda/latest/dg/API_ScalingConfig.html'],
    confirmed: CONFIRMATION.aws,
  },
  mibPerVcpu: {
    value: 1_769,
    unit: 'MB',
    label: 'memory at which a function has one vCPU (CPU is proportional to memory)',
    sources: ['https://docs.aws.amazon.com/lambda/latest/dg/resource-model.html'],
    confirmed: CONFIRMATION.aws,
  },
  maxParallelizationFactor: {
    value: 10,
    unit: 'concurrent batches per shard',
    label: "a stream mapping's ParallelizationFactor (default 1)",
    sources: ['https://docs.aws.amazon.com/sdk-for-kotlin/api/latest/lambda/aws.sdk.kotlin.services.lambda.model/-get-event-source-mapping-response/parallelization-factor.html', 'https://pub.dev/documentation/pulumi_aws/latest/lambda/EventSourceMapping/parallelizationFactor.html'],
    confirmed: CONFIRMATION.thirdParty,
    note: "AWS's SDK docs give the default of 1; the maximum of 10 was found only in third-party copies of AWS's 2019 announcement",
  },
} as const satisfies Record<string, Assumption>;

/** SQS and Kinesis limits on what one queue or one shard takes. */
export const STREAMS = {
  sqsBatchEntries: {
    value: SQS_LIMITS.maxBatchEntries,
    unit: 'messages',
    label: 'messages per SendMessageBatch, ReceiveMessage and DeleteMessageBatch',
    sources: ['https://docs.aws.amazon.com/cli/latest/reference/sqs/delete-message-batch.html'],
    confirmed: CONFIRMATION.aws,
  },
  sqsInFlight: {
    value: 120_000,
    unit: 'messages',
    label: 'in-flight messages of a standard queue (approximately)',
    sources: ['https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-queues.html'],
    confirmed: CONFIRMATION.aws,
    note: 'a standard queue takes a nearly unlimited number of API calls a second per action; this is its only count limit here',
  },
  kinesisShardWriteRecords: {
    value: 1_000,
    unit: 'records/s',
    label: 'records a second one shard takes (and 1 MB/s)',
    sources: ['https://docs.aws.amazon.com/streams/latest/dev/working-with-streams.html'],
    confirmed: CONFIRMATION.aws,
  },
  kinesisShardWriteBytes: {
    value: 1_048_576,
    unit: 'bytes/s',
    label: 'bytes a second one shard takes',
    sources: ['https://docs.aws.amazon.com/streams/latest/dev/working-with-streams.html'],
    confirmed: CONFIRMATION.aws,
  },
  kinesisShardReadBytes: {
    value: 2_097_152,
    unit: 'bytes/s',
    label: 'bytes a second one shard serves, shared by its polling consumers (each enhanced fan-out consumer gets its own)',
    sources: ['https://docs.aws.amazon.com/streams/latest/dev/working-with-streams.html', 'https://docs.aws.amazon.com/streams/latest/dev/enhanced-consumers.html'],
    confirmed: CONFIRMATION.aws,
  },
} as const satisfies Record<string, Assumption>;

/** Prices in {@link REGION} on {@link CHECKED_ON}, first tier, free tiers ignored. */
export const PRICES = {
  dynamodbWriteRequestUnit: {
    value: 0.625 / 1e6,
    unit: 'USD per WRU',
    label: 'DynamoDB on-demand write request unit ($0.625 per million, Standard table class)',
    sources: [DYNAMODB_ON_DEMAND_PRICING, DYNAMODB_PRICE_CHECK],
    confirmed: CONFIRMATION.thirdParty,
    note: "the price after AWS's November 2024 cut; AWS's page was found but its figures were not in the text searched",
  },
  dynamodbReadRequestUnit: {
    value: 0.125 / 1e6,
    unit: 'USD per RRU',
    label: 'DynamoDB on-demand read request unit ($0.125 per million)',
    sources: [DYNAMODB_ON_DEMAND_PRICING, DYNAMODB_PRICE_CHECK],
    confirmed: CONFIRMATION.thirdParty,
  },
  lambdaArmGbSecond: {
    value: 0.0000133334,
    unit: 'USD per GB-s',
    label: 'Lambda duration on arm64, as deployed (first 7.5 billion GB-s a month)',
    sources: [LAMBDA_PRICING, LAMBDA_PRICE_CHECK],
    confirmed: CONFIRMATION.thirdParty,
    note: "AWS's page renders its rates in the browser; several third-party pages agree on the figure",
  },
  lambdaX86GbSecond: {
    value: 0.0000166667,
    unit: 'USD per GB-s',
    label: 'Lambda duration on x86_64 (first 6 billion GB-s a month)',
    sources: [LAMBDA_PRICING, LAMBDA_PRICE_CHECK],
    confirmed: CONFIRMATION.thirdParty,
  },
  lambdaRequest: {
    value: 0.2 / 1e6,
    unit: 'USD per invocation',
    label: 'Lambda requests ($0.20 per million)',
    sources: [LAMBDA_PRICING, LAMBDA_PRICE_CHECK],
    confirmed: CONFIRMATION.thirdParty,
  },
  sqsRequest: {
    value: 0.4 / 1e6,
    unit: 'USD per request',
    label: 'SQS standard queue requests ($0.40 per million; each 64 KB of a request counts as one)',
    sources: [SQS_PRICING, SQS_PRICE_CHECK],
    confirmed: CONFIRMATION.thirdParty,
  },
} as const satisfies Record<string, Assumption>;

/** What nothing here can measure: every figure that uses one of these is `projected`. */
export const ASSUMED = {
  transactWriteLatencyMs: {
    value: 10,
    unit: 'ms',
    label: 'round trip of a TransactWriteItems of up to 100 actions, from Lambda in the same region',
    sources: ['https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html'],
    confirmed: CONFIRMATION.none,
    note: 'AWS promises "single-digit millisecond" latency for single-item requests and nothing for transactions',
  },
  requestLatencyMs: {
    value: 5,
    unit: 'ms',
    label: 'round trip of any other DynamoDB request (PutItem, UpdateItem, BatchGetItem, ...)',
    sources: ['https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html'],
    confirmed: CONFIRMATION.none,
  },
  vcpuVersusBenchCore: {
    value: 1,
    unit: 'x',
    label: "speed of Lambda's vCPU against one core of the bench machine",
    sources: [],
    confirmed: CONFIRMATION.none,
    note: 'the CPU part of a projected duration is the measured CPU time scaled by the vCPU share of the memory setting, divided by this',
  },
  sqsMessagesPerReceive: {
    value: SQS_LIMITS.maxReceiveMessages,
    unit: 'messages',
    label: "messages per ReceiveMessage and per DeleteMessageBatch of the mapping's pollers; empty receives not counted",
    sources: ['https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html'],
    confirmed: CONFIRMATION.none,
    note: 'AWS does not document how its pollers call SQS; 10 is the API maximum, so this is the cheapest case',
  },
} as const satisfies Record<string, Assumption>;

/** Every constant above, by group, in the order docs/scale.md lists them. */
export const ALL_ASSUMPTIONS: readonly (readonly [string, Readonly<Record<string, Assumption>>])[] = [
  ['DynamoDB', DYNAMODB],
  ['Lambda', LAMBDA],
  ['SQS and Kinesis', STREAMS],
  [`Prices (${REGION})`, PRICES],
  ['Assumed', ASSUMED],
];
