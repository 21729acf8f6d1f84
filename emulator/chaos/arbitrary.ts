/** The space of chaos schedules: fault rates, seeds, batch shapes, concurrency, event mix. */
import fc from 'fast-check';
import { STATEMENT_FAILURE_BEHAVIOURS } from '../gateway/data-api-service';
import type { Schedule } from './schedule';

const rate = (max: number) => fc.integer({ min: 0, max: Math.round(max * 100) }).map((percent) => percent / 100);

/** Schedules small enough to run in a few seconds each, wide enough to mix every fault. */
export function scheduleArbitrary(options: { minEvents?: number; maxEvents?: number } = {}): fc.Arbitrary<Schedule> {
  return fc
    .record({
      seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
      events: fc.integer({ min: options.minEvents ?? 60, max: options.maxEvents ?? 220 }),
      pageViewShare: fc.integer({ min: 3, max: 9 }).map((tenths) => tenths / 10),
      paymentShare: fc.integer({ min: 1, max: 3 }).map((tenths) => tenths / 10),
      duplicateRate: rate(0.4),
      producerRetryRate: rate(0.2),
      crashRate: rate(0.4),
      slowRate: rate(0.15),
      throttleRate: rate(0.1),
      serverErrorRate: rate(0.03),
      serializationFailureRate: rate(0.1),
      dataApiStatementFailures: fc.constantFrom(...STATEMENT_FAILURE_BEHAVIOURS),
      poisonRate: rate(0.06),
      schemaV2Rate: rate(0.05),
      sqsBatchSize: fc.constantFrom(1, 5, 10, 50, 100),
      sqsBatchingWindowSeconds: fc.constantFrom(0, 1),
      streamBatchSize: fc.constantFrom(1, 7, 25, 100),
      concurrency: fc.integer({ min: 1, max: 3 }),
    })
    .map((schedule) => ({
      ...schedule,
      // Lambda refuses SQS batches over 10 without a batching window.
      sqsBatchingWindowSeconds: schedule.sqsBatchSize > 10 ? 1 : schedule.sqsBatchingWindowSeconds,
      timeScale: 1 / 180,
    }));
}
