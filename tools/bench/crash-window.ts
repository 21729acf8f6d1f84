/**
 * The crash window, measured: each strategy runs the workload on fresh tables while a seeded share
 * of its invocations die, and the counters say how many events were applied twice.
 *
 * - `before-response` (every strategy): the invocation's work is done, then the process dies
 *   before Lambda gets the response. The mapping sees an invocation error: the whole batch comes
 *   back. A strategy whose dedup record committed with the effect finds it and applies nothing.
 * - `before-completed` (the strategies that write their idempotency record outside the effect's
 *   transaction: the `powertools` peer): the process dies after an effect and before the record
 *   is marked COMPLETED (`crash-switch.ts`). The record stays INPROGRESS until the invocation's
 *   deadline; the redelivery after it runs the effect again. That is the window DESIGN.md names.
 *
 * Whatever comes back (a crashed batch, the records a response reported failed) comes back after
 * the visibility timeout, which SQS requires to be at least the function timeout, while later
 * batches go on; at the end the run waits for what is still due. Unlike the throughput part, a
 * failed record is not redelivered at once: it may be one whose lock a dead invocation holds
 * until its deadline, and an immediate redelivery would find that lock every time.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context, SQSRecord } from 'aws-lambda';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Progress } from '../../cli/progress';
import { chance, seededRandom } from '../../emulator/faults/random';
import { dynamoDbClient } from '../../emulator/engines';
import type { BatchHandler } from '../../lambdas/runtime';
import { QUEUE_CONSUMER_DEFAULTS } from '../../lib/defaults';
import { installCrashSwitch, marksIdempotencyRecordCompleted, type CrashSwitch } from './crash-switch';
import { invocationContext } from './invocation-context';
import { createStrategyHandler, type StrategyName } from './strategies';
import { createBenchTables, deleteBenchTables, readCounters } from './tables';
import { receivedAgain, type Workload } from './workload';

/** The crash points, in the order a case's rows come. */
export const CRASH_POINTS = ['before-response', 'before-completed'] as const;
/** Where a crashing invocation dies. */
export type CrashPoint = (typeof CRASH_POINTS)[number];

/** The strategies measured at `before-completed`: their idempotency record is written apart from the effect (the peer, and ours for an external effect, `idempotentEffect`, which is Powertools underneath). */
const RECORD_APART_STRATEGIES: ReadonlySet<string> = new Set<string>(['powertools', 'direct']);

/** Defaults of {@link CrashWindowOptions}. */
export const CRASH_WINDOW_DEFAULTS = {
  crashRate: 0.2,
  seed: 1,
  functionTimeoutMs: 5_000,
} as const;

/** A redelivery comes this long after the dead invocation's deadline, so that its lock has strictly expired. */
const VISIBILITY_SLACK_MS = 20;

/** How often invocations crash, and how long an invocation may run. */
export interface CrashWindowOptions {
  /** Share of the workload's batches (first deliveries) whose invocation crashes; a batch that comes back never crashes again. @default 0.2 */
  readonly crashRate?: number;
  /** Seed of the crash draws; every strategy crashes on the same batches. @default 1 */
  readonly seed?: number;
  /**
   * The function timeout of each invocation's Lambda context, in ms. Short, so that the part waits
   * seconds for redeliveries rather than the deployed 30 s; long enough that our consumers' time
   * budget (which keeps back at least 1 s) starts every event of a normal batch, or the run would
   * measure out-of-time records instead of crashes. `naive` is the slowest of ours per batch (two
   * sequential `UpdateItem`s per event): at 2 s it left events of batches of 25 unstarted
   * (`reportedFailed` > 0), at 3 s none of batches of 100; 5 s leaves room for a loaded machine.
   * @default 5000
   */
  readonly functionTimeoutMs?: number;
  /** A phase for the part and a tick per run. @default - no progress shown */
  readonly progress?: Progress;
}

/** One strategy at one crash point. Counts in events are in events' worth of effects: a crash between an event's effects leaves a fraction. */
export interface CrashWindowRow {
  readonly strategy: StrategyName;
  /** Where the invocation died. */
  readonly point: CrashPoint;
  /** Records delivered (first deliveries, the workload's duplicates included). */
  readonly events: number;
  /** Invocations that crashed. */
  readonly crashes: number;
  /** Events whose effects were applied more than once (for `naive`, the workload's redeliveries too). */
  readonly appliedTwice: number;
  /** Events whose effects are missing: never expected, shown rather than hidden. */
  readonly lost: number;
  /** Records a normal response reported failed, each delivered again: the peer's in-batch duplicates; for ours, events the time budget did not start. */
  readonly reportedFailed: number;
  /** Records still failing at the queue's maxReceiveCount: on AWS they would be in the DLQ. */
  readonly beyondMaxReceiveCount: number;
}

