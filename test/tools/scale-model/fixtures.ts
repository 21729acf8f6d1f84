/**
 * A small bench run built by hand, with round numbers, so that every figure of the model can be
 * worked out on paper: 1,000 records a round, batches of 100, `batch` at 2,000 events/s with 25
 * transactions a round, `powertools` at 200 events/s with 3.5 requests per record.
 */
import type { DeployedSettings } from '../../../tools/scale-model';

/** Settings with round numbers: 2048 MB is more than one vCPU's worth (share 1) and 2 GB to bill. */
export const TEST_SETTINGS: DeployedSettings = {
  memoryMb: 2048,
  queueMaxConcurrency: 16,
  counterShards: 256,
  maxShards: 1000,
  shardsPerConcurrentInvocation: 16,
  streamBatchSize: 100,
  producerBatchEntries: 10,
};

/** The bench JSON, as `npm run bench -- --json` writes it (with fields the model ignores). */
export function benchJson(): Record<string, unknown> {
  return {
    events: 1000,
    duplicateRate: 0.1,
    batchSize: 100,
    strategies: [
      strategy('batch', { eventsPerSecond: 2000, requestsPerEvent: 0.03, writeUnitsPerEvent: 3, readUnitsPerEvent: 0.05, requestsByCommand: { TransactWriteItemsCommand: 25, BatchGetItemCommand: 5 }, clientCpuMicrosPerEvent: 50 }),
      strategy('powertools', { eventsPerSecond: 200, requestsPerEvent: 3.5, writeUnitsPerEvent: 3.5, readUnitsPerEvent: 0, requestsByCommand: { PutItemCommand: 1500, UpdateItemCommand: 2000 }, clientCpuMicrosPerEvent: 400 }),
    ],
    seed: 7,
    rounds: 3,
    workload: { batches: 10, distinctEvents: 900, inBatchDuplicates: 50, redeliveries: 50, redeliveryPattern: 'clustered', pages: 50, days: 2 },
    hotItem: [
      hotItem('batch', 1, 1, 'page#page-1', 0.05, 0),
      hotItem('batch', 64, 16, 'day#2026-12-01#shard-3', 0.002, 0.5),
      hotItem('powertools', 1, 1, 'day#2026-12-01', 0.5, 0),
    ],
    coldStart: [],
    endToEnd: null,
    machine: { cpus: 4, cpuModel: 'Test CPU', memoryGiB: 16, node: 'v20.0.0', platform: 'linux', dynamodbLocal: '10.3.0' },
    loadAverage: { start: 0.5, end: 0.7 },
    durationSeconds: 60,
  };
}

function strategy(name: string, figures: Record<string, unknown>): Record<string, unknown> {
  return { name, exact: true, cancelledWriteUnitsPerEvent: 0, extraViews: 0, roundsEventsPerSecond: [], connectionsPerRound: 0, ...figures };
}

function hotItem(strategyName: string, shards: number, consumers: number, key: string, writeUnitsPerEvent: number, conflictsPer1000: number): Record<string, unknown> {
  return {
    strategy: strategyName,
    shards,
    consumers,
    eventsPerSecond: 1000,
    vsNoSharedCounter: 0.9,
    conflictsPer1000,
    exact: true,
    redeliveriesPer1000: 0,
    beyondMaxReceiveCount: 0,
    requestsPerEvent: 0.03,
    writeUnitsPerEvent: 3,
    hottestItem: { key, writeUnitsPerEvent, writeUnitsPerSecond: 50 },
    noSharedCounter: {},
  };
}
