/**
 * What one model-based run is made of: a source and a strategy, the events the producer publishes
 * (order groups, in-batch and cross-batch duplicates, conflicting duplicates, poison, undecodable
 * records), what goes wrong while they are consumed (transient handler failures, throttles,
 * conflicts, crashes before and after a commit, DLQ outages, time budgets that run out, batches
 * held past their visibility), and the mapping's settings (batch size, receive counts around
 * `maxAttempts`, stream retries, bisect, record age). The `sql` strategy's schedules add what their
 * events do in the database (some of it fails there: a CHECK, a UNIQUE), the Data API's behaviour
 * after a failed statement, and faults on any Data API call, mid-transaction included. Generated
 * by fast-check, which shrinks a failing schedule to a small one.
 */
import fc from 'fast-check';

export const SOURCES = ['sqs', 'sqs-fifo', 'kinesis', 'dynamodb-stream'] as const;
export type SourceChoice = (typeof SOURCES)[number];

/** The strategies over the world's DynamoDB model. */
export const DYNAMODB_STRATEGIES = ['batch', 'per-record', 'direct'] as const;
/** Those, and `sql`: the SQL strategy on a real PostgreSQL (test/model/sql-store.ts). */
export const STRATEGIES = [...DYNAMODB_STRATEGIES, 'sql'] as const;
export type StrategyChoice = (typeof STRATEGIES)[number];

/** `valid` applies; `poison` fails in its handler, permanently; `undecodable` and `schema` never reach a handler. */
export type EventKind = 'valid' | 'poison' | 'undecodable' | 'schema';

export interface ScheduledEvent {
  /** The order group (FIFO message group, partition key) by number. */
  readonly key: number;
  readonly kind: EventKind;
  /** How many of its handler's first runs fail transiently (a dependency down for a while). */
  readonly transientFailures: number;
}

/** One more copy of an event, published after its original: a producer retry, or a conflicting one (same id, another payload). */
export interface ExtraCopy {
  readonly event: number;
  /** How many publications after the original it goes. */
  readonly delay: number;
  readonly conflicting: boolean;
}

/**
 * A fault on one store call. DynamoDB's: a throttle, a transaction conflict, a crash before the call
 * or after its write. The `sql` strategy's (test/model/data-api-client.ts) are on Data API calls, so
 * they land in the middle of a transaction as well as at its commit: the same four, and a lost
 * answer (the call ran, the function goes on without its answer: a lost commit answer at a commit),
 * a Lambda timeout (the clock jumps to the deadline and the function dies, its transaction open),
 * and a pause of the cluster (DatabaseResumingException until it has resumed).
 */
export type StoreFault = 'throttle' | 'conflict' | 'crash-before' | 'crash-after' | SqlOnlyFault;
export type SqlOnlyFault = 'lost-answer' | 'timeout' | 'pause';

export interface Schedule {
  readonly source: SourceChoice;
  readonly strategy: StrategyChoice;
  readonly batchSize: number;
  /** SQS: the runtime's `maxAttempts`; the queue's `maxReceiveCount` is `maxAttempts + receiveSlack`. */
  readonly maxAttempts: number;
  readonly receiveSlack: number;
  /** Streams: the mapping's `MaximumRetryAttempts`, bisect and `MaximumRecordAgeInSeconds` (-1: none). */
  readonly retryAttempts: number;
  readonly bisect: boolean;
  readonly maxRecordAgeMs: number;
  readonly events: readonly ScheduledEvent[];
  readonly copies: readonly ExtraCopy[];
  /** Faults by the index of the DynamoDB call they hit, counted over the whole run. */
  readonly storeFaults: readonly { readonly call: number; readonly fault: StoreFault }[];
  /** Invocations during which the DLQ refuses every send. */
  readonly dlqOutages: readonly number[];
  /** SQS: invocations whose batch's visibility ends before Lambda deletes it (another poller receives it again). */
  readonly lateAcks: readonly number[];
  /**
   * SQS: invocations whose batch's visibility ends while they still run: another poller receives
   * the same messages and a second invocation runs at once, the two interleaved step by step by
   * fast-check's scheduler (World.scheduler); the first one's deletes then carry stale handles.
   * @default - none: every invocation runs alone
   */
  readonly overlaps?: readonly number[];
  /**
   * SQS standard: invocations during which a server that kept a copy of the batch's first message
   * (at-least-once delivery) hands it to another poller, with its receive count `missedReceives`
   * behind: a second invocation runs at once, without any visibility expiry, and each deletes its
   * own copy. An invocation in `overlaps` takes that instead.
   * @default - none
   */
  readonly duplicateDeliveries?: readonly DuplicateDelivery[];
  /** Whether a delete with a stale receipt handle deletes all the same (SQS: it "might not"). @default false */
  readonly staleHandlesDelete?: boolean;
  /** Invocations that start with little time left (ms), so that the time budget runs out. */
  readonly tightBudgets: readonly { readonly invocation: number; readonly remainingMs: number }[];
  /** Virtual time each DynamoDB call takes. */
  readonly callLatencyMs: number;
  /** Seeds the shuffles of a standard queue and the runtime's random draws. */
  readonly seed: number;
  /** The `sql` strategy's: what its events do in the database, and how the Data API treats a failed statement. */
  readonly sql?: SqlScheduleFacts;
}