type Settings = Required<Omit<CrashWindowOptions, 'progress'>> & Pick<CrashWindowOptions, 'progress'>;

interface CrashCase {
  readonly strategy: StrategyName;
  readonly point: CrashPoint;
}

/**
 * Runs every strategy at `before-response`, and the record-apart ones at `before-completed` too,
 * against the DynamoDB at `dynamodbEndpoint`.
 *
 * @example
 * const rows = await measureCrashWindow(endpoint, generateWorkload({ events: 1000, seed: 1 }), ['naive', 'powertools', 'batch']);
 */
export async function measureCrashWindow(dynamodbEndpoint: string, workload: Workload, strategies: readonly StrategyName[], options: CrashWindowOptions = {}): Promise<CrashWindowRow[]> {
  const settings: Settings = { ...CRASH_WINDOW_DEFAULTS, ...options };
  checkOptions(settings);
  const cases = crashCases(strategies);
  settings.progress?.phase(`crash window: ${cases.map(({ strategy, point }) => `${strategy} ${point}`).join(', ')}; ${workload.deliveries} records, crash rate ${settings.crashRate}, function timeout ${settings.functionTimeoutMs} ms`);
  const admin = dynamoDbClient(dynamodbEndpoint);
  try {
    const rows: CrashWindowRow[] = [];
    for (const [index, run] of cases.entries()) {
      rows.push(await runCase(dynamodbEndpoint, admin, workload, run, settings));
      settings.progress?.update('runs', index + 1, cases.length);
    }
    settings.progress?.done();
    return rows;
  } finally {
    admin.destroy();
  }
}

function checkOptions(settings: Settings): void {
  if (!(settings.crashRate > 0 && settings.crashRate <= 1)) throw new RangeError(`crashRate must be in (0, 1] (given ${settings.crashRate})`);
  if (!Number.isInteger(settings.seed)) throw new RangeError(`seed must be a whole number (given ${settings.seed})`);
  const timeout = settings.functionTimeoutMs;
  if (!Number.isInteger(timeout) || timeout < 1_000 || timeout > 900_000) throw new RangeError(`functionTimeoutMs must be a whole number of ms in 1000..900000, Lambda's range (given ${timeout})`);
}

function crashCases(strategies: readonly StrategyName[]): CrashCase[] {
  return strategies.flatMap((strategy) => CRASH_POINTS.filter((point) => point === 'before-response' || RECORD_APART_STRATEGIES.has(strategy)).map((point) => ({ strategy, point })));
}

/** One case on fresh tables, with a client of its own for the handler (the switch lives on it). */
async function runCase(endpoint: string, admin: DynamoDBClient, workload: Workload, run: CrashCase, settings: Settings): Promise<CrashWindowRow> {
  const tables = await createBenchTables(admin, `crash-${run.strategy}`);
  const data = dynamoDbClient(endpoint);
  try {
    const crashSwitch = installCrashSwitch(data, marksIdempotencyRecordCompleted(tables.idempotencyTable));
    const handler = createStrategyHandler(run.strategy, { ...tables, dynamodb: data });
    const queue = new CrashingQueue(crashingInvoker(handler, crashSwitch, run.point), `crash-${run.strategy}`, settings);
    await queue.deliverAll(workload);
    const counts = countDifferences(workload, await readCounters(admin, tables.countersTable));
    return { ...run, events: workload.deliveries, crashes: queue.crashes, ...counts, reportedFailed: queue.reportedFailed, beyondMaxReceiveCount: queue.beyondMaxReceiveCount };
  } finally {
    data.destroy();
    await deleteBenchTables(admin, tables);
  }
}

/** What an invocation ended with: it died, or these message ids are to come back. */
type Outcome = 'crashed' | ReadonlySet<string>;

/** Invokes the handler once; `crash` says whether this invocation is one that dies. */
type Invoker = (records: readonly SQSRecord[], context: Context, crash: boolean) => Promise<Outcome>;

