/**
 * The strategies' figures under one latency profile, as the issue's JSON names them: what each
 * strategy does per invocation (events per second, billed milliseconds), what it asks of DynamoDB
 * (requests, read and write units per record) and what a million records cost, beside the
 * workload's write-unit floor. `local` is the bare engine; `aws` the contract layer waiting AWS's
 * latencies (`emulator/gateway/latency-profile.ts`).
 */
import type { LatencyProfileLabel } from '../../emulator/gateway';
import { CONSUMER_DEFAULTS } from '../../lib/defaults';
import { vcpuShareOf } from '../scale-model/duration';
import { costPerMillion, type CostPerMillion } from './cost';
import type { StrategyName } from './strategies';
import type { StrategyReport } from './summary';

export type ProfileName = 'local' | 'aws';

export interface ProfileStrategy {
  readonly name: StrategyName;
  /** Records per second of one consumer handling batches one after another: one invocation's throughput. */
  readonly eventsPerSecond: number;
  /**
   * Lambda's billed milliseconds per record at the deployed memory: {@link wallMsPerEvent} with its
   * CPU part stretched to the share of a vCPU that memory buys (projected: the bench runs on a full core).
   */
  readonly lambdaMsPerEvent: number;
  readonly requestsPerEvent: number;
  readonly writeUnitsPerEvent: number;
  readonly readUnitsPerEvent: number;
  readonly dollarsPerMillionEvents: number;
  readonly exact: boolean;
  /** `dollarsPerMillionEvents` by service. */
  readonly cost: CostPerMillion;
  /** Each invocation's measured wall time rounded up to the millisecond, per record: what Lambda would bill on a full core. */
  readonly wallMsPerEvent: number;
  /** The consumer's CPU per record, in ms, on the bench machine's core (measured on the bare engine, with no contract layer in the process). */
  readonly cpuMsPerEvent: number;
}

export interface ProfileReport {
  readonly name: ProfileName;
  /** The profile as the contract layer ran it, with its scale. */
  readonly latencyProfile: LatencyProfileLabel;
  readonly strategies: readonly ProfileStrategy[];
  /** The write units per record that the dedup records and the distinct items of each batch must cost (`floor.ts`). */
  readonly writeUnitFloorPerEvent: number;
}

/**
 * The profile's report from its strategies' summaries. `bare` are the same strategies' summaries on
 * the bare engine, whose CPU figures have no contract layer's work in them (it runs in the bench's
 * process); a run on the bare engine passes its own.
 */
export function profileReport(latency: LatencyProfileLabel, strategies: readonly StrategyReport[], bare: readonly StrategyReport[], writeUnitFloorPerEvent: number, events: number): ProfileReport {
  const cpuMsOf = (strategy: StrategyReport): number => (bare.find((row) => row.name === strategy.name) ?? strategy).clientCpuMicrosPerEvent / 1000;
  return { name: profileNameOf(latency), latencyProfile: latency, strategies: strategies.map((strategy) => profileStrategy(strategy, cpuMsOf(strategy), events)), writeUnitFloorPerEvent };
}

/** The share of a vCPU that the deployed consumers' memory buys. */
export function deployedVcpuShare(memoryMb: number = CONSUMER_DEFAULTS.memorySize): number {
  return vcpuShareOf(memoryMb);
}

/** `local` for the bare engine, the latency profile's name otherwise. */
export function profileNameOf(latency: LatencyProfileLabel): ProfileName {
  return latency.name === 'none' ? 'local' : latency.name;
}

function profileStrategy(strategy: StrategyReport, cpuMsPerEvent: number, events: number): ProfileStrategy {
  const lambdaMsPerEvent = strategy.lambdaMsPerEvent + cpuMsPerEvent * (1 / deployedVcpuShare() - 1);
  const cost = costPerMillion({ ...strategy, lambdaMsPerEvent, redeliveriesPerEvent: strategy.redeliveredPerRound / events });
  return {
    name: strategy.name,
    eventsPerSecond: strategy.eventsPerSecond,
    lambdaMsPerEvent,
    requestsPerEvent: strategy.requestsPerEvent,
    writeUnitsPerEvent: strategy.writeUnitsPerEvent,
    readUnitsPerEvent: strategy.readUnitsPerEvent,
    dollarsPerMillionEvents: cost.total,
    exact: strategy.exact,
    cost,
    wallMsPerEvent: strategy.lambdaMsPerEvent,
    cpuMsPerEvent,
  };
}
