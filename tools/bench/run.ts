/**
 * The benchmark's core, callable without a child process: runs every strategy over the planned
 * workload round after round (interleaved, so that machine noise hits all alike), and measures
 * cold starts and the local SQS pipeline. The CLI (`bin/bench.ts`) starts the engines; tests pass
 * the ones Jest started.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import { dynamoDbClient, sqsClient } from '../../emulator/engines';
import type { PostgresConnection } from '../../emulator/engines/postgres';
import { LATENCY_DEFAULTS, latencyLabel, type LatencyProfileLabel } from '../../emulator/gateway';
import { coldStartHandlers, measureColdStarts, SDK_PLACEMENTS, type ColdStart } from './coldstart';
import { measureCrashWindow, type CrashWindowRow } from './crash-window';
import { END_TO_END_ROUNDS, measureEndToEnd, type EndToEnd } from './endtoend';
import { measureHotItems, type HotItemReport } from './hot-item-part';
import { describePeer, type PeerDescription } from './handlers/powertools';
import { describeMachine, type Machine } from './machine';
import { measureSql, type SqlReport } from './sql-part';
import { writeUnitFloor } from './floor';
import { startGatewayProcess } from './gateway-process';
import { profileReport, type ProfileReport } from './profiles';
import { countConnections, meterRequests } from './metering';
import type { BenchmarkPlan, BenchmarkSettings } from './plan';
import type { StrategyName } from './strategies';
import { summarize, type StrategyReport } from './summary';
import { runStrategy, type RunClients, type RunMeasurement } from './throughput';
import type { RedeliveryPattern, Workload } from './workload';

export interface BenchmarkEndpoints {
  /** DynamoDB with no latency added: DynamoDB Local, or a contract layer in front of it that waits nothing. */
  readonly dynamodb: string;
  /** fauxqs, for the end-to-end part. */
  readonly sqs?: string;
  /**
   * A latency profile to measure beside the bare engine: the throughput part runs on both, side by
   * side, the second through a contract layer in a process of its own that waits the profile's
   * latencies; the crash-window part runs under it alone, and so does the hot-item part (through
   * its own contract layer, in the bench's process, as it reads the layer's conflict counts).
   * @default - none: the bare engine only
   */
  readonly latency?: LatencyProfileLabel;
  /**
   * A PostgreSQL for the SQL part (`sql-part.ts`): the bench starts a Data API gateway in front of
   * it per profile, and creates and drops its tables in it.
   * @default - none: the SQL part is skipped
   */
  readonly postgres?: PostgresConnection;
}

export interface BenchmarkReport {
  readonly events: number;
  readonly duplicateRate: number;
  readonly batchSize: number;
  readonly seed: number;
  readonly rounds: number;
  /** The run's profile: the latency DynamoDB's requests waited in `strategies`, the hot-item part and the crash window; `{ name: 'none', scale: 1 }` on the bare engine. */
  readonly latencyProfile: LatencyProfileLabel;
  readonly workload: {
    readonly batches: number;
    readonly distinctEvents: number;
    readonly inBatchDuplicates: number;
    readonly redeliveries: number;
    readonly redeliveryPattern: RedeliveryPattern;
    readonly pages: number;
    readonly days: number;
  };
  /** Every figure of each strategy under the run's profile (the last of `profiles`). */
  readonly strategies: readonly StrategyReport[];
  /** The strategies' figures and costs per latency profile: `local` always, then the run's profile when it adds latency. */
  readonly profiles: readonly ProfileReport[];
  /** The SQL strategy through the Data API, per latency profile, apart from the DynamoDB strategies (no write units); null when skipped. */
  readonly sql: SqlReport | null;
  /** Invocations dying after their effects, per strategy (and, for the peer, between its effect and its COMPLETED update): effects applied twice. Empty when skipped. */
  readonly crashWindow: readonly CrashWindowRow[];
  /** The `powertools` strategy: which package and processor ran as the peer, and whether it processed a batch's records concurrently. */
  readonly peer: PeerDescription;
  /** The hot-item part: concurrent consumers on one table through the contract layer; empty when skipped. */
  readonly hotItem: readonly HotItemReport[];
  readonly coldStart: readonly ColdStart[];
  readonly endToEnd: EndToEnd | null;
  readonly machine: Machine;
  /** The 1-minute load average when the run started and ended: other work on the machine skews events per second. */
  readonly loadAverage: { readonly start: number; readonly end: number };
  readonly durationSeconds: number;
  /** When the run started, ISO-8601 (docs/scale.md names the day of the run it was computed from). */
  readonly date: string;
}