/** What the local Data API does with a transaction whose statement failed (emulator/gateway/data-api-service.ts). */
export type DataApiBehaviour = 'abort-transaction' | 'keep-transaction';

/**
 * What one event does to its group's accounts (test/model/sql-ledger.ts): a deposit or a withdrawal
 * of its account's balance (CHECK balance >= 0: a withdrawal the balance does not cover fails), a
 * snapshot of the balance (an INSERT ... SELECT: it reads what earlier events wrote), a claim of a
 * reference (UNIQUE: a second claim fails), or an overdraft that no balance covers (poison that fails
 * in the database, not in its handler).
 */
export type SqlOp =
  | { readonly kind: 'deposit' | 'withdraw'; readonly account: number; readonly amount: number }
  | { readonly kind: 'snapshot'; readonly account: number }
  | { readonly kind: 'claim'; readonly ref: number }
  | { readonly kind: 'overdraft'; readonly account: number };

export interface SqlScheduleFacts {
  readonly behaviour: DataApiBehaviour;
  /** Event `n`'s operation is `ops[n % ops.length]`. */
  readonly ops: readonly SqlOp[];
  /** Faults of commits: each hits the first CommitTransaction at or after its store call (a lost commit answer, above all). */
  readonly commitFaults: readonly { readonly call: number; readonly fault: StoreFault }[];
}

const event: fc.Arbitrary<ScheduledEvent> = fc.record({
  key: fc.integer({ min: 0, max: 2 }),
  kind: fc.oneof({ weight: 8, arbitrary: fc.constant<EventKind>('valid') }, { weight: 1, arbitrary: fc.constantFrom<EventKind>('poison', 'undecodable', 'schema') }),
  transientFailures: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.integer({ min: 1, max: 8 }) }),
});

const invocations = (max: number) => fc.uniqueArray(fc.integer({ min: 0, max: 40 }), { maxLength: max });

/**
 * Schedules of up to 12 events: small enough for hundreds in seconds, wide enough to mix every fault.
 * `strategies`: those to draw from (by default the DynamoDB ones, whose schedules a seed draws as before `sql` came).
 */
export function scheduleArbitrary(strategies: readonly StrategyChoice[] = DYNAMODB_STRATEGIES): fc.Arbitrary<Schedule> {
  return fc.record({
    source: fc.constantFrom(...SOURCES),
    strategy: fc.constantFrom(...strategies),
    batchSize: fc.integer({ min: 1, max: 10 }),
    maxAttempts: fc.integer({ min: 1, max: 4 }),
    receiveSlack: fc.integer({ min: 1, max: 2 }),
    retryAttempts: fc.integer({ min: 0, max: 3 }),
    bisect: fc.boolean(),
    maxRecordAgeMs: fc.constantFrom(-1, -1, 600_000),
    events: fc.array(event, { minLength: 1, maxLength: 12 }),
    copies: fc.array(fc.record({ event: fc.nat(11), delay: fc.integer({ min: 0, max: 6 }), conflicting: fc.boolean() }), { maxLength: 4 }),
    storeFaults: fc.array(fc.record({ call: fc.nat(60), fault: fc.constantFrom<StoreFault>('throttle', 'throttle', 'conflict', 'crash-before', 'crash-after') }), { maxLength: 6 }),
    dlqOutages: invocations(3),
    lateAcks: invocations(2),
    tightBudgets: fc.array(fc.record({ invocation: fc.nat(40), remainingMs: fc.integer({ min: 1_500, max: 8_000 }) }), { maxLength: 3 }),
    callLatencyMs: fc.constantFrom(5, 300, 1_500),
    seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  });
}

