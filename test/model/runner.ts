/**
 * Runs one schedule: publishes its events on the modelled source, then invokes the real consumer
 * batch after batch, as the event source mapping would, until the model says the source is
 * drained. Records the whole history (what each invocation got, did and answered) for the checker.
 */
import type { Scheduler } from 'fast-check';
import type { BatchHandler, BatchResponse } from '../../lambdas/runtime/consumer/consumer';
import type { SqlSession } from '../../lambdas/runtime/stores/postgres/session';
import { CONSUMER, consumerFor, invocationContext, type ModelPlant } from './consumer';
import type { Schedule } from './schedule';
import { createSource, FUNCTION_TIMEOUT_MS, type Delivered, type DeliveredBatch, type ModelSource } from './sources';
import type { LedgerState } from './sql-ledger';
import type { SqlModelStore } from './sql-store';
import { EFFECTS_TABLE, EVENT_ITEM_PREFIX, World, type InvocationTrace } from './world';

export interface InvocationRecord extends InvocationTrace {
  readonly invocation: number;
  readonly records: readonly Delivered[];
  /** What Lambda got: the response, or a failure (a throw, or a crash that lost the answer). */
  readonly answer: BatchResponse | 'failed';
  /** Whether Lambda found the answer a valid partial batch response. */
  readonly valid: boolean;
  readonly lateAck: boolean;
  /** The invocation it ran at once with, both holding the same messages (Schedule.overlaps, Schedule.duplicateDeliveries). */
  readonly atOnceWith?: number;
  /** Why: the first batch's visibility ended mid-batch, or a kept copy of its first message was delivered again. */
  readonly atOnceBecause?: 'visibility-ended' | 'duplicate-delivery';
}

export interface RunHistory {
  readonly schedule: Schedule;
  readonly source: ModelSource;
  readonly world: World;
  readonly invocations: readonly InvocationRecord[];
  /** False when the source still held records after the invocation bound. */
  readonly drained: boolean;
  /** What the effects store holds once the run is over. */
  readonly store: StoreState;
}

/** The effects store after a run, the same view whichever store the strategy wrote to. */
export interface StoreState {
  /** Each order group's counter (transactional strategies; the shards of a DynamoDB one summed). */
  readonly groupCounts: ReadonlyMap<string, number>;
  /** How many times each event's own effect is in the store. */
  readonly applications: ReadonlyMap<string, number>;
  /** SQL: the event ids that have a dedup row. */
  readonly dedupRows?: ReadonlySet<string>;
  /** SQL: the ledger's tables (balances, snapshots, claims, ...). */
  readonly ledger?: LedgerState;
}

/**
 * `onStart`: told the world before anything runs (the test points its clock there). `sql`: the store
 * of the `sql` strategy's schedules. `scheduler`: fast-check's, which interleaves the invocations
 * that run at once (a schedule's `overlaps` run only with one).
 */
export interface RunHooks {
  readonly onStart?: (world: World) => void;
  readonly sql?: SqlModelStore;
  readonly scheduler?: Scheduler;
  /** A bug planted in the consumer on purpose (ModelPlant). @default - none */
  readonly plant?: ModelPlant;
}

/** More invocations than any schedule needs to drain: every record is delivered a bounded number of times. */
const MAX_INVOCATIONS = 400;

export async function runSchedule(schedule: Schedule, hooks: RunHooks = {}): Promise<RunHistory> {
  const world = new World(schedule);
  const session = await sqlSessionFor(schedule, world, hooks.sql);
  hooks.onStart?.(world);
  const source = createSource(schedule, world);
  const invocations: InvocationRecord[] = [];
  let consumer = consumerFor(schedule, source, world, session, hooks.plant);
  while (!source.drained && invocations.length < MAX_INVOCATIONS) {
    const batch = source.next(world);
    if (batch === undefined) {
      const wakeAt = source.wakeAt(world.now);
      if (wakeAt === undefined) break;
      world.now = wakeAt;
      continue;
    }
    const invocation = invocations.length;
    // The batch's visibility ends as its invocation starts, or a kept copy of its first message is
    // delivered: another poller's receive runs beside it, if it got anything.
    const expired = hooks.scheduler !== undefined && schedule.overlaps?.includes(invocation) === true;
    const duplicated = hooks.scheduler === undefined || expired ? undefined : schedule.duplicateDeliveries?.find((delivery) => delivery.invocation === invocation);
    const second = expired ? source.overlap(batch, world) : duplicated === undefined ? undefined : source.duplicate(batch, world, duplicated.missedReceives);
    if (second !== undefined) {
      const context = { schedule, source, world, session, scheduler: hooks.scheduler!, plant: hooks.plant, firstHandlesStale: expired };
      invocations.push(...(await runAtOnce([batch, second], invocation, context)));
      world.now += 1;
      continue;
    }
    world.begin(invocation);
    const remainingMs = remainingMsOf(schedule, invocation);
    world.deadline = world.now + (remainingMs ?? FUNCTION_TIMEOUT_MS);
    const answer = await invoke(consumer, batch.event, world, remainingMs);
    const crashed = world.trace.crashed;
    if (crashed) consumer = consumerFor(schedule, source, world, session, hooks.plant);
    const scheduledLateAck = schedule.lateAcks.includes(invocation) && !crashed && !expired;
    if (scheduledLateAck) source.expire(batch, world);
    // Held past its visibility either way: the other receive found nothing it could hand out (SQS may have moved what it found).
    const lateAck = scheduledLateAck || expired;
    const valid = source.settle(batch, crashed ? 'failed' : answer);
    invocations.push({ ...world.trace, invocation, records: batch.records, answer: crashed ? 'failed' : answer, valid, lateAck });
    world.now += 1;
  }
  const store = hooks.sql !== undefined && schedule.strategy === 'sql' ? await hooks.sql.state(CONSUMER) : dynamoDbState(world);
  return { schedule, source, world, invocations, drained: source.drained, store };
}