/** Runs the planned benchmark against the given engines. */
export async function runBenchmark(endpoints: BenchmarkEndpoints, plan: BenchmarkPlan): Promise<BenchmarkReport> {
  const started = performance.now();
  const date = new Date().toISOString();
  const load = os.loadavg()[0] ?? 0;
  const { settings, workload } = plan;
  const bare: LatencyProfileLabel = { name: LATENCY_DEFAULTS.profile, scale: LATENCY_DEFAULTS.scale };
  const latency = endpoints.latency ?? bare;
  const floor = writeUnitFloor(workload).perEvent;
  const dynamodbStrategies = settings.strategies.length > 0;
  const gateway = latency.name === 'none' || !dynamodbStrategies ? undefined : await startGatewayProcess(endpoints.dynamodb, latency, settings.seed);
  try {
    const profiles: { report: ProfileReport; strategies: StrategyReport[] }[] = [];
    const throughputProfiles = gateway ? ([[bare, endpoints.dynamodb], [latency, gateway.endpoint]] as const) : ([[bare, endpoints.dynamodb]] as const);
    for (const [label, endpoint] of dynamodbStrategies ? throughputProfiles : []) {
      const measured = await measureThroughput(endpoint, workload, settings, label);
      const strategies = settings.strategies.map((name) => summarize(name, measured.get(name) ?? [], workload.deliveries));
      profiles.push({ report: profileReport(label, strategies, profiles[0]?.strategies ?? strategies, floor, workload.deliveries), strategies });
    }
    const sql = endpoints.postgres && settings.sql ? await measureSql(endpoints.postgres, workload, latency.name === 'none' ? [bare] : [bare, latency], settings) : null;
    const hotItem = await hotItemsOf(endpoints.dynamodb, plan, latency);
    const crashWindow = await crashWindowOf(gateway?.endpoint ?? endpoints.dynamodb, plan);
    const coldStart = settings.coldStartSamples > 0 ? await coldStarts(settings) : [];
    const endToEnd = endpoints.sqs && settings.endToEndMessages > 0 ? await endToEndOf(endpoints.sqs, settings) : null;
    return {
      events: workload.deliveries,
      duplicateRate: settings.duplicateRate,
      batchSize: settings.batchSize,
      seed: settings.seed,
      rounds: settings.rounds,
      latencyProfile: latency,
      workload: { batches: workload.batches.length, distinctEvents: workload.distinctEvents, inBatchDuplicates: workload.inBatchDuplicates, redeliveries: workload.redeliveries, redeliveryPattern: settings.redeliveries, pages: settings.pages, days: settings.days },
      strategies: profiles.at(-1)?.strategies ?? [],
      profiles: profiles.map(({ report }) => report),
      sql,
      crashWindow,
      peer: describePeer(),
      hotItem,
      coldStart,
      endToEnd,
      machine: describeMachine(),
      loadAverage: { start: load, end: os.loadavg()[0] ?? 0 },
      durationSeconds: (performance.now() - started) / 1000,
      date,
    };
  } finally {
    await gateway?.stop();
  }
}

