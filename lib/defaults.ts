import { Duration } from 'aws-cdk-lib';
import type { Runtime } from 'aws-cdk-lib/aws-lambda';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { newestNodeRuntime } from './node-runtime';

/**
 * The runtime of a consumer function when its `runtime` prop is not set: the newest Node.js
 * runtime that the installed aws-cdk-lib knows (so that cdk-nag's AwsSolutions-L1 passes on
 * whichever aws-cdk-lib the app installs). The esbuild target is derived from the function's
 * runtime, so the bundle never uses syntax the runtime lacks.
 */
export const CONSUMER_RUNTIME: Runtime = newestNodeRuntime();

export { METRICS_NAMESPACE } from '../aws/metrics';

/**
 * How long a DLQ keeps a message: the SQS maximum, so that triage is never raced by expiry.
 * It is also a term of the dedup window: a message redriven from the DLQ must still be caught.
 */
export const DLQ_RETENTION = Duration.days(14);

/** DynamoDB Streams keep a record for 24 hours; this cannot be configured. */
export const DYNAMODB_STREAM_RETENTION = Duration.hours(24);

/** Defaults shared by every consumer construct; the props' `@default` tags name these values. */
export const CONSUMER_DEFAULTS = {
  /** Function timeout. */
  timeout: Duration.seconds(30),
  /** Function memory, in MiB. */
  memorySize: 256,
  /** Time allowed for a redrive, on top of the DLQ's retention: a term of the dedup window (`minimumDedupTtl`). */
  redriveAllowance: Duration.days(1),
  /**
   * How long the function's log group keeps its logs: a year, as Control Tower's CT.CLOUDWATCH.PR.2
   * requires, so that what happened to an event can be looked up long after its DLQ message expired.
   */
  logRetention: RetentionDays.ONE_YEAR,
} as const;

/** Defaults of {@link QueueConsumer}. */
export const QUEUE_CONSUMER_DEFAULTS = {
  /** Messages per invocation. */
  batchSize: 10,
  /** Receives before SQS moves a message to the DLQ. */
  maxReceiveCount: 6,
  /** The source queue's message retention (the SQS default). */
  retentionPeriod: Duration.days(4),
  /**
   * Concurrent invocations the queue's mapping may run (`ScalingConfig.MaximumConcurrency`). The
   * runtime's sharded counters keep conflicts rare with at least 4 shards per concurrent writer,
   * and the bench measures them at 16 consumers; an unbounded mapping would scale towards the
   * account's whole concurrency and put every one of those invocations on the same hot items.
   * docs/reliability.md ("How many invocations at once") explains the choice.
   */
  maxConcurrency: 16,
} as const;

/** Defaults of {@link KinesisConsumer} and {@link DynamoStreamConsumer}. */
export const STREAM_CONSUMER_DEFAULTS = {
  /** Records per invocation. */
  batchSize: 100,
  /** Retries of a failed batch (after bisection) before it goes to the on-failure destination. */
  retryAttempts: 3,
  /** Records older than this go to the on-failure destination instead of being processed. */
  maxRecordAge: Duration.hours(1),
  /** Iterator age above which the consumer is alarmed as falling behind. */
  iteratorAgeThreshold: Duration.minutes(1),
  /** The Kinesis stream's retention when the construct creates it (the Kinesis default). */
  kinesisRetentionPeriod: Duration.hours(24),
} as const;
