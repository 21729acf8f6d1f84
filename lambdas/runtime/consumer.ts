import type { Context, DynamoDBStreamEvent, KinesisStreamEvent, SQSEvent } from 'aws-lambda';
import { classifyError } from './classify';
import type { DlqSender } from './dlq';
import { consumerDecoder, type EnvelopeOptions } from './envelope-decoders';
import { EffectivelyOnceError, FailureKind, messageOf, UndecodableRecordError } from './errors';
import { payloadHash } from './event-id';
import { MetricName, createObservability, type Observability } from './observability';
import { byOrderGroup } from './order-groups';
import { fromDynamoDbRecord, fromKinesisRecord, fromSqsRecord, SourceKind, type SourceRecord } from './records';
import { resolveRoute, type ConsumedEvent, type EventDecoder, type Routes } from './routes';
import { settle, type RecordResult } from './settle';
import type { AcceptedEvent, Outcome, Strategy, StrategyRun } from './strategies';
import { checkTimeBudgetOptions, timeBudgetOf, UNLIMITED_TIME, type TimeBudget, type TimeBudgetOptions } from './time-budget';
import type { VisibilityBackoff } from './visibility';

/** The partial batch response Lambda reads for all three sources. */
export interface BatchResponse {
  batchItemFailures: { itemIdentifier: string }[];
}

/** Any of the three batch events. */
export type BatchEvent = SQSEvent | KinesisStreamEvent | DynamoDBStreamEvent;
export type BatchHandler = (event: BatchEvent, context?: Context) => Promise<BatchResponse>;

export interface ConsumerOptions<TResult> {
  /** Names the consumer in dedup keys, logs, metrics and DLQ context. */
  readonly name: string;
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
  /** SQS: spreads out redeliveries of failed messages. @default - visibility left as it is */
  readonly visibility?: VisibilityBackoff;
  readonly observability?: Observability;
  /**
   * When to stop starting new work: once less than the margin is left of the invocation
   * (`context.getRemainingTimeInMillis()`), the records not yet started are reported, not
   * attempted, and on their last SQS attempt go to the DLQ as timed out. `false`: no deadline.
   * @default - a margin of 10% of the invocation's time, at least 1 s, at most 10 s (`DEFAULT_TIME_BUDGET`)
   */
  readonly timeBudget?: TimeBudgetOptions | false;
  /** @default () => new Date() */
  readonly now?: () => Date;
}

/**
 * A Lambda handler for SQS, Kinesis or DynamoDB Streams batches: decodes each record, drops
 * in-batch duplicates, applies the events through the strategy, sends permanent failures to the
 * DLQ and returns the partial batch response. A broken record never fails the whole batch.
 */
export function createConsumer<TResult>(options: ConsumerOptions<TResult>): BatchHandler {
  if (options.timeBudget) checkTimeBudgetOptions(options.timeBudget);
  const observability = options.observability ?? createObservability(options.name);
  const consumer = new BatchConsumer(options, observability);
  return async (event, context) => {
    try {
      return await consumer.consume(normalise(options.source, event), context);
    } finally {
      observability.metrics.publishStoredMetrics();
    }
  };
}

interface PreparedBatch<TResult> {
  readonly accepted: AcceptedEvent<TResult>[];
  readonly results: Map<number, Omit<RecordResult, 'outcome'> & { outcome?: Outcome }>;
}

class BatchConsumer<TResult> {
  private readonly decode: EventDecoder;
  private readonly now: () => Date;

  public constructor(
    private readonly options: ConsumerOptions<TResult>,
    private readonly observability: Observability,
  ) {
    this.decode = consumerDecoder(options);
    this.now = options.now ?? (() => new Date());
  }

  public async consume(records: readonly SourceRecord[], lambdaContext?: Context): Promise<BatchResponse> {
    const budget = this.budgetOf(lambdaContext);
    const batch = this.prepare(records, lambdaContext);
    const { primaries, twins } = splitDuplicates(batch.accepted, this.observability);
    const outcomes = await this.applyByOrderGroup(primaries, budget);
    for (const [index, primary] of twins) batch.results.get(index)!.outcome = twinOutcome(outcomes.get(primary));
    for (const [index, outcome] of outcomes) batch.results.get(index)!.outcome = outcome;
    const results = records.map((_, index) => batch.results.get(index) as RecordResult);
    this.countOutcomes(results);
    const failed = await settle(results, { ...this.options, consumer: this.options.name, observability: this.observability, now: this.now, budget });
    this.observability.logger.info('batch done', { records: records.length, reported: failed.length });
    return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
  }

  private budgetOf(lambdaContext: Context | undefined): TimeBudget {
    return this.options.timeBudget === false ? UNLIMITED_TIME : timeBudgetOf(lambdaContext, this.options.timeBudget);
  }

  /**
   * Unordered events (a standard queue's) go to the strategy at once; each order group (a stream
   * batch, a FIFO message group) goes as an ordered run of its own, so that a transient failure
   * stops only its group. The groups run side by side: nothing orders one group after another.
   */
  private async applyByOrderGroup(primaries: readonly AcceptedEvent<TResult>[], budget: TimeBudget): Promise<Map<number, Outcome>> {
    const groups = byOrderGroup(primaries, (accepted) => accepted.context.record);
    const runs = [...groups].map(([group, events]) => this.applySafely(events, { ordered: group !== undefined, budget }));
    return new Map((await Promise.all(runs)).flatMap((outcomes) => [...outcomes]));
  }

