import type { Context, DynamoDBStreamEvent, KinesisStreamEvent, SQSEvent } from 'aws-lambda';
import { BatchRun, type BatchItem, type Settled } from './batch-run';
import type { DlqSender } from '../failures/dlq';
import { consumerDecoder, type EnvelopeOptions } from '../decoding/envelope-decoders';
import { EffectivelyOnceError, messageOf, UndecodableRecordError } from '../core/errors';
import { dedupNamespace } from './namespace';
import { MetricName, createObservability, invocationObservability, type Observability } from '../core/observability';
import { fromDynamoDbRecord, fromKinesisRecord, fromSqsRecord, SourceKind, type SourceRecord } from '../decoding/records';
import { batchRecords, requireSourceKind } from '../decoding/event-source';
import { isReplayInvocation, replayCounts, type ReplayCounts } from './replay-mode';
import { resolveRoute, type ConsumedEvent, type EventDecoder, type Routes } from '../decoding/routes';
import { Settler, type RecordResult } from './settle';
import type { Outcome, Strategy } from './strategy';
import { checkTimeBudgetOptions, deadlineSignal, timeBudgetOf, UNLIMITED_TIME, type TimeBudget, type TimeBudgetOptions } from '../core/time-budget';
import type { VisibilityBackoff } from '../failures/visibility';

/** The partial batch response Lambda reads for all three sources. */
export interface BatchResponse {
  batchItemFailures: { itemIdentifier: string }[];
  /** Only in answer to a replay (./replay-mode.ts): what each record came to. */
  replay?: ReplayCounts;
}

/** Any of the three batch events. */
export type BatchEvent = SQSEvent | KinesisStreamEvent | DynamoDBStreamEvent;
/** The Lambda handler `createConsumer` returns: one batch in, its partial batch response out. */
export type BatchHandler = (event: BatchEvent, context?: Context) => Promise<BatchResponse>;

/** What `createConsumer` builds a handler from: the consumer's name, its source, its routes and how their results are applied. */
export interface ConsumerOptions<TResult> {
  /** Names the consumer in dedup keys, logs, metrics and DLQ context. */
  readonly name: string;
  /**
   * The consumer's generation (`CONSUMER_GENERATION`): from 2 on, logs and DLQ context name it
   * `<name>@g<n>`, the namespace of its dedup records, so that a failure is traced to the
   * generation that failed (`dedupNamespace`). The strategy's dedup settings take it too.
   * @default 1
   */
  readonly generation?: number;
  readonly source: SourceKind;
  /** Handlers by event type. */
  readonly routes: Routes<TResult>;
  readonly strategy: Strategy<TResult>;
  /**
   * Turns each record into an event; give this or `envelope`, not both.
   * @default - by `envelope`: our envelope for SQS and Kinesis, the change itself for DynamoDB Streams
   */
  readonly decode?: EventDecoder;
  /**
   * The shape events arrive in (SNS notification, EventBridge event, CloudEvent, or our own
   * envelope), which decides their dedup key. It must agree with what the consumer's construct
   * set, or `createConsumer` throws a ConfigurationError. DynamoDB Streams consumers take only
   * `native`. docs/envelopes.md describes each format.
   * @default - what the consumer's construct set in EVENT_ENVELOPE / EVENT_ID_PATH, else native
   */
  readonly envelope?: EnvelopeOptions;
  /** Where permanent failures and last attempts go. @default - none: such records are reported failed */
  readonly dlq?: DlqSender;
  /** SQS: from this receive count on, a transient failure goes to the DLQ. @default - no limit */
  readonly maxAttempts?: number;
  /**
   * SQS: the source queue's `maxReceiveCount`. On that receive the redrive policy would move a
   * reported message to the DLQ with no context, so the consumer sends it there itself, with its
   * context, even one whose handler never ran (reason `not-attempted`). Set by the constructs
   * (`MAX_RECEIVE_COUNT`, read by `consumerEnv`).
   * @default - unknown: a record whose handler never ran is always reported
   */
  readonly maxReceiveCount?: number;
  /** SQS: spreads out redeliveries of failed messages. @default - visibility left as it is */
  readonly visibility?: VisibilityBackoff;
  readonly observability?: Observability;
  /**
   * When to stop starting new work: once less than the margin is left of the invocation
   * (`context.getRemainingTimeInMillis()`), the records not yet started are reported, not
   * attempted (on the queue's final receive, `maxReceiveCount`, they go to the DLQ with their
   * context instead). `false`: no deadline.
   * @default - a margin of 10% of the invocation's time, at least 1 s, at most 10 s (`DEFAULT_TIME_BUDGET`)
   */
  readonly timeBudget?: TimeBudgetOptions | false;
  /** @default () => new Date() */
  readonly now?: () => Date;
}

/**
 * A Lambda handler for SQS, Kinesis or DynamoDB Streams batches: decodes each record, drops
 * in-batch duplicates, applies the events through the strategy, sends permanent failures to the
 * DLQ and returns the partial batch response. A broken record never fails the whole batch. On an
 * ordered source (a stream, a FIFO message group) processing stops at a group's first failure
 * unless that failure is dead-lettered with its context (batch-run.ts).
 */
