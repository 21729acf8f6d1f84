import { Duration, Names, Stack, Token, Tokenization } from 'aws-cdk-lib';
import type { Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { ConsumerAlarms, MAPPING_METRICS } from './consumer-alarms';
import type { ITopic, SubscriptionFilter } from 'aws-cdk-lib/aws-sns';
import { SqsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { type CfnQueue, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { addConsumerFunction } from './consumer-function';
import { CONSUMER_ENV, type ConsumerProps, generationOf, serviceNameOf, validateConsumerProps } from './consumer-props';
import { CONSUMER_DEFAULTS, DLQ_RETENTION, QUEUE_CONSUMER_DEFAULTS } from './defaults';
import type { DlqAlarm } from './dlq-alarm';
import { checkEnvelope, DeliveredEnvelope, EnvelopeFormat, type EventEnvelope } from './event-envelope';
import { addMonitoredDlq, type MonitoredDlq } from './monitored-dlq';
import { checkProvisionedPollers, provisionedPollerConfig, type ProvisionedPollers } from './provisioned-pollers';
import {
  checkDedupTtl,
  checkDurationRange,
  checkIntegerRange,
  type DedupWindowTerms,
  defaultOrThrow,
  formatDuration,
  minimumDedupTtl,
  sumDurations,
} from './validation';
import { LAMBDA_LIMITS, SQS_LIMITS, SQS_VISIBILITY_TIMEOUT_FACTOR } from '../aws/limits';
import { FIFO_SUFFIX } from '../aws/sqs/fifo';

/** The lowest `maxReceiveCount` accepted: fewer receives turn a burst of throttling into DLQ traffic. */
const MIN_MAX_RECEIVE_COUNT = 5;

/** Props of {@link QueueConsumer}. */
export interface QueueConsumerProps extends ConsumerProps {
  /**
   * Messages per invocation.
   * @default 10 (`QUEUE_CONSUMER_DEFAULTS.batchSize`)
   * @range 1..10000, a whole number; at most 10 without a `maxBatchingWindow` or for a FIFO
   * queue (Lambda's limits)
   */
  readonly batchSize?: number;
  /**
   * How long Lambda gathers messages before invoking. Not allowed for a FIFO queue.
   * @default - no batching window
   * @range 0 seconds..5 minutes (Lambda's limit)
   */
  readonly maxBatchingWindow?: Duration;
  /**
   * Receives before SQS moves a message to the DLQ (the backstop for crashes and timeouts).
   * @default 6 (`QUEUE_CONSUMER_DEFAULTS.maxReceiveCount`)
   * @range 5..1000, a whole number (fewer than 5 receives turn a burst of throttling into DLQ
   * traffic; 1000 is SQS's limit)
   */
  readonly maxReceiveCount?: number;
  /**
   * The receive count at which the consumer itself sends a failing message to the DLQ, with its
   * failure context (`MAX_ATTEMPTS`). Must be below `maxReceiveCount`, so that the consumer's
   * last attempt comes before the queue's context-free redrive.
   * @default - maxReceiveCount - 1
   * @range 1..`maxReceiveCount` - 1, a whole number
   */
  readonly maxAttempts?: number;
  /**
   * How long the source queue keeps a message.
   * @default 4 days (`QUEUE_CONSUMER_DEFAULTS.retentionPeriod`)
   * @range 1 minute..14 days (SQS's limits)
   */
  readonly retentionPeriod?: Duration;
  /**
   * The source queue's visibility timeout: at least 6 x the function timeout + `maxBatchingWindow`,
   * so a message is not redelivered while an invocation (with its retries) still holds it.
   * @default - exactly that minimum
   * @range that minimum..12 hours (SQS's maximum)
   */
  readonly visibilityTimeout?: Duration;
  /**
   * How many invocations the queue's mapping may run at once (`ScalingConfig.MaximumConcurrency`).
   * Past it, messages wait in the queue: the mapping stops taking them, so they are not
   * throttled and use up no receives. If the function has reserved concurrency, reserve at least
   * the sum of this over all of its SQS mappings. Not allowed beside `provisionedPollers`.
   * @default - 16 (`QUEUE_CONSUMER_DEFAULTS.maxConcurrency`); none with `provisionedPollers`
   * @range 2..1000, a whole number (Lambda's limits)
   */
  readonly maxConcurrency?: number;
  /**
   * Lambda's provisioned mode for the queue's mapping (`ProvisionedPollerConfig`, 2025): a pool
   * of `minimum` (2..200) to `maximum` (`minimum`..2000) event pollers, each running up to 10
   * invocations at once, for steady low latency at high throughput. Every poller is billed, the
   * minimum always. Exclusive with `maxConcurrency` (refused beside it): `maximum` x 10 bounds the
   * invocations instead, which the sharded counters' conflict budget must allow. (Lambda's API
   * Reference allows SQS up to 10,000 maximum pollers; CloudFormation and aws-cdk-lib take 2,000.)
   * Local mode caps its pollers at `maximum` x 10, which its default of 2 never reaches.
   * @default - no provisioned mode: Lambda's default scaling, bounded by `maxConcurrency`
   * @example
   * ```ts
   * import { AlarmTopic, QueueConsumer } from 'effectively-once';
   * new QueueConsumer(this, 'Orders', {
   *   consumerName: 'orders',
   *   entry: 'handlers/orders.ts',
   *   alarmTopic: new AlarmTopic(this, 'Alarms').topic,
   *   provisionedPollers: { minimum: 2, maximum: 20 }, // up to 200 invocations at once
   * });
   * ```
   */
  readonly provisionedPollers?: ProvisionedPollers;
  /**
   * The shape the queue's messages arrive in, which the runtime unwraps (docs/envelopes.md).
   * `subscribeTo` and `addEventBridgeRule` set it for you; name it to fail at synth when a
   * subscription would deliver another shape, or for CloudEvents, which no subscription implies.
   * @default - what the first subscription delivers, else our own envelope (`native`)
   */
  readonly envelope?: EventEnvelope;
  /**
   * A FIFO source queue and DLQ (their names end in `.fifo`): SQS keeps order within each message
   * group, and the runtime keeps it through failures: at a group's first failure that will be
   * retried, the rest of the group is reported too, not attempted, while other groups go on.
   * Dedup stays on `eventId`: FIFO's own 5-minute deduplication covers neither a redelivery after
   * a visibility timeout nor a producer's retry after 5 minutes. Lambda allows at most 10
   * messages per FIFO batch and no batching window.
   * @default false
   */
  readonly fifo?: boolean;
}

/** Options of {@link QueueConsumer.subscribeTo}. */
export interface QueueSubscriptionOptions {
  /**
   * Whether SNS delivers the published message as it is (`true`) or wrapped in its notification
   * JSON (`false`, SNS's default). Either way dedup keys on our envelope's `eventId`, never on
   * SNS's `MessageId`, which a retried `Publish` changes.
   * @default false
   */
  readonly rawMessageDelivery?: boolean;
  /** Only messages whose attributes match are delivered. @default - every message */
  readonly filterPolicy?: { [attribute: string]: SubscriptionFilter };
}

/** The props with their defaults applied. */
interface QueueSettings {
  readonly batchSize: number;
  readonly maxBatchingWindow?: Duration;
  readonly maxReceiveCount: number;
  readonly maxAttempts: number;
  readonly retentionPeriod: Duration;
  readonly visibilityTimeout: Duration;
  readonly dedupTtl: Duration;
  /** Undefined in provisioned mode, which excludes it. */
  readonly maxConcurrency?: number;
  readonly provisionedPollers?: ProvisionedPollers;
  readonly fifo: boolean;
}

/**
 * An SQS queue consumed by a Lambda function that dedups, retries and dead-letters by itself:
 * the source queue, its DLQ (alarmed), the function, and an event source mapping with partial
 * batch responses.
 */
export class QueueConsumer extends Construct {
  /** The consumer's name. */
  public readonly consumerName: string;
  /** The consumer's generation: 1 unless it is a rebuild (`generation` prop). */
  public readonly generation: number;
  /** The `service` dimension of the runtime's metrics (`POWERTOOLS_SERVICE_NAME`): the `serviceName` prop, else the consumer's name (`<name>@g<n>` from generation 2). */
  public readonly serviceName: string;
  /** The event source mapping's UUID (its `Ref`), the `EventSourceMappingUUID` dimension of its metrics. */
  public readonly mappingUuid: string;
  /** The source queue. */
  public readonly queue: Queue;
  /** The dead-letter queue: the queue's redrive target, and where the function sends failures. */
  public readonly deadLetterQueue: Queue;
  /** The alarm on the DLQ's depth. */
  public readonly dlqAlarm: DlqAlarm;
  /** The consumer function. */
  public readonly function: NodejsFunction;
  /** The alarms besides the DLQ's: errors, throttles, conflicting duplicates, failed invocations, oldest message age. */
  public readonly consumerAlarms: ConsumerAlarms;
  private readonly delivered: DeliveredEnvelope;

  constructor(scope: Construct, id: string, props: QueueConsumerProps) {
    super(scope, id);
    validateQueueConsumerProps(props);
    const settings = queueSettings(props);
    this.consumerName = props.consumerName;
    this.serviceName = serviceNameOf(props);
    this.generation = generationOf(props);
    const names = this.queueNames(settings.fifo);
    const dlq = this.addDlq(props, names);
    this.deadLetterQueue = dlq.queue;
    this.dlqAlarm = dlq.alarm;
    this.queue = this.addQueue(settings, names.source);
    this.function = this.addFunction(props, settings);
    this.delivered = new DeliveredEnvelope(this.function, props.envelope);
    this.mappingUuid = this.addEventSource(settings).eventSourceMappingId;
    this.consumerAlarms = new ConsumerAlarms(this, 'ConsumerAlarms', {
      consumerName: props.consumerName,
      serviceName: this.serviceName,
      function: this.function,
      mappingUuid: this.mappingUuid,
      topic: props.alarmTopic,
      queue: { queue: this.queue, visibilityTimeout: settings.visibilityTimeout, maxReceiveCount: settings.maxReceiveCount },
    }, props.alarms);
    this.node.addValidation({ validate: () => fifoProblems(this.queue, this.deadLetterQueue) });
  }

  /** The shape the function decodes: the envelope prop's, or the one the subscriptions deliver. */
  public get envelope(): EventEnvelope {
    return this.delivered.envelope;
  }

  /**
   * Subscribes the queue to an SNS topic: the subscription, and the queue policy statement that
   * lets the topic (and only it) send to the queue; without it SNS drops every delivery
   * silently. With raw delivery off the consumer decodes SNS's notification JSON.
   * @throws Error when the consumer already decodes another shape
   */
  public subscribeTo(topic: ITopic, options: QueueSubscriptionOptions = {}): void {
    if (this.queue.fifo !== topic.fifo) {
      throw new Error(`${topic.node.path} is ${topic.fifo ? 'a FIFO' : 'a standard'} topic and ${this.node.path}'s queue ${this.queue.fifo ? 'a FIFO' : 'a standard'} queue: SNS delivers a FIFO topic only to FIFO queues, and a standard topic only to standard queues`);
    }
    const raw = options.rawMessageDelivery ?? false;
    this.delivered.require(raw ? EnvelopeFormat.NATIVE : EnvelopeFormat.SNS, `the subscription to ${topic.node.path}${raw ? ' (raw delivery)' : ''}`);
    topic.addSubscription(new SqsSubscription(this.queue, { rawMessageDelivery: raw, filterPolicy: options.filterPolicy }));
  }

  /**
   * Makes the queue a target of an EventBridge rule: the target, and the queue policy statement
   * that lets the rule (and only it) send to the queue. The consumer decodes the event JSON; its
   * `detail` is our envelope unless the `envelope` prop names an `eventIdPath`.
   * @throws Error when the consumer already decodes another shape
   */
  public addEventBridgeRule(rule: Rule): void {
    this.delivered.require(EnvelopeFormat.EVENTBRIDGE, `the EventBridge rule ${rule.node.path}`);
    rule.addTarget(new SqsQueue(this.queue));
  }

  /**
   * The queues are named up front: the DLQ's redrive-allow policy must name the source queue,
   * which names the DLQ in its redrive policy; a known name breaks that reference cycle. A FIFO
   * queue's name must end in `.fifo`, within SQS's 80 characters.
   */
  private queueNames(fifo: boolean): QueueNames {
    if (!fifo) return { source: Names.uniqueResourceName(this, { maxLength: 80, separator: '-', allowedSpecialCharacters: '-_' }) };
    const base = Names.uniqueResourceName(this, { maxLength: 80 - '-dlq'.length - FIFO_SUFFIX.length, separator: '-', allowedSpecialCharacters: '-_' });
    return { source: `${base}${FIFO_SUFFIX}`, fifoDlq: `${base}-dlq${FIFO_SUFFIX}` };
  }

  private addDlq(props: QueueConsumerProps, names: QueueNames): MonitoredDlq {
    const sourceQueueArn = Stack.of(this).formatArn({ service: 'sqs', resource: names.source });
    return addMonitoredDlq(this, {
      consumerName: props.consumerName,
      alarmTopic: props.alarmTopic,
      redriveAllowPolicy: { sourceQueues: [Queue.fromQueueArn(this, 'SourceQueueRef', sourceQueueArn)] },
      fifo: names.fifoDlq === undefined ? undefined : { queueName: names.fifoDlq },
    });
  }

  private addQueue(settings: QueueSettings, queueName: string): Queue {
    return new Queue(this, 'Queue', {
      queueName,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: settings.retentionPeriod,
      visibilityTimeout: settings.visibilityTimeout,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: settings.maxReceiveCount },
      ...(settings.fifo && { fifo: true }),
    });
  }

  private addFunction(props: QueueConsumerProps, settings: QueueSettings): NodejsFunction {
    return addConsumerFunction(this, props, {
      deadLetterQueue: this.deadLetterQueue,
      dedupTtl: settings.dedupTtl,
      sourceEnvironment: {
        [CONSUMER_ENV.maxAttempts]: String(settings.maxAttempts),
        [CONSUMER_ENV.maxReceiveCount]: Tokenization.stringifyNumber(settings.maxReceiveCount),
        [CONSUMER_ENV.sourceQueueUrl]: this.queue.queueUrl,
      },
    });
  }

  /** Also grants the function receive, delete and change-visibility on the source queue. */
  private addEventSource(settings: QueueSettings): SqsEventSource {
    const source = new SqsEventSource(this.queue, {
      batchSize: settings.batchSize,
      maxBatchingWindow: settings.maxBatchingWindow,
      maxConcurrency: settings.maxConcurrency,
      provisionedPollerConfig: provisionedPollerConfig(settings.provisionedPollers),
      reportBatchItemFailures: true,
      metricsConfig: MAPPING_METRICS,
    });
    this.function.addEventSource(source);
    return source;
  }
}

/** The source queue's name, and the DLQ's when both are FIFO (a standard DLQ is named by CloudFormation). */
interface QueueNames {
  readonly source: string;
  readonly fifoDlq?: string;
}

/**
 * Checked at synth time, after every escape hatch and aspect had its say: SQS moves a FIFO
 * queue's messages only to a FIFO DLQ, and a standard queue's only to a standard one.
 */
function fifoProblems(source: Queue, dlq: Queue): string[] {
  const isFifo = (queue: Queue): boolean => queue.fifo || (queue.node.defaultChild as CfnQueue).fifoQueue === true;
  if (isFifo(source) === isFifo(dlq)) return [];
  return [`${source.node.path} is ${isFifo(source) ? 'a FIFO' : 'a standard'} queue and its DLQ ${dlq.node.path} ${isFifo(dlq) ? 'a FIFO' : 'a standard'} one: SQS needs both of one kind`];
}

function queueSettings(props: QueueConsumerProps): QueueSettings {
  const maxReceiveCount = props.maxReceiveCount ?? QUEUE_CONSUMER_DEFAULTS.maxReceiveCount;
  const minimumVisibility = minimumVisibilityTimeout(props);
  const minimumDedup = minimumDedupTtl(dedupTerms(props));
  return {
    batchSize: props.batchSize ?? QUEUE_CONSUMER_DEFAULTS.batchSize,
    maxBatchingWindow: props.maxBatchingWindow,
    maxReceiveCount,
    maxAttempts: props.maxAttempts ?? defaultMaxAttempts(maxReceiveCount),
    retentionPeriod: props.retentionPeriod ?? QUEUE_CONSUMER_DEFAULTS.retentionPeriod,
    visibilityTimeout:
      props.visibilityTimeout ?? defaultOrThrow('visibilityTimeout', minimumVisibility, 'timeout or maxBatchingWindow'),
    dedupTtl: props.dedupTtl ?? defaultOrThrow('dedupTtl', minimumDedup, 'retentionPeriod or redriveAllowance'),
    maxConcurrency: props.provisionedPollers ? undefined : (props.maxConcurrency ?? QUEUE_CONSUMER_DEFAULTS.maxConcurrency),
    provisionedPollers: props.provisionedPollers,
    fifo: props.fifo ?? false,
  };
}

/** One receive short of the queue's redrive, so that the last attempt is the consumer's own. */
function defaultMaxAttempts(maxReceiveCount: number): number {
  const known = Token.isUnresolved(maxReceiveCount) ? undefined : maxReceiveCount - 1;
  return defaultOrThrow('maxAttempts', known, 'maxReceiveCount');
}

function dedupTerms(props: QueueConsumerProps): DedupWindowTerms {
  return {
    sourceRetention: props.retentionPeriod ?? QUEUE_CONSUMER_DEFAULTS.retentionPeriod,
    dlqRetention: DLQ_RETENTION,
    redriveAllowance: props.redriveAllowance ?? CONSUMER_DEFAULTS.redriveAllowance,
  };
}

/** 6 x timeout + batching window; `undefined` when either is a token. */
function minimumVisibilityTimeout(props: QueueConsumerProps): Duration | undefined {
  const timeout = props.timeout ?? CONSUMER_DEFAULTS.timeout;
  const timeouts = Array<Duration>(SQS_VISIBILITY_TIMEOUT_FACTOR).fill(timeout);
  return sumDurations([...timeouts, props.maxBatchingWindow ?? Duration.seconds(0)]);
}

function validateQueueConsumerProps(props: QueueConsumerProps): void {
  validateConsumerProps(props);
  checkEnvelope(props.envelope);
  checkBatching(props);
  checkRedrive(props);
  checkDurationRange('retentionPeriod', props.retentionPeriod, Duration.seconds(SQS_LIMITS.minRetentionSeconds), Duration.seconds(SQS_LIMITS.maxRetentionSeconds));
  checkVisibilityTimeout(props);
  checkDedupTtl(props.dedupTtl, dedupTerms(props));
  checkIntegerRange('maxConcurrency', props.maxConcurrency, LAMBDA_LIMITS.minSqsMaximumConcurrency, LAMBDA_LIMITS.maxSqsMaximumConcurrency);
  checkProvisionedPollers(props.provisionedPollers, props.maxConcurrency);
}

function checkBatching(props: QueueConsumerProps): void {
  checkDurationRange('maxBatchingWindow', props.maxBatchingWindow, Duration.seconds(0), Duration.seconds(LAMBDA_LIMITS.maxBatchingWindowSeconds));
  if (props.fifo) checkFifoBatching(props);
  checkIntegerRange('batchSize', props.batchSize, 1, LAMBDA_LIMITS.maxSqsBatchSize);
  const window = props.maxBatchingWindow;
  const windowless = window === undefined || (!window.isUnresolved() && window.toMilliseconds() === 0);
  // Lambda only accepts batches above 10 messages with a batching window.
  if (windowless) checkIntegerRange('batchSize', props.batchSize, 1, LAMBDA_LIMITS.maxSqsBatchSizeWithoutWindow, 'without a maxBatchingWindow');
}

/** Lambda's SQS mapping takes at most 10 messages of a FIFO queue per batch, and no batching window. */
function checkFifoBatching(props: QueueConsumerProps): void {
  checkIntegerRange('batchSize', props.batchSize, 1, LAMBDA_LIMITS.maxSqsFifoBatchSize, 'for a FIFO queue');
  const window = props.maxBatchingWindow;
  if (window !== undefined && !window.isUnresolved() && window.toMilliseconds() > 0) {
    throw new Error(`maxBatchingWindow is not supported for a FIFO queue (given ${formatDuration(window)}): Lambda invokes as soon as a FIFO batch is there`);
  }
}

function checkRedrive(props: QueueConsumerProps): void {
  checkIntegerRange('maxReceiveCount', props.maxReceiveCount, MIN_MAX_RECEIVE_COUNT, SQS_LIMITS.maxReceiveCount);
  const maxReceiveCount = props.maxReceiveCount ?? QUEUE_CONSUMER_DEFAULTS.maxReceiveCount;
  if (Token.isUnresolved(maxReceiveCount)) return;
  const condition = `to stay below maxReceiveCount ${maxReceiveCount}`;
  checkIntegerRange('maxAttempts', props.maxAttempts, 1, maxReceiveCount - 1, condition);
}

function checkVisibilityTimeout(props: QueueConsumerProps): void {
  const given = props.visibilityTimeout;
  checkDurationRange('visibilityTimeout', given, Duration.seconds(0), Duration.seconds(SQS_LIMITS.maxVisibilityTimeoutSeconds));
  const minimum = minimumVisibilityTimeout(props);
  if (given === undefined || given.isUnresolved() || minimum === undefined) return;
  if (given.toMilliseconds() < minimum.toMilliseconds()) {
    const timeout = props.timeout ?? CONSUMER_DEFAULTS.timeout;
    const window = props.maxBatchingWindow ?? Duration.seconds(0);
    throw new Error(
      `visibilityTimeout must be at least ${SQS_VISIBILITY_TIMEOUT_FACTOR} x timeout ` +
        `+ maxBatchingWindow = ${formatDuration(minimum)} (given ${formatDuration(given)}; ` +
        `timeout ${formatDuration(timeout)}, maxBatchingWindow ${formatDuration(window)})`,
    );
  }
}