/** A copy of a message delivered again while its invocation runs (Schedule.duplicateDeliveries). */
export interface DuplicateDelivery {
  readonly invocation: number;
  /** How many of the message's receives its copy's count missed: one or two. */
  readonly missedReceives: number;
}

/**
 * Schedules with invocations at once: those of {@link scheduleArbitrary} on an SQS queue (standard
 * or FIFO), with one to three invocations whose batch's visibility ends mid-batch, so that a second
 * invocation holds the same messages while the first still runs, and a stale handle that deletes
 * or not; on a standard queue also up to two duplicate deliveries, a message's kept copy received
 * while the message is in flight. The interleaving itself is fast-check's scheduler's, drawn
 * beside the schedule.
 */
export function concurrentScheduleArbitrary(strategies: readonly StrategyChoice[] = DYNAMODB_STRATEGIES): fc.Arbitrary<Schedule> {
  return fc
    .record({
      base: scheduleArbitrary(strategies),
      source: fc.constantFrom<SourceChoice>('sqs', 'sqs-fifo'),
      overlaps: fc.uniqueArray(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 3 }),
      staleHandlesDelete: fc.boolean(),
      duplicateDeliveries: fc.uniqueArray(fc.record({ invocation: fc.integer({ min: 0, max: 12 }), missedReceives: fc.integer({ min: 1, max: 2 }) }), { maxLength: 2, selector: (delivery) => delivery.invocation }),
    })
    .map(({ base, source, overlaps, staleHandlesDelete, duplicateDeliveries }) => ({
      ...base,
      source,
      overlaps,
      staleHandlesDelete,
      ...(source === 'sqs' && duplicateDeliveries.length > 0 && { duplicateDeliveries }),
    }));
}

const sqlOp: fc.Arbitrary<SqlOp> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constantFrom<'deposit' | 'withdraw'>('deposit', 'withdraw'), account: fc.nat(1), amount: fc.integer({ min: 1, max: 60 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant<'snapshot'>('snapshot'), account: fc.nat(1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant<'claim'>('claim'), ref: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant<'overdraft'>('overdraft'), account: fc.nat(1) }) },
);

const SQL_FAULTS: readonly StoreFault[] = ['throttle', 'conflict', 'crash-before', 'crash-after', 'lost-answer', 'timeout', 'pause'];

/**
 * The `sql` strategy's schedules: those of {@link scheduleArbitrary}, with the database facts, and
 * faults on Data API calls (some 5 to 15 per invocation), which the wider call range spreads over
 * a run's transactions, their statements as well as their commits.
 */
export function sqlScheduleArbitrary(): fc.Arbitrary<Schedule> {
  return fc
    .record({
      base: scheduleArbitrary(['sql']),
      storeFaults: fc.array(fc.record({ call: fc.nat(150), fault: fc.constantFrom(...SQL_FAULTS) }), { maxLength: 6 }),
      sql: fc.record({
        behaviour: fc.constantFrom<DataApiBehaviour>('abort-transaction', 'keep-transaction'),
        ops: fc.array(sqlOp, { minLength: 1, maxLength: 12 }),
        commitFaults: fc.array(fc.record({ call: fc.nat(100), fault: fc.constantFrom<StoreFault>('lost-answer', 'lost-answer', 'crash-before', 'crash-after', 'timeout', 'throttle') }), { maxLength: 2 }),
      }),
    })
    .map(({ base, storeFaults, sql }) => ({ ...base, storeFaults, sql }));
}

/** The publications in order: each event once, and each extra copy `delay` publications after its original. */
export function publications(schedule: Schedule): { readonly event: number; readonly copy: number; readonly conflicting: boolean }[] {
  const order = schedule.events.map((_, index) => ({ event: index, copy: 0, conflicting: false }));
  schedule.copies.forEach((extra, copy) => {
    if (extra.event >= schedule.events.length) return;
    const original = order.findIndex((publication) => publication.event === extra.event && publication.copy === 0);
    order.splice(Math.min(order.length, original + 1 + extra.delay), 0, { event: extra.event, copy: copy + 1, conflicting: extra.conflicting });
  });
  return order;
}