export function createConsumer<TResult>(options: ConsumerOptions<TResult>): BatchHandler {
  if (options.timeBudget) checkTimeBudgetOptions(options.timeBudget);
  const observability = options.observability ?? createObservability(dedupNamespace(options.name, options.generation));
  const consumer = new BatchConsumer(options);
  return async (event, context) => {
    // Its own counts and log lines: on Lambda Managed Instances other invocations run beside it in this process.
    const invocation = invocationObservability(observability, context);
    try {
      return await consumer.consume(normalise(options.source, event), invocation, context);
    } finally {
      invocation.flush();
    }
  };
}

class BatchConsumer<TResult> {
  private readonly decode: EventDecoder;
  private readonly now: () => Date;

  public constructor(private readonly options: ConsumerOptions<TResult>) {
    this.decode = consumerDecoder(options);
    this.now = options.now ?? (() => new Date());
  }

  /** One invocation's batch, counted and logged on that invocation's `observability`. */
  public async consume(records: readonly SourceRecord[], observability: Observability, lambdaContext?: Context): Promise<BatchResponse> {
    const budget = this.budgetOf(lambdaContext);
    const replay = isReplayInvocation(lambdaContext);
    const signal = deadlineSignal(lambdaContext);
    const items = records.map((record, index) => this.prepare(record, index, lambdaContext, signal));
    const settler = this.settlerFor(budget, replay, observability);
    const settled = await new BatchRun(this.options.strategy, settler, budget, observability).run(items);
    const results = items.map((item): RecordResult => ({ record: item.record, eventId: item.eventId, eventType: item.eventType, outcome: (settled.get(item.index) as Settled).outcome }));
    countOutcomes(results, observability);
    const reported = items.filter((item) => settled.get(item.index)?.reported).map((item) => item.record);
    await settler.finish(reported, results);
    observability.logger.info('batch done', { records: records.length, reported: reported.length, ...(replay && { replay }) });
    const batchItemFailures = reported.map((record) => ({ itemIdentifier: record.itemIdentifier }));
    if (!replay) return { batchItemFailures };
    return { batchItemFailures, replay: replayCounts(items.map((item) => settled.get(item.index) as Settled)) };
  }

  private budgetOf(lambdaContext: Context | undefined): TimeBudget {
    return this.options.timeBudget === false ? UNLIMITED_TIME : timeBudgetOf(lambdaContext, this.options.timeBudget);
  }

  private settlerFor(budget: TimeBudget, replay: boolean, observability: Observability): Settler {
    const { strategy } = this.options;
    return new Settler({ ...this.options, consumer: dedupNamespace(this.options.name, this.options.generation), observability, now: this.now, budget, replay, applied: strategy.applied?.bind(strategy) });
  }

  /** Decodes and validates a record; one that fails carries a permanent error instead of its event, never a crash. */
  private prepare(record: SourceRecord, index: number, lambdaContext: Context | undefined, signal: AbortSignal): BatchItem<TResult> {
    let decoded: ConsumedEvent | undefined;
    try {
      decoded = this.decode(record);
      const { route, event } = resolveRoute(this.options.routes, decoded);
      const context = { record, lambdaContext, signal };
      return { index, record, eventId: event.eventId, eventType: event.type, accepted: { index, event, context, invoke: () => route.handle(event as never, context) } };
    } catch (error) {
      return { index, record, eventId: decoded?.eventId, eventType: decoded?.type, decodeError: asPermanent(error) };
    }
  }
}

/** The batch's outcomes as metrics, and a log line per conflicting duplicate (a broken producer). */
function countOutcomes(results: readonly RecordResult[], observability: Observability): void {
  const count = (status: Outcome['status']) => results.filter((result) => result.outcome.status === status).length;
  observability.count(MetricName.PROCESSED, count('applied'));
  observability.count(MetricName.DUPLICATES, count('duplicate'));
  observability.count(MetricName.STALE_WRITES, count('skipped'));
  const conflicting = results.filter((result) => result.outcome.status === 'duplicate' && result.outcome.conflictingPayload);
  observability.count(MetricName.CONFLICTING_DUPLICATES, conflicting.length);
  for (const { eventId, record } of conflicting) {
    observability.logger.error('duplicate event id with a different payload: the producer is broken', { eventId, itemIdentifier: record.itemIdentifier });
  }
}

/** Decoding and validation are pure: whatever they throw, a retry would throw again. */
function asPermanent(error: unknown): unknown {
  if (error instanceof EffectivelyOnceError) return error;
  return new UndecodableRecordError(`record could not be decoded: ${messageOf(error)}`, { cause: error });
}

/** The batch's records, normalised across the three sources. @throws ConfigurationError for a batch of another source (event-source.ts) */
function normalise(source: SourceKind, event: BatchEvent): SourceRecord[] {
  const records = batchRecords(event);
  requireSourceKind(source, records);
  switch (source) {
    case SourceKind.SQS:
      return (records as SQSEvent['Records']).map(fromSqsRecord);
    case SourceKind.KINESIS:
      return (records as KinesisStreamEvent['Records']).map(fromKinesisRecord);
    case SourceKind.DYNAMODB_STREAM:
      return (records as DynamoDBStreamEvent['Records']).map(fromDynamoDbRecord);
  }
}
