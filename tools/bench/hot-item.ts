/**
 * The hot-item scenario: 1, 4 and 16 consumers at once on one table, through the AWS contract
 * layer so that concurrent transactions on one item cancel each other with `TransactionConflict`
 * as on AWS (DynamoDB Local never conflicts). Each consumer is one Lambda execution environment
 * with its own SDK client; they take batches from one queue, and a record a consumer reports
 * failed comes back later with its receive count raised, as SQS would redeliver it.
 *
 * Every case runs twice: on page views that also add to their day's counter (the item every
 * transaction shares) and on the same views without it, whose events per second are the ceiling
 * the shared counter is measured against (`hot-item-part.ts` pairs them).
 *
 * A record comes back until it commits: a run is exact when the counts are, and it reports how
 * many records were received more often than the example queue's `maxReceiveCount`, which on AWS
 * would have reached the DLQ (to be redriven) instead.
 */
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { performance } from 'node:perf_hooks';
import { dynamoDbClient } from '../../emulator/engines';
import { LatencyModel, startDynamoDbGateway, type DynamoDbGateway, type LatencyProfileLabel } from '../../emulator/gateway';
import type { BatchHandler } from '../../lambdas/runtime';
import { QUEUE_CONSUMER_DEFAULTS } from '../../lib/defaults';
import { capacityOf, writeUnitsByItem } from './capacity';
import { createHotItemHandler, type HotItemCounting, type HotItemStrategy } from './handlers/hot-item';
import { invocationContext } from './invocation-context';
import { meterRequests, type MeteredCall } from './metering';
import { compareCounts, createBenchTables, deleteBenchTables, readCounters } from './tables';
import { receivedAgain, type Workload } from './workload';

/** A record still failing after this many receives means the consumers live-lock: the run fails rather than loop. */
const GIVE_UP_RECEIVES = 100;

/** One run: a strategy, its counting, a number of consumers. */
export interface HotItemCase extends HotItemCounting {
  readonly strategy: HotItemStrategy;
  readonly consumers: number;
}

/** What one run measured. */
export interface HotItemMeasurement extends HotItemCase {
  readonly eventsPerSecond: number;
  /** Requests the contract layer cancelled or refused because another request held one of their items. */
  readonly conflicts: number;
  /** Records that failed their invocation (retries spent) and came back in a later batch. */
  readonly redeliveredRecords: number;
  /** Records received more than the example queue's `maxReceiveCount` times: on AWS, DLQ traffic. */
  readonly beyondMaxReceiveCount: number;
  readonly requests: number;
  readonly writeUnits: number;
  /** The item that took the most write units (its key's value), and how many. */
  readonly hottestItem: { readonly key: string; readonly writeUnits: number };
  readonly seconds: number;
  /** The counts, shards summed, equal the expected ones. */
  readonly exact: boolean;
}

/** Runs one case over the workload on fresh tables; `engine` is DynamoDB Local's own endpoint. */
export async function runHotItemCase(engine: string, gateway: DynamoDbGateway, workload: Workload, run: HotItemCase): Promise<HotItemMeasurement> {
  const admin = dynamoDbClient(engine);
  const tables = await createBenchTables(admin, `bench-hot-${run.strategy}`);
  const clients = Array.from({ length: run.consumers }, () => dynamoDbClient(gateway.endpoint));
  try {
    const meters = clients.map((client) => meterRequests(client));
    const handlers = clients.map((dynamodb) => createHotItemHandler(run.strategy, { ...tables, dynamodb }, run));
    const conflictsBefore = gateway.stats().transactionConflicts;
    const queue = new BatchQueue(workload.batches);
    const started = performance.now();
    await Promise.all(handlers.map((handler, index) => consume(handler, queue, `bench-hot-${run.strategy}-${index}`)));
    const seconds = (performance.now() - started) / 1000;
    const calls = meters.flatMap((meter) => meter.calls);
    const counts = compareCounts(expectedFor(workload, run), await readCounters(admin, tables.countersTable));
    return {
      ...run,
      eventsPerSecond: workload.deliveries / seconds,
      conflicts: gateway.stats().transactionConflicts - conflictsBefore,
      redeliveredRecords: queue.redelivered,
      beyondMaxReceiveCount: queue.beyondMaxReceiveCount,
      ...requestFigures(calls),
      seconds,
      exact: counts.mismatches === 0,
    };
  } finally {
    for (const client of clients) client.destroy();
    await deleteBenchTables(admin, tables);
    admin.destroy();
  }
}

/** Starts the contract layer in front of DynamoDB Local for the scenario, waiting `latency` on every request (none by default). */
export function startHotItemGateway(engine: string, latency?: LatencyProfileLabel, seed?: number): Promise<DynamoDbGateway> {
  if (latency === undefined || latency.name === 'none') return startDynamoDbGateway(engine);
  return startDynamoDbGateway(engine, { latency: new LatencyModel(latency, { seed }) });
}

async function consume(handler: BatchHandler, queue: BatchQueue, functionName: string): Promise<void> {
  for (let batch = queue.next(); batch !== undefined; batch = queue.next()) {
    const response = await handler(batch, invocationContext(functionName));
    const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
    queue.redeliver(batch.Records.filter((record) => failed.has(record.messageId)));
  }
}

/** The batches still to deliver, shared by the consumers; failed records join it again at the end. */
class BatchQueue {
  public redelivered = 0;
  public beyondMaxReceiveCount = 0;
  private readonly pending: SQSEvent[];

  public constructor(batches: readonly SQSEvent[]) {
    this.pending = [...batches];
  }

  public next(): SQSEvent | undefined {
    return this.pending.shift();
  }

  /** @throws Error when a record has failed {@link GIVE_UP_RECEIVES} receives */
  public redeliver(records: readonly SQSRecord[]): void {
    if (records.length === 0) return;
    const again = records.map(receivedAgain);
    for (const record of again) {
      const receives = Number(record.attributes.ApproximateReceiveCount);
      if (receives > GIVE_UP_RECEIVES) throw new Error(`record ${record.messageId} failed ${GIVE_UP_RECEIVES} receives: the consumers live-lock`);
      if (receives === QUEUE_CONSUMER_DEFAULTS.maxReceiveCount + 1) this.beyondMaxReceiveCount += 1;
    }
    this.redelivered += again.length;
    this.pending.push({ Records: again });
  }
}

function requestFigures(calls: readonly MeteredCall[]): Pick<HotItemMeasurement, 'requests' | 'writeUnits' | 'hottestItem'> {
  const capacity = capacityOf(calls);
  let hottestItem = { key: '', writeUnits: 0 };
  for (const [key, writeUnits] of writeUnitsByItem(calls)) if (writeUnits > hottestItem.writeUnits) hottestItem = { key, writeUnits };
  return { requests: capacity.requests, writeUnits: capacity.writeUnits, hottestItem };
}

/** The workload's expected counts, without the day counters when the case has none. */
function expectedFor(workload: Workload, run: HotItemCase): Map<string, number> {
  return new Map([...workload.expected].filter(([key]) => run.sharedCounter || !key.startsWith('day#')));
}
