/**
 * One run of one strategy over the whole workload, on fresh tables: how long it took, what it asked
 * of DynamoDB, and whether the counts came out exact.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { performance } from 'node:perf_hooks';
import { capacityOf, type Capacity } from './capacity';
import { invocationContext } from './invocation-context';
import type { ConnectionCounter, RequestMeter } from './metering';
import { createStrategyHandler, type StrategyName } from './strategies';
import { compareCounts, createBenchTables, deleteBenchTables, readCounters } from './tables';
import type { Workload } from './workload';

/** The clients a run uses: `data` is metered and used by the handler only; `admin` sets up and checks. */
export interface RunClients {
  readonly admin: DynamoDBClient;
  readonly data: DynamoDBClient;
  readonly meter: RequestMeter;
  readonly connections: ConnectionCounter;
}

export interface RunMeasurement {
  readonly eventsPerSecond: number;
  readonly capacity: Capacity;
  /** The counts equal the expected ones and the handler reported no record failed (nothing here fails). */
  readonly exact: boolean;
  /** Page views counted too many (negative: too few). */
  readonly extraViews: number;
  /** TCP connections opened during the run. */
  readonly connections: number;
  /** CPU time of this process (the consumer and the SDK, not DynamoDB Local), in ms. */
  readonly cpuMs: number;
}

/** Runs `strategy` over `batches` (all of the workload's unless given), then checks the counts when it ran them all. */
export async function runStrategy(strategy: StrategyName, workload: Workload, clients: RunClients, onBatch: () => void = () => undefined, batches = workload.batches): Promise<RunMeasurement> {
  const tables = await createBenchTables(clients.admin, `bench-${strategy}`);
  try {
    const handler = createStrategyHandler(strategy, { ...tables, dynamodb: clients.data });
    clients.meter.reset();
    clients.connections.reset();
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    let failedRecords = 0;
    for (const batch of batches) {
      failedRecords += (await handler(batch, invocationContext(`bench-${strategy}`))).batchItemFailures.length;
      onBatch();
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const connections = clients.connections.opened;
    const records = batches.reduce((sum, batch) => sum + batch.Records.length, 0);
    const counts = batches === workload.batches ? compareCounts(workload.expected, await readCounters(clients.admin, tables.countersTable)) : { mismatches: 0, extraViews: 0 };
    return {
      eventsPerSecond: records / seconds,
      capacity: capacityOf(clients.meter.calls),
      exact: counts.mismatches === 0 && failedRecords === 0,
      extraViews: counts.extraViews,
      connections,
      cpuMs: (cpu.user + cpu.system) / 1000,
    };
  } finally {
    await deleteBenchTables(clients.admin, tables);
  }
}
