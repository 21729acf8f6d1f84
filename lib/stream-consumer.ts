import { Duration, Validations } from 'aws-cdk-lib';
import { StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { SqsDlq, type StreamEventSourceProps } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { type IQueue, RedrivePermission } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { addConsumerFunction } from './consumer-function';
import { type ConsumerProps, serviceNameOf, validateConsumerProps } from './consumer-props';
import { CONSUMER_DEFAULTS, DLQ_RETENTION, STREAM_CONSUMER_DEFAULTS } from './defaults';
import { ConsumerAlarms, MAPPING_METRICS } from './consumer-alarms';
import { FailureArchive } from './failure-archive';
import { IteratorAgeAlarm } from './iterator-age-alarm';
import { addMonitoredDlq, type MonitoredDlq } from './monitored-dlq';
import {
  checkDedupTtl,
  checkDurationRange,
  checkIntegerRange,
  defaultOrThrow,
  type DedupWindowTerms,
  formatDuration,
  minimumDedupTtl,
} from './validation';
import { LAMBDA_LIMITS } from '../aws/limits';

/**
 * An idempotency lock (Powertools' in-progress record) left by an invocation that failed lasts
 * until that invocation's deadline: up to one function timeout. Only a retry can wait it out, so a
 * stream consumer needs at least one retry, and its records must outlive the failed invocation,
 * a retry spent waiting out the lock and the retry that takes it over: three timeouts.
 */
export const LOCK_WINDOW_RULES = {
  minRetryAttempts: 1,
  timeoutsOfRecordAge: 3,
} as const;

/** Props that the Kinesis and DynamoDB Streams consumers share. */
export interface StreamConsumerProps extends ConsumerProps {
  /**
   * Records per invocation.
   * @default 100 (`STREAM_CONSUMER_DEFAULTS.batchSize`)
   * @range 1..10000, a whole number (Lambda's limit)
   */
  readonly batchSize?: number;
  /**
   * How long Lambda gathers records before invoking.
   * @default - no batching window
   * @range 0 seconds..5 minutes (Lambda's limit)
   */
  readonly maxBatchingWindow?: Duration;
  /**
   * Retries of a failing batch before its metadata goes to the DLQ. Never unbounded: an
   * unbounded retry lets one poison record block its shard until the record expires. At least 1:
   * only a retry can wait out an idempotency lock that a failed invocation left
   * (`LOCK_WINDOW_RULES`).
   * @default 3 (`STREAM_CONSUMER_DEFAULTS.retryAttempts`)
   * @range 1..10000, a whole number (Lambda's maximum; -1, unbounded, is refused)
   */
  readonly retryAttempts?: number;
  /**
   * Records older than this go to the DLQ instead of being processed.
   * @default 1 hour (`STREAM_CONSUMER_DEFAULTS.maxRecordAge`)
   * @range 1 minute..7 days (Lambda's limits), and at least 3 x `timeout`, so that a record
   * outlives a failed invocation, a retry that waits out its lock and the retry that takes it over
   */
  readonly maxRecordAge?: Duration;
  /**
   * Concurrent batches per shard. Above 1, order holds per partition key (per item for
   * DynamoDB), no longer per shard.
   * @default 1
   * @range 1..10, a whole number (Lambda's limits)
   */
  readonly parallelizationFactor?: number;
  /**
   * Iterator age above which the consumer is alarmed as falling behind its stream.
   * @default 1 minute (`STREAM_CONSUMER_DEFAULTS.iteratorAgeThreshold`)
   * @range 1 second..7 days
   */
  readonly iteratorAgeThreshold?: Duration;
  /**
   * Where the mapping sends a batch it gives up on. `sqs`: the DLQ gets a pointer (shard and
   * sequence numbers), and a redrive reads the records back from the stream, while they are in
   * it. `s3`: a {@link FailureArchive} bucket keeps Lambda's invocation record whole, payload
   * included, for the DLQ retention, with a depth alarm on its index queue; `eo dlq redrive`
   * republishes from the objects, so a batch outlives the stream's retention. The runtime's own
   * failures (poison, with context) go to the DLQ either way (docs/operations.md).
   * @default 'sqs'
   */
  readonly onFailure?: OnFailureDestination;
  /**
   * Whether the event source mapping reads the stream. `false` deploys the mapping disabled: the
   * function runs only when invoked, as a new generation is while `eo replay --generation` fills it
   * from the stream's history (docs/operations.md, "Rebuild"); a deploy with `true` makes it read
   * from the trim horizon, where records it has already applied are duplicates.
   * @default true
   */
  readonly mappingEnabled?: boolean;
}

/** Where a stream mapping sends a batch it gives up on: the DLQ (a pointer) or an S3 archive (the records). */
export type OnFailureDestination = 'sqs' | 's3';

const ON_FAILURE_DESTINATIONS: readonly OnFailureDestination[] = ['sqs', 's3'];

/** Throws on the first invalid stream consumer prop; `sourceRetention` is the stream's. */
export function validateStreamConsumerProps(props: StreamConsumerProps, sourceRetention: Duration): void {
  validateConsumerProps(props);
  if (props.onFailure !== undefined && !ON_FAILURE_DESTINATIONS.includes(props.onFailure)) {
    throw new Error(`onFailure must be one of ${ON_FAILURE_DESTINATIONS.join(', ')} (given ${JSON.stringify(props.onFailure)})`);
  }
  checkIntegerRange('batchSize', props.batchSize, 1, LAMBDA_LIMITS.maxStreamBatchSize);
  checkDurationRange('maxBatchingWindow', props.maxBatchingWindow, Duration.seconds(0), Duration.seconds(LAMBDA_LIMITS.maxBatchingWindowSeconds));
  checkIntegerRange('retryAttempts', props.retryAttempts, 0, LAMBDA_LIMITS.maxStreamRetryAttempts);
  checkDurationRange('maxRecordAge', props.maxRecordAge, Duration.minutes(1), Duration.days(7));
  checkLockWindow(props);
  checkIntegerRange('parallelizationFactor', props.parallelizationFactor, 1, 10);
  checkDurationRange('iteratorAgeThreshold', props.iteratorAgeThreshold, Duration.seconds(1), Duration.days(7));
  checkDedupTtl(props.dedupTtl, streamDedupTerms(props, sourceRetention));
}

/** The retries and the record age must outlast an idempotency lock that a failed invocation left ({@link LOCK_WINDOW_RULES}). */
function checkLockWindow(props: StreamConsumerProps): void {
  const why = 'to wait out an idempotency lock that a failed invocation leaves for up to one timeout';
  checkIntegerRange('retryAttempts', props.retryAttempts, LOCK_WINDOW_RULES.minRetryAttempts, LAMBDA_LIMITS.maxStreamRetryAttempts, why);
  const timeout = props.timeout ?? CONSUMER_DEFAULTS.timeout;
  const maxRecordAge = props.maxRecordAge ?? STREAM_CONSUMER_DEFAULTS.maxRecordAge;
  if (timeout.isUnresolved() || maxRecordAge.isUnresolved()) return;
  const minimum = Duration.millis(timeout.toMilliseconds() * LOCK_WINDOW_RULES.timeoutsOfRecordAge);
  if (maxRecordAge.toMilliseconds() < minimum.toMilliseconds()) {
    throw new Error(
      `maxRecordAge must be at least ${LOCK_WINDOW_RULES.timeoutsOfRecordAge} x timeout = ${formatDuration(minimum)} ${why} ` +
        `(given ${formatDuration(maxRecordAge)}; timeout ${formatDuration(timeout)})`,
    );
  }
}

/** The dedup TTL the function is given: the prop, or the shortest safe window. */
function streamDedupTtl(props: StreamConsumerProps, sourceRetention: Duration): Duration {
  const minimum = minimumDedupTtl(streamDedupTerms(props, sourceRetention));
  return props.dedupTtl ?? defaultOrThrow('dedupTtl', minimum, 'the retention or redriveAllowance');
}

function streamDedupTerms(props: StreamConsumerProps, sourceRetention: Duration): DedupWindowTerms {
  return {
    sourceRetention,
    dlqRetention: DLQ_RETENTION,
    redriveAllowance: props.redriveAllowance ?? CONSUMER_DEFAULTS.redriveAllowance,
  };
}

/**
 * Adds a stream consumer's DLQ. It receives Lambda's on-failure records and the runtime's
 * permanent failures, so no queue redrives to it. Its redrive-allow policy says allow-all all the
 * same: that is how a queue declares itself a DLQ to Control Tower's CT.SQS.PR.1 (deny-all does not
 * count, and by-queue needs a source queue), and the control's hook has no per-resource exemption.
 * What it allows: a queue of this account and region could name this one as its DLQ; its messages
 * would raise the depth alarm like any failure.
 */
export function addStreamDlq(scope: Construct, props: StreamConsumerProps): MonitoredDlq {
  const dlq = addMonitoredDlq(scope, {
    consumerName: props.consumerName,
    alarmTopic: props.alarmTopic,
    redriveAllowPolicy: { redrivePermission: RedrivePermission.ALLOW_ALL },
  });
  Validations.of(dlq.queue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason:
      'This queue is itself a dead-letter queue: the on-failure destination of a stream event source ' +
      'mapping. cdk-nag only recognises DLQs that another queue names in its RedrivePolicy.',
  });
  return dlq;
}