interface AtOnce {
  readonly schedule: Schedule;
  readonly source: ModelSource;
  readonly world: World;
  readonly session: SqlSession | undefined;
  readonly scheduler: Scheduler;
  readonly plant: ModelPlant | undefined;
  /** Whether the first batch's receipt handles went stale (its visibility ended); not for a duplicate delivery, whose copy has handles of its own. */
  readonly firstHandlesStale: boolean;
}

/**
 * Two invocations that hold the same messages at once: the first's batch, whose visibility ended
 * while it ran (or whose first message a kept copy delivered again), and the batch another poller
 * then received. Each runs in an execution environment
 * of its own (a consumer built afresh), as Lambda runs concurrent invocations of the default model;
 * the scheduler releases their store and SQS calls one at a time in the order fast-check draws.
 * Lambda deletes each batch's messages as its invocation answers, in the order they end: after a
 * visibility expiry the first's receipt handles are stale by then, and delete or not as the
 * schedule says; a duplicate delivery's copies each go by their own.
 */
async function runAtOnce(batches: readonly DeliveredBatch[], first: number, context: AtOnce): Promise<InvocationRecord[]> {
  const { world } = context;
  // Only while invocations run at once: alone, an invocation's steps wait for no scheduler.
  world.scheduler = context.scheduler;
  try {
    return await context.scheduler.waitFor(Promise.all(invocationsAtOnce(batches, first, context)));
  } finally {
    world.scheduler = undefined;
  }
}

function invocationsAtOnce(batches: readonly DeliveredBatch[], first: number, context: AtOnce): Promise<InvocationRecord>[] {
  const { schedule, source, world, session } = context;
  return batches.map(async (batch, index): Promise<InvocationRecord> => {
    const invocation = first + index;
    const remainingMs = remainingMsOf(schedule, invocation);
    const consumer = consumerFor(schedule, source, world, session, context.plant);
    const deadline = world.now + (remainingMs ?? FUNCTION_TIMEOUT_MS);
    const { result, trace } = await world.during(invocation, deadline, () => invoke(consumer, batch.event, world, remainingMs));
    const answer = trace.crashed ? 'failed' : result;
    const stale = index === 0 && context.firstHandlesStale;
    const valid = source.settle(batch, answer, stale && schedule.staleHandlesDelete === true);
    return { ...trace, invocation, records: batch.records, answer, valid, lateAck: stale, atOnceWith: index === 0 ? first + 1 : first, atOnceBecause: context.firstHandlesStale ? 'visibility-ended' : 'duplicate-delivery' };
  });
}

/** The `sql` strategy's session on fresh tables; none for the DynamoDB strategies. */
async function sqlSessionFor(schedule: Schedule, world: World, store: SqlModelStore | undefined): Promise<SqlSession | undefined> {
  if (schedule.strategy !== 'sql') return undefined;
  if (store === undefined) throw new Error('a schedule of the sql strategy needs the PostgreSQL store (hooks.sql)');
  return store.begin(world, schedule, CONSUMER);
}

/** The effects table of the world's DynamoDB model: `group#k<n>[#shard]` counters and `event#<eventId>` items. */
function dynamoDbState(world: World): StoreState {
  const groupCounts = new Map<string, number>();
  const applications = new Map<string, number>();
  for (const item of world.tables.scan(EFFECTS_TABLE)) {
    const pk = item.pk?.S ?? '';
    const group = /^group#(k\d+)/.exec(pk)?.[1];
    if (group !== undefined) groupCounts.set(group, (groupCounts.get(group) ?? 0) + Number(item.count?.N ?? 0));
    if (pk.startsWith(EVENT_ITEM_PREFIX)) applications.set(pk.slice(EVENT_ITEM_PREFIX.length), Number(item.applied?.N ?? 0));
  }
  return { groupCounts, applications };
}

async function invoke(consumer: BatchHandler, event: Parameters<BatchHandler>[0], world: World, remainingMs: number | undefined): Promise<BatchResponse | 'failed'> {
  try {
    return await consumer(event, invocationContext(world, remainingMs));
  } catch {
    return 'failed';
  }
}

function remainingMsOf(schedule: Schedule, invocation: number): number | undefined {
  return schedule.tightBudgets.find((budget) => budget.invocation === invocation)?.remainingMs;
}
