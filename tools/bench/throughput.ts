/**
 * One run of one strategy over the whole workload, on fresh tables: how long it took, what it asked
 * of DynamoDB, and whether the counts came out exact.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { performance } from 'node:perf_hooks';
import type { BatchHandler } from '../../lambdas/runtime';
import { QUEUE_CONSUMER_DEFAULTS } from '../../lib/defaults';
import { capacityOf, type Capacity } from './capacity';
import { invocationContext } from './invocation-context';
import type { ConnectionCounter, RequestMeter } from './metering';
import { createStrategyHandler, type StrategyName } from './strategies';
import { compareCounts, createBenchTables, deleteBenchTables, readCounters } from './tables';
import { receivedAgain, type Workload } from './workload';

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
  /** The counts equal the expected ones and every record succeeded within the queue's receives. */
  readonly exact: boolean;
  /** Records delivered again because the handler reported them failed (the peer's in-batch duplicates). */
  readonly redelivered: number;
  /** Page views counted too many (negative: too few). */
  readonly extraViews: number;
  /** TCP connections opened during the run. */
  readonly connections: number;
  /** CPU time of this process (the consumer and the SDK, not DynamoDB Local), in ms. */
  readonly cpuMs: number;
  /** Handler invocations, redeliveries included. */
  readonly invocations: number;
  /** What Lambda would bill for them: each invocation's duration rounded up to the millisecond, summed. */
  readonly billedMs: number;
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
    let redelivered = 0;
    const billing = { invocations: 0, billedMs: 0 };
    for (const batch of batches) {
      const delivery = await deliver(handler, batch, `bench-${strategy}`, billing);
      failedRecords += delivery.failed;
      redelivered += delivery.redelivered;
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
      redelivered,
      extraViews: counts.extraViews,
      connections,
      cpuMs: (cpu.user + cpu.system) / 1000,
      ...billing,
    };
  } finally {
    await deleteBenchTables(clients.admin, tables);
  }
}

/** Invocations so far and their billed duration (Lambda rounds each up to the millisecond). */
export interface Billing {
  invocations: number;
  billedMs: number;
}

/**
 * Delivers a batch, then its failed records again until they succeed or reach the queue's
 * `maxReceiveCount`, as SQS would. The redelivery comes at once, not after the visibility timeout:
 * its requests and its handler time are counted, the wait is not. Only the peer fails records
 * here: two copies of one event in one batch run at once, and the second finds the first's
 * idempotency record in progress.
 */
export async function deliver(handler: BatchHandler, batch: SQSEvent, functionName: string, billing: Billing): Promise<{ failed: number; redelivered: number }> {
  let pending: readonly SQSRecord[] = batch.Records;
  let redelivered = 0;
  for (let receives = 1; ; receives += 1) {
    const started = performance.now();
    const response = await handler(receives === 1 ? batch : { Records: [...pending] }, invocationContext(functionName));
    billing.invocations += 1;
    billing.billedMs += Math.ceil(performance.now() - started);
    const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
    pending = pending.filter((record) => failed.has(record.messageId)).map(receivedAgain);
    if (pending.length === 0 || receives >= QUEUE_CONSUMER_DEFAULTS.maxReceiveCount) return { failed: pending.length, redelivered };
    redelivered += pending.length;
  }
}