/** A stream consumer's failure archive when its props ask for `onFailure: 's3'`, at `scope`'s `FailureArchive`. */
export function addFailureArchive(scope: Construct, props: StreamConsumerProps): FailureArchive | undefined {
  return props.onFailure === 's3' ? new FailureArchive(scope, 'FailureArchive', { consumerName: props.consumerName, alarmTopic: props.alarmTopic }) : undefined;
}

/** Adds a stream consumer's function, with a dedup TTL that outlasts `sourceRetention`, the stream's. */
export function addStreamFunction(scope: Construct, props: StreamConsumerProps, deadLetterQueue: IQueue, sourceRetention: Duration): NodejsFunction {
  return addConsumerFunction(scope, props, { deadLetterQueue, dedupTtl: streamDedupTtl(props, sourceRetention) });
}

/** Adds the alarm that a stream consumer's function is falling behind its stream. */
export function addIteratorAgeAlarm(scope: Construct, fn: NodejsFunction, props: StreamConsumerProps): IteratorAgeAlarm {
  return new IteratorAgeAlarm(scope, 'IteratorAgeAlarm', { function: fn, topic: props.alarmTopic, threshold: props.iteratorAgeThreshold });
}

/**
 * The event source mapping settings of a stream consumer. Not CDK's defaults, which retry
 * forever: bisect a failing batch, retry it a bounded number of times, skip records older than
 * `maxRecordAge`, and send what is given up to the DLQ (metadata only: shard, sequence numbers)
 * or, with an archive, to its bucket (the records themselves).
 */