function crashingInvoker(handler: BatchHandler, crashSwitch: CrashSwitch, point: CrashPoint): Invoker {
  return async (records, context, crash) => {
    if (crash && point === 'before-completed') crashSwitch.arm();
    try {
      const response = await handler({ Records: [...records] }, context).catch(() => undefined);
      if ((crash && point === 'before-response') || crashSwitch.died) return 'crashed';
      // An invocation error (the peer throws when every record failed): the whole batch comes back.
      if (response === undefined) return new Set(records.map((record) => record.messageId));
      return new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
    } finally {
      crashSwitch.reset();
    }
  };
}

/** Records that will be visible again at `at` (epoch ms). */
interface ComingBack {
  readonly at: number;
  readonly records: readonly SQSRecord[];
}

/** The queue as one consumer sees it: the workload's batches in order, and what comes back once its visibility timeout ends. */
class CrashingQueue {
  public crashes = 0;
  public reportedFailed = 0;
  public beyondMaxReceiveCount = 0;
  private comingBack: ComingBack[] = [];
  private readonly crashDraw: () => boolean;

  public constructor(
    private readonly invoke: Invoker,
    private readonly functionName: string,
    private readonly settings: Settings,
  ) {
    const random = seededRandom(settings.seed);
    this.crashDraw = () => chance(random, settings.crashRate);
  }

  /** Delivers every batch, what came back in between, and then waits for the rest to come back. */
  public async deliverAll(workload: Workload): Promise<void> {
    for (const batch of workload.batches) {
      await this.deliverDue();
      await this.deliver(batch.Records, this.crashDraw());
    }
    while (this.comingBack.length > 0) {
      await sleep(Math.max(0, Math.min(...this.comingBack.map(({ at }) => at)) - Date.now()));
      await this.deliverDue();
    }
  }

  private async deliverDue(): Promise<void> {
    const now = Date.now();
    const due = this.comingBack.filter(({ at }) => at <= now).sort((a, b) => a.at - b.at);
    this.comingBack = this.comingBack.filter(({ at }) => at > now);
    for (const { records } of due) await this.deliver(records, false);
  }

  private async deliver(records: readonly SQSRecord[], crash: boolean): Promise<void> {
    const context = invocationContext(this.functionName, this.settings.functionTimeoutMs);
    const outcome = await this.invoke(records, context, crash);
    if (outcome === 'crashed') {
      this.crashes += 1;
      this.comeBackAfter(context, records);
      return;
    }
    const failed = records.filter((record) => outcome.has(record.messageId));
    const retried = failed.filter((record) => Number(record.attributes.ApproximateReceiveCount) < QUEUE_CONSUMER_DEFAULTS.maxReceiveCount);
    this.reportedFailed += failed.length;
    this.beyondMaxReceiveCount += failed.length - retried.length;
    this.comeBackAfter(context, retried);
  }

  /** The records come back once the invocation's deadline has passed (visibility timeout >= function timeout). */
  private comeBackAfter(context: Context, records: readonly SQSRecord[]): void {
    if (records.length === 0) return;
    this.comingBack.push({ at: Date.now() + context.getRemainingTimeInMillis() + VISIBILITY_SLACK_MS, records: records.map(receivedAgain) });
  }
}

/**
 * The counters against the expected ones, item by item (an extra effect on one item does not hide
 * a missing one on another), in events' worth of effects. Every page view has the same effects, so
 * effects per event = the expected increments / the distinct events.
 */
function countDifferences(workload: Workload, actual: ReadonlyMap<string, number>): { appliedTwice: number; lost: number } {
  const expectedEffects = [...workload.expected.values()].reduce((sum, views) => sum + views, 0);
  const effectsPerEvent = expectedEffects / workload.distinctEvents;
  if (!Number.isInteger(effectsPerEvent)) throw new RangeError(`the workload's events do not all have the same number of effects (${expectedEffects} over ${workload.distinctEvents} events)`);
  let extra = 0;
  let missing = 0;
  for (const key of new Set([...workload.expected.keys(), ...actual.keys()])) {
    const difference = (actual.get(key) ?? 0) - (workload.expected.get(key) ?? 0);
    if (difference > 0) extra += difference;
    else missing -= difference;
  }
  return { appliedTwice: extra / effectsPerEvent, lost: missing / effectsPerEvent };
}
