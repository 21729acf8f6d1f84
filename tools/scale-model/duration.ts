/**
 * How long one invocation of a batch takes on Lambda: the thing every per-queue, concurrency and
 * compute-cost figure rests on, and the one the bench cannot measure. Two answers: projected (the
 * bench's CPU time at the function's share of a vCPU, plus what the batch's DynamoDB requests
 * waited: measured under the bench's latency profile when it ran under one, else its round trips
 * at an assumed latency, one after another) and measured (what the batch took in the bench).
 */
import { ASSUMED, LAMBDA } from './assumptions';
import type { BenchRun, BenchStrategy } from './bench-input';
import { assumed, derive, documented, measured, over, plus, times, type Figure } from './figures';

/** The SDK command whose latency is {@link ASSUMED.transactWriteLatencyMs}; every other one has {@link ASSUMED.requestLatencyMs}. */
export const TRANSACT_WRITE_COMMAND = 'TransactWriteItemsCommand';

export interface RoundTrips {
  readonly command: string;
  readonly perBatch: Figure;
  readonly latencyMs: Figure;
  readonly ms: Figure;
}

export interface BatchDuration {
  readonly strategy: string;
  /** The bench process's CPU time for one batch, on the bench machine. */
  readonly benchCpuMs: Figure;
  /** The vCPU share the function's memory buys (at most 1: one thread uses one vCPU). */
  readonly vcpuShare: Figure;
  readonly lambdaCpuMs: Figure;
  readonly roundTrips: readonly RoundTrips[];
  /**
   * When the bench ran under a latency profile: the batch's measured time less the bench's CPU,
   * which is what its requests waited, overlaps included; it replaces the round trips one after
   * another at the assumed latencies, which overstate a strategy whose requests run at once (the
   * peer's records, batch commit's transactions).
   */
  readonly waitedMs?: Figure;
  readonly projectedMs: Figure;
  /** Batch size over the measured events per second against DynamoDB Local. */
  readonly localMs: Figure;
}

/** The duration of one batch of `run.batchSize` records of `strategy`, for functions of `memoryMb`. */
export function batchDuration(run: BenchRun, strategy: BenchStrategy, memoryMb: number): BatchDuration {
  const batchSize = measured(run.batchSize);
  const benchCpuMs = times(measured(strategy.clientCpuMicrosPerEvent / 1000), batchSize);
  const vcpuShare = derive(vcpuShareOf(memoryMb), documented(memoryMb));
  const lambdaCpuMs = over(benchCpuMs, times(vcpuShare, assumed(ASSUMED.vcpuVersusBenchCore.value)));
  const roundTrips = Object.entries(strategy.requestsByCommand).map(([command, count]) => roundTripsOf(command, over(times(measured(count), batchSize), measured(run.events))));
  const localMs = measured((run.batchSize / strategy.eventsPerSecond) * 1000);
  const waitedMs = run.latencyProfile.name === 'none' ? undefined : derive(Math.max(0, localMs.value - benchCpuMs.value), localMs, benchCpuMs);
  const waits = waitedMs ? [waitedMs] : roundTrips.map((trips) => trips.ms);
  return { strategy: strategy.name, benchCpuMs, vcpuShare, lambdaCpuMs, roundTrips, waitedMs, projectedMs: plus(lambdaCpuMs, ...waits), localMs };
}

/** The share of a vCPU that `memoryMb` buys: one vCPU at {@link LAMBDA.mibPerVcpu}, at most one (a batch runs on one thread). */
export function vcpuShareOf(memoryMb: number): number {
  return Math.min(1, memoryMb / LAMBDA.mibPerVcpu.value);
}

function roundTripsOf(command: string, perBatch: Figure): RoundTrips {
  const latencyMs = assumed(command === TRANSACT_WRITE_COMMAND ? ASSUMED.transactWriteLatencyMs.value : ASSUMED.requestLatencyMs.value);
  return { command, perBatch, latencyMs, ms: times(perBatch, latencyMs) };
}

/** Milliseconds per event of a duration per batch. */
export function perEvent(batchMs: Figure, batchSize: number): Figure {
  return over(batchMs, measured(batchSize));
}
