/**
 * One chaos schedule: a workload and a fault mix run on a fresh copy of the stack that shares the
 * engines with the other schedules. The schedule maps one to one onto `eo demo` flags, so that a
 * failing schedule can be rerun on its own.
 */
import type { Engines } from '../engines';
import { DeliveryCounter } from '../demo/deliveries';
import type { DemoReport } from '../demo/report';
import { createProgress } from '../../cli/progress';
import { runScenario } from '../demo/run';
import { DeliveryFaultPlan } from '../faults/plan';
import { seededRandom } from '../faults/random';
import type { SynthesizedStack } from '../stack/cloud-assembly';
import { startLocalStack } from '../stack/runtime';
import type { StatementFailureBehaviour } from '../gateway/data-api-service';

export interface Schedule {
  readonly seed: number;
  readonly events: number;
  readonly pageViewShare: number;
  readonly paymentShare: number;
  readonly duplicateRate: number;
  readonly producerRetryRate: number;
  readonly crashRate: number;
  readonly slowRate: number;
  readonly throttleRate: number;
  readonly serverErrorRate: number;
  readonly serializationFailureRate: number;
  /** What a failed Data API statement does to its transaction: AWS is documented to abort it; both are handled. */
  readonly dataApiStatementFailures: StatementFailureBehaviour;
  readonly poisonRate: number;
  readonly schemaV2Rate: number;
  readonly sqsBatchSize: number;
  readonly sqsBatchingWindowSeconds: number;
  readonly streamBatchSize: number;
  /** SQS pollers per mapping and execution environments per function. */
  readonly concurrency: number;
  readonly timeScale: number;
}

export interface ScheduleRun {
  readonly report: DemoReport;
  /** Faults decided per batch, by kind. */
  readonly decided: { readonly duplicate: number; readonly crash: number; readonly slow: number };
}

let copies = 0;

/** Runs one schedule on its own copy of the stack; the engines stay up for the next. */
export async function runSchedule(schedule: Schedule, shared: { engines: Engines; synthesized: SynthesizedStack }): Promise<ScheduleRun> {
  copies += 1;
  const faults = new DeliveryFaultPlan(seededRandom(schedule.seed ^ 0xfa17), { duplicate: schedule.duplicateRate, crash: schedule.crashRate, slow: schedule.slowRate });
  const deliveries = new DeliveryCounter();
  const started = Date.now();
  const stack = await startLocalStack({
    engines: shared.engines,
    synthesized: shared.synthesized,
    nameSuffix: `-c${process.pid}x${copies}`,
    seed: schedule.seed,
    faults,
    throttleRate: schedule.throttleRate,
    serverErrorRate: schedule.serverErrorRate,
    serializationFailureRate: schedule.serializationFailureRate,
    dataApiStatementFailures: schedule.dataApiStatementFailures,
    timeScale: schedule.timeScale,
    concurrency: schedule.concurrency,
    sqsConcurrency: schedule.concurrency,
    mappingOverrides: { sqsBatchSize: schedule.sqsBatchSize, sqsBatchingWindowSeconds: schedule.sqsBatchingWindowSeconds, streamBatchSize: schedule.streamBatchSize },
    wrapInvoker: (id, invoke) => deliveries.wrap(id, invoke),
  });
  try {
    const report = await runScenario(stack, { faults, deliveries, started }, {
      ...schedule,
      progress: createProgress(process.stderr, true),
    });
    return { report, decided: { ...faults.decided } };
  } finally {
    await stack.stop();
  }
}

/** The `npm run demo` command that reruns a schedule by itself. */
export function demoCommand(schedule: Schedule): string {
  const flags: [string, number | string][] = [
    ['--events', schedule.events], ['--seed', schedule.seed], ['--page-view-share', schedule.pageViewShare], ['--payment-share', schedule.paymentShare],
    ['--duplicate-rate', schedule.duplicateRate], ['--producer-retry-rate', schedule.producerRetryRate], ['--crash-rate', schedule.crashRate],
    ['--slow-rate', schedule.slowRate], ['--throttle-rate', schedule.throttleRate], ['--server-error-rate', schedule.serverErrorRate], ['--serialization-failure-rate', schedule.serializationFailureRate],
    ['--data-api-statement-failures', schedule.dataApiStatementFailures],    ['--poison-rate', schedule.poisonRate], ['--schema-v2-rate', schedule.schemaV2Rate], ['--sqs-batch-size', schedule.sqsBatchSize],
    ['--sqs-batching-window', schedule.sqsBatchingWindowSeconds], ['--stream-batch-size', schedule.streamBatchSize],
    ['--concurrency', schedule.concurrency], ['--time-scale', schedule.timeScale],
  ];
  return `npm run demo -- ${flags.map(([flag, value]) => `${flag} ${value}`).join(' ')}`;
}
