/**
 * The hot-item part of the benchmark: each case (strategy, shards, consumers) on the page views
 * with their shared day counter and, right after, on the same views without it, so that machine
 * noise hits both alike; the pair becomes one report row, with the ratio of the two.
 *
 * `batch` runs unsharded and with the counters over `shards` shard items, side by side;
 * `powertools` runs unsharded, on a share of the records (`POWERTOOLS_HOT_ITEM_SHARE`): its plain
 * `UpdateItem`s do not conflict with each other (only transactions are cancelled by a conflict),
 * though they meet the same per-item write limit.
 */
import type { Progress } from '../../cli/progress';
import { latencyLabel, type LatencyProfileLabel } from '../../emulator/gateway';
import type { HotItemStrategy } from './handlers/hot-item';
import { runHotItemCase, startHotItemGateway, type HotItemCase, type HotItemMeasurement } from './hot-item';
import type { Workload } from './workload';

/** Settings of the part, from the benchmark's plan. */
export interface HotItemSettings {
  /** The strategies to run, each on its workload. */
  readonly workloads: ReadonlyMap<HotItemStrategy, Workload>;
  readonly consumers: readonly number[];
  /** Shards of the sharded `batch` cases. */
  readonly shards: number;
  /** The latency the part's contract layer waits on every request. @default - none */
  readonly latency?: LatencyProfileLabel;
  /** Seeds the latency draws. @default 1 */
  readonly seed?: number;
  readonly progress?: Progress;
}

/** A run's figures per 1,000 events or per event. */
export interface HotItemFigures {
  readonly eventsPerSecond: number;
  /** Requests cancelled (transactions) or refused because another request held one of their items; each is retried or redelivered. */
  readonly conflictsPer1000: number;
  /** Records that failed their invocation and came back in a later batch. */
  readonly redeliveriesPer1000: number;
  /** Records received more often than the example queue's maxReceiveCount: on AWS they would have reached the DLQ. */
  readonly beyondMaxReceiveCount: number;
  readonly requestsPerEvent: number;
  readonly writeUnitsPerEvent: number;
  /** The item that took the most write units: its key, its write units per event, and per second at the measured rate. */
  readonly hottestItem: { readonly key: string; readonly writeUnitsPerEvent: number; readonly writeUnitsPerSecond: number };
  readonly exact: boolean;
}

/** One row: the case on the workload with the shared counter, and its ratio to the same case without it. */
export interface HotItemReport extends HotItemFigures {
  readonly strategy: HotItemStrategy;
  readonly shards: number;
  readonly consumers: number;
  /** `eventsPerSecond` over that of the same strategy, shards and consumers without the shared counter. */
  readonly vsNoSharedCounter: number;
  readonly noSharedCounter: HotItemFigures;
}

/** Runs every case against DynamoDB Local's own endpoint `engine`, through a contract layer started for the part (waiting the run's latency profile, if any). */
export async function measureHotItems(engine: string, settings: HotItemSettings): Promise<HotItemReport[]> {
  const cases = hotItemCases(settings);
  const records = [...settings.workloads].map(([strategy, workload]) => `${workload.deliveries} records for ${strategy}`).join(', ');
  const latency = settings.latency ?? { name: 'none', scale: 1 };
  settings.progress?.phase(`hot item: ${cases.length} cases x 2 (with and without the shared counter), ${records}, through the contract layer, latency profile ${latencyLabel(latency)}`);
  const gateway = await startHotItemGateway(engine, latency, settings.seed);
  try {
    const rows: HotItemReport[] = [];
    for (const [index, run] of cases.entries()) {
      const workload = settings.workloads.get(run.strategy) as Workload;
      const shared = await runHotItemCase(engine, gateway, workload, { ...run, sharedCounter: true });
      const alone = await runHotItemCase(engine, gateway, workload, { ...run, sharedCounter: false });
      rows.push(reportRow(run, shared, alone, workload.deliveries));
      settings.progress?.update('cases', index + 1, cases.length);
    }
    settings.progress?.done();
    return rows;
  } finally {
    await gateway.stop();
  }
}

type CaseShape = Omit<HotItemCase, 'sharedCounter'>;

function hotItemCases(settings: HotItemSettings): CaseShape[] {
  return [...settings.workloads.keys()].flatMap((strategy) => {
    const shardings = strategy === 'batch' ? [...new Set([1, settings.shards])] : [1];
    return shardings.flatMap((shards) => settings.consumers.map((consumers) => ({ strategy, shards, consumers })));
  });
}

/** The fields first (strategy, consumers, eventsPerSecond, vsNoSharedCounter, conflictsPer1000, exact), the rest after them. */
function reportRow(run: CaseShape, shared: HotItemMeasurement, alone: HotItemMeasurement, events: number): HotItemReport {
  const { eventsPerSecond, conflictsPer1000, exact, ...rest } = figuresOf(shared, events);
  const vsNoSharedCounter = shared.eventsPerSecond / alone.eventsPerSecond;
  return { strategy: run.strategy, shards: run.shards, consumers: run.consumers, eventsPerSecond, vsNoSharedCounter, conflictsPer1000, exact, ...rest, noSharedCounter: figuresOf(alone, events) };
}

function figuresOf(measured: HotItemMeasurement, events: number): HotItemFigures {
  return {
    eventsPerSecond: measured.eventsPerSecond,
    conflictsPer1000: (measured.conflicts * 1000) / events,
    redeliveriesPer1000: (measured.redeliveredRecords * 1000) / events,
    beyondMaxReceiveCount: measured.beyondMaxReceiveCount,
    requestsPerEvent: measured.requests / events,
    writeUnitsPerEvent: measured.writeUnits / events,
    hottestItem: {
      key: measured.hottestItem.key,
      writeUnitsPerEvent: measured.hottestItem.writeUnits / events,
      writeUnitsPerSecond: measured.hottestItem.writeUnits / measured.seconds,
    },
    exact: measured.exact,
  };
}
