/** One strategy's line of the report: its measured rounds reduced to medians and per-event figures. */
import { median } from './median';
import type { StrategyName } from './strategies';
import type { RunMeasurement } from './throughput';

export interface StrategyReport {
  readonly name: StrategyName;
  /** Median over the measured rounds. */
  readonly eventsPerSecond: number;
  /** HTTP attempts to DynamoDB per record delivered. */
  readonly requestsPerEvent: number;
  readonly writeUnitsPerEvent: number;
  /** Every round's counts equal the expected ones, and every record succeeded within the queue's receives. */
  readonly exact: boolean;
  /** Records redelivered per round after the handler reported them failed (SQS would, after their visibility timeout). */
  readonly redeliveredPerRound: number;
  readonly readUnitsPerEvent: number;
  /** Write units of cancelled transactions, per event (part of `writeUnitsPerEvent`). */
  readonly cancelledWriteUnitsPerEvent: number;
  /** Page views counted too many in the last round (negative: too few). */
  readonly extraViews: number;
  readonly roundsEventsPerSecond: readonly number[];
  /** Requests per round, by command. */
  readonly requestsByCommand: Readonly<Record<string, number>>;
  /** TCP connections opened per round: none once connections are open, as they are kept alive and reused. */
  readonly connectionsPerRound: number;
  /** CPU time of the benchmark's process (consumer, SDK) per event, in microseconds: the client's share of the work. */
  readonly clientCpuMicrosPerEvent: number;
  /** Lambda's billed duration per record delivered: each invocation's wall time rounded up to the millisecond, redeliveries included. */
  readonly lambdaMsPerEvent: number;
  /** Handler invocations per record delivered: one per batch, and one per redelivery of a batch's failed records. */
  readonly invocationsPerEvent: number;
}

/** Reduces a strategy's measured rounds of `events` records each. */
export function summarize(name: StrategyName, runs: readonly RunMeasurement[], events: number): StrategyReport {
  const perEvent = (pick: (run: RunMeasurement) => number): number => runs.reduce((sum, run) => sum + pick(run), 0) / (runs.length * events);
  return {
    name,
    eventsPerSecond: median(runs.map((run) => run.eventsPerSecond)),
    requestsPerEvent: perEvent((run) => run.capacity.requests),
    writeUnitsPerEvent: perEvent((run) => run.capacity.writeUnits),
    exact: runs.every((run) => run.exact),
    redeliveredPerRound: runs.reduce((sum, run) => sum + run.redelivered, 0) / runs.length,
    readUnitsPerEvent: perEvent((run) => run.capacity.readUnits),
    cancelledWriteUnitsPerEvent: perEvent((run) => run.capacity.cancelledWriteUnits),
    extraViews: runs.at(-1)?.extraViews ?? 0,
    roundsEventsPerSecond: runs.map((run) => run.eventsPerSecond),
    requestsByCommand: requestsByCommand(runs),
    connectionsPerRound: runs.reduce((sum, run) => sum + run.connections, 0) / runs.length,
    clientCpuMicrosPerEvent: perEvent((run) => run.cpuMs) * 1000,
    lambdaMsPerEvent: perEvent((run) => run.billedMs),
    invocationsPerEvent: perEvent((run) => run.invocations),
  };
}

function requestsByCommand(runs: readonly RunMeasurement[]): Record<string, number> {
  const byCommand: Record<string, number> = {};
  for (const run of runs) {
    for (const [command, count] of Object.entries(run.capacity.byCommand)) byCommand[command] = (byCommand[command] ?? 0) + count / runs.length;
  }
  return byCommand;
}
