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
import { LATENCY_DEFAULTS, type LatencyProfileLabel } from '../../emulator/gateway';
import { coldStartHandlers, measureColdStarts, SDK_PLACEMENTS, type ColdStart } from './coldstart';
import { END_TO_END_ROUNDS, measureEndToEnd, type EndToEnd } from './endtoend';
import { measureHotItems, type HotItemReport } from './hot-item-part';
import { describePeer, type PeerDescription } from './handlers/powertools';
import { describeMachine, type Machine } from './machine';
import { countConnections, meterRequests } from './metering';
import type { BenchmarkPlan, BenchmarkSettings } from './plan';
import type { StrategyName } from './strategies';
import { summarize, type StrategyReport } from './summary';
import { runStrategy, type RunClients, type RunMeasurement } from './throughput';
import type { RedeliveryPattern, Workload } from './workload';

export interface BenchmarkEndpoints {
  readonly dynamodb: string;
  /** fauxqs, for the end-to-end part. */
  readonly sqs?: string;
  /** The latency profile of a contract layer that `dynamodb` goes through, for the report. @default - none: the engine itself */
  readonly latencyProfile?: LatencyProfileLabel;
}

export interface BenchmarkReport {
  readonly events: number;
  readonly duplicateRate: number;
  readonly batchSize: number;
  readonly seed: number;
  readonly rounds: number;
  /** The latency DynamoDB's requests waited: `{ name: 'none', scale: 1 }` on the bare engine. */
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
  readonly strategies: readonly StrategyReport[];
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
}

/** Runs the planned benchmark against the given engines. */
export async function runBenchmark(endpoints: BenchmarkEndpoints, plan: BenchmarkPlan): Promise<BenchmarkReport> {
  const started = performance.now();
  const load = os.loadavg()[0] ?? 0;
  const { settings, workload } = plan;
  const measured = await measureThroughput(endpoints.dynamodb, workload, settings);
  const hotItem = await hotItemsOf(endpoints.dynamodb, plan);
  const coldStart = settings.coldStartSamples > 0 ? await coldStarts(settings) : [];
  const endToEnd = endpoints.sqs && settings.endToEndMessages > 0 ? await endToEndOf(endpoints.sqs, settings) : null;
  return {
    events: workload.deliveries,
    duplicateRate: settings.duplicateRate,
    batchSize: settings.batchSize,
    seed: settings.seed,
    rounds: settings.rounds,
    latencyProfile: endpoints.latencyProfile ?? { name: LATENCY_DEFAULTS.profile, scale: LATENCY_DEFAULTS.scale },
    workload: { batches: workload.batches.length, distinctEvents: workload.distinctEvents, inBatchDuplicates: workload.inBatchDuplicates, redeliveries: workload.redeliveries, redeliveryPattern: settings.redeliveries, pages: settings.pages, days: settings.days },
    strategies: settings.strategies.map((name) => summarize(name, measured.get(name) ?? [], workload.deliveries)),
    peer: describePeer(),
    hotItem,
    coldStart,
    endToEnd,
    machine: describeMachine(),
    loadAverage: { start: load, end: os.loadavg()[0] ?? 0 },
    durationSeconds: (performance.now() - started) / 1000,
  };
}

/** A warm-up round on the first batches, then the measured rounds; each round runs every strategy, in a rotated order. */
async function measureThroughput(endpoint: string, workload: Workload, settings: BenchmarkSettings): Promise<Map<StrategyName, RunMeasurement[]>> {
  const clients = runClients(endpoint);
  const warmup = workload.batches.slice(0, Math.ceil(settings.warmupEvents / settings.batchSize));
  const total = settings.strategies.length * (warmup.length + settings.rounds * workload.batches.length);
  let done = 0;
  const onBatch = (): void => settings.progress?.update('batches', ++done, total);
  const measured = new Map<StrategyName, RunMeasurement[]>(settings.strategies.map((name) => [name, []]));
  try {
    const warm = warmup.length > 0 ? ` after a warm-up of ${warmup.length} batches` : '';
    settings.progress?.phase(`throughput: ${settings.strategies.join(', ')}; ${workload.deliveries} records x ${settings.rounds} rounds${warm}`);
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
async function hotItemsOf(engine: string, plan: BenchmarkPlan): Promise<HotItemReport[]> {
  const { settings, hotItemWorkloads } = plan;
  if (hotItemWorkloads.size === 0) return [];
  return measureHotItems(engine, { workloads: hotItemWorkloads, consumers: settings.hotItemConsumers, shards: settings.hotItemShards, progress: settings.progress });
}

function runClients(endpoint: string): RunClients {
  const data: DynamoDBClient = dynamoDbClient(endpoint);
  return { admin: dynamoDbClient(endpoint), data, meter: meterRequests(data), connections: countConnections() };
}

function rotate<T>(items: readonly T[], by: number): T[] {
  const shift = ((by % items.length) + items.length) % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
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