  /**
   * A strategy never throws for one event's failure; if it throws all the same (a bug, a broken
   * custom strategy), its events fail with that error rather than the whole invocation, so that
   * each record still gets its retries, its visibility backoff and, last, its DLQ context.
   */
  private async applySafely(primaries: readonly AcceptedEvent<TResult>[], run: StrategyRun): Promise<Map<number, Outcome>> {
    try {
      return await this.options.strategy.apply(primaries, run);
    } catch (error) {
      this.observability.logger.error('the strategy failed the whole batch: its events are failed with its error', { error: messageOf(error) });
      return new Map(primaries.map((accepted) => [accepted.index, { status: 'failed', error }]));
    }
  }

  /** Decodes and validates every record; a record that fails becomes a permanent failure, not a crash. */
  private prepare(records: readonly SourceRecord[], lambdaContext?: Context): PreparedBatch<TResult> {
    const accepted: AcceptedEvent<TResult>[] = [];
    const results: PreparedBatch<TResult>['results'] = new Map();
    records.forEach((record, index) => {
      let decoded: ConsumedEvent | undefined;
      try {
        decoded = this.decode(record);
        const { route, event } = resolveRoute(this.options.routes, decoded);
        const context = { record, lambdaContext };
        accepted.push({ index, event, context, invoke: () => route.handle(event as never, context) });
        results.set(index, { record, eventId: event.eventId, eventType: event.type });
      } catch (error) {
        results.set(index, { record, eventId: decoded?.eventId, eventType: decoded?.type, outcome: { status: 'failed', error: asPermanent(error) } });
      }
    });
    return { accepted, results };
  }

  private countOutcomes(results: readonly RecordResult[]): void {
    const count = (status: Outcome['status']) => results.filter((result) => result.outcome.status === status).length;
    this.observability.count(MetricName.PROCESSED, count('applied'));
    this.observability.count(MetricName.DUPLICATES, count('duplicate'));
    this.observability.count(MetricName.STALE_WRITES, count('skipped'));
    const conflicting = results.filter((result) => result.outcome.status === 'duplicate' && result.outcome.conflictingPayload);
    this.observability.count(MetricName.CONFLICTING_DUPLICATES, conflicting.length);
    for (const { eventId, record } of conflicting) {
      this.observability.logger.error('duplicate event id with a different payload: the producer is broken', { eventId, itemIdentifier: record.itemIdentifier });
    }
  }
}

/** Decoding and validation are pure: whatever they throw, a retry would throw again. */
function asPermanent(error: unknown): unknown {
  if (error instanceof EffectivelyOnceError) return error;
  return new UndecodableRecordError(`record could not be decoded: ${messageOf(error)}`, { cause: error });
}

/**
 * Keeps the first record of each event id; later ones (producer retries, redeliveries inside one
 * batch) follow its outcome, so that no transaction touches the same dedup record twice.
 */
function splitDuplicates<TResult>(accepted: readonly AcceptedEvent<TResult>[], observability: Observability) {
  const firstByEventId = new Map<string, AcceptedEvent<TResult>>();
  const primaries: AcceptedEvent<TResult>[] = [];
  const twins = new Map<number, number>();
  for (const candidate of accepted) {
    const first = firstByEventId.get(candidate.event.eventId);
    if (!first) {
      firstByEventId.set(candidate.event.eventId, candidate);
      primaries.push(candidate);
      continue;
    }
    twins.set(candidate.index, first.index);
    if (payloadHash(first.event.payload) !== payloadHash(candidate.event.payload)) {
      observability.count(MetricName.CONFLICTING_DUPLICATES);
      observability.logger.error('duplicate event id with a different payload in one batch: the producer is broken', { eventId: candidate.event.eventId });
    }
  }
  return { primaries, twins };
}

/** A twin of an applied or handled event is a duplicate; a twin of a transient failure fails with it. */
function twinOutcome(primary: Outcome | undefined): Outcome {
  const failedTransiently = primary?.status === 'failed' && classifyError(primary.error) === FailureKind.TRANSIENT;
  return failedTransiently ? primary : { status: 'duplicate' };
}

/**
 * A FIFO queue needs its messages handled in order per message group, which the runtime does not
 * do yet: reporting one failure and deleting the group's later messages would break that order.
 * Throwing fails the whole batch, so nothing is deleted and the order holds.
 */
function normalise(source: SourceKind, event: BatchEvent): SourceRecord[] {
  const records = (event as { Records?: unknown[] }).Records ?? [];
  switch (source) {
    case SourceKind.SQS:
      return (records as SQSEvent['Records']).map(fromSqsRecord);
    case SourceKind.KINESIS:
      return (records as KinesisStreamEvent['Records']).map(fromKinesisRecord);
    case SourceKind.DYNAMODB_STREAM:
      return (records as DynamoDBStreamEvent['Records']).map(fromDynamoDbRecord);
  }
}