/** A warm-up round on the first batches, then the measured rounds; each round runs every strategy, in a rotated order. */
async function measureThroughput(endpoint: string, workload: Workload, settings: BenchmarkSettings, latency: LatencyProfileLabel): Promise<Map<StrategyName, RunMeasurement[]>> {
  const clients = runClients(endpoint);
  const warmup = workload.batches.slice(0, Math.ceil(settings.warmupEvents / settings.batchSize));
  const total = settings.strategies.length * (warmup.length + settings.rounds * workload.batches.length);
  let done = 0;
  const onBatch = (): void => settings.progress?.update('batches', ++done, total);
  const measured = new Map<StrategyName, RunMeasurement[]>(settings.strategies.map((name) => [name, []]));
  try {
    const warm = warmup.length > 0 ? ` after a warm-up of ${warmup.length} batches` : '';
    settings.progress?.phase(`throughput, latency profile ${latencyLabel(latency)}: ${settings.strategies.join(', ')}; ${workload.deliveries} records x ${settings.rounds} rounds${warm}`);
    for (let round = warmup.length > 0 ? -1 : 0; round < settings.rounds; round++) {
      for (const name of rotate(settings.strategies, round + 1)) {
        const run = await runStrategy(name, workload, clients, onBatch, round < 0 ? warmup : workload.batches);
        if (round >= 0) measured.get(name)?.push(run);
      }
    }
    settings.progress?.done();
    return measured;
  } finally {
    clients.connections.close();
    for (const client of [clients.admin, clients.data]) client.destroy();
  }
}

/** The hot-item part, when planned (`hotItemEvents` > 0 and `batch` or `powertools` among the strategies). */
async function hotItemsOf(engine: string, plan: BenchmarkPlan, latency: LatencyProfileLabel): Promise<HotItemReport[]> {
  const { settings, hotItemWorkloads } = plan;
  if (hotItemWorkloads.size === 0) return [];
  return measureHotItems(engine, { workloads: hotItemWorkloads, consumers: settings.hotItemConsumers, shards: settings.hotItemShards, latency, seed: settings.seed, progress: settings.progress });
}

function runClients(endpoint: string): RunClients {
  const data: DynamoDBClient = dynamoDbClient(endpoint);
  return { admin: dynamoDbClient(endpoint), data, meter: meterRequests(data), connections: countConnections() };
}

function rotate<T>(items: readonly T[], by: number): T[] {
  const shift = ((by % items.length) + items.length) % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

/** The crash-window part on its workload, when planned and a DynamoDB strategy runs; every strategy, under the run's profile. */
async function crashWindowOf(endpoint: string, plan: BenchmarkPlan): Promise<CrashWindowRow[]> {
  if (plan.crashWindowWorkload === undefined || plan.settings.strategies.length === 0) return [];
  return measureCrashWindow(endpoint, plan.crashWindowWorkload, plan.settings.strategies, { seed: plan.settings.seed, crashRate: plan.settings.crashWindowRate, functionTimeoutMs: plan.settings.crashWindowTimeoutMs, progress: plan.settings.progress });
}

async function coldStarts(settings: BenchmarkSettings): Promise<ColdStart[]> {
  const handlers = coldStartHandlers(settings.strategies);
  const bundles = handlers.length * SDK_PLACEMENTS.length;
  settings.progress?.phase(`cold start: bundling ${handlers.length} handlers (${handlers.map(({ handler }) => handler).join(', ')}) with the SDK ${SDK_PLACEMENTS.join(' and ')}, ${settings.coldStartSamples} loads of each`);
  let done = 0;
  const total = bundles * settings.coldStartSamples;
  const results = await measureColdStarts(handlers, settings.coldStartSamples, () => settings.progress?.update('loads', ++done, total));
  settings.progress?.done();
  return results;
}

async function endToEndOf(endpoint: string, settings: BenchmarkSettings): Promise<EndToEnd> {
  settings.progress?.phase(`end to end: ${settings.endToEndMessages} messages through fauxqs, raw and through the SQS mapping, ${END_TO_END_ROUNDS} rounds each`);
  const sqs = sqsClient(endpoint);
  try {
    return await measureEndToEnd(sqs, settings.endToEndMessages);
  } finally {
    sqs.destroy();
  }
}