export function streamEventSourceProps(props: StreamConsumerProps, deadLetterQueue: IQueue, archive?: FailureArchive): StreamEventSourceProps {
  return {
    startingPosition: StartingPosition.TRIM_HORIZON,
    batchSize: props.batchSize ?? STREAM_CONSUMER_DEFAULTS.batchSize,
    maxBatchingWindow: props.maxBatchingWindow,
    parallelizationFactor: props.parallelizationFactor,
    bisectBatchOnError: true,
    retryAttempts: props.retryAttempts ?? STREAM_CONSUMER_DEFAULTS.retryAttempts,
    maxRecordAge: props.maxRecordAge ?? STREAM_CONSUMER_DEFAULTS.maxRecordAge,
    onFailure: archive ? archive.destination() : new SqsDlq(deadLetterQueue),
    reportBatchItemFailures: true,
    metricsConfig: MAPPING_METRICS,
    enabled: props.mappingEnabled,
  };
}

/** A stream consumer's alarms besides its DLQ's and its iterator age's, on its mapping `mappingUuid`. */
export function addStreamConsumerAlarms(scope: Construct, fn: NodejsFunction, mappingUuid: string, props: StreamConsumerProps): ConsumerAlarms {
  const wiring = { consumerName: props.consumerName, serviceName: serviceNameOf(props), function: fn, mappingUuid, topic: props.alarmTopic };
  return new ConsumerAlarms(scope, 'ConsumerAlarms', wiring, props.alarms);
}
