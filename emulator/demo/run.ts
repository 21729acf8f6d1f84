/**
 * The main job: run the synthesized stack on local engines, publish a workload with duplicates,
 * crashes, throttling and poison, drain, and prove the effects exact (scenario.ts).
 */
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { checkRate, DeliveryFaultPlan } from '../faults/plan';
import { seededRandom } from '../faults/random';
import { fileOutput, initFailureSummary, type InitFailureListener } from '../functions';
import { startLocalStack, type LocalStack, type LocalStackOptions } from '../stack/runtime';
import { abortOf } from './abort';
import { DeliveryCounter } from './deliveries';
import { describeFailure, writeDump } from './dump';
import { demoSqsPollers, managedInstancesReport } from './managed-instances';
import type { DemoReport } from './report';
import { LATENCY_DEFAULTS, type LatencyProfileLabel } from '../gateway/latency';
import type { StatementFailureBehaviour } from '../gateway/data-api-service';

const NO_LATENCY: LatencyProfileLabel = { name: LATENCY_DEFAULTS.profile, scale: LATENCY_DEFAULTS.scale };
import { runScenario, type ScenarioOptions } from './scenario';

export { runScenario } from './scenario';
export type { ScenarioContext, ScenarioOptions } from './scenario';

/** Defaults shared by the CLI's help and the code. */
export const DEMO_DEFAULTS = {
  events: 5000,
  seed: 42,
  duplicateRate: 0.1,
  producerRetryRate: 0.03,
  crashRate: 0.1,
  slowRate: 0.05,
  throttleRate: 0.02,
  serverErrorRate: 0.005,
  serializationFailureRate: 0.02,
  poisonRate: 0.01,
  schemaV2Rate: 0.01,
} as const;

export interface DemoOptions extends ScenarioOptions {
  readonly duplicateRate: number;
  readonly crashRate: number;
  readonly slowRate: number;
  readonly throttleRate: number;
  readonly serverErrorRate: number;
  /** Share of the Data API statements in a transaction that fail with a serialization failure (40001). */
  readonly serializationFailureRate: number;
  /** What a failed Data API statement does to its transaction (LocalStackOptions.dataApiStatementFailures). @default DEFAULT_STATEMENT_FAILURE_BEHAVIOUR */
  readonly dataApiStatementFailures?: StatementFailureBehaviour;
  /** Replace the template's mapping batch sizes and window (chaos schedules explore them). @default - the template's */
  readonly sqsBatchSize?: number;
  readonly sqsBatchingWindow?: number;
  readonly streamBatchSize?: number;
  /** Execution environments per function, and SQS pollers per mapping unless `sqsPollers` says. @default 2 */
  readonly concurrency?: number;
  /** SQS pollers per mapping. @default - `concurrency`; on Managed Instances MANAGED_INSTANCES_SQS_POLLERS */
  readonly sqsPollers?: number;
  /** The stack's consumers are on Lambda Managed Instances (the assembly `--managed-instances` synthesizes): only the default of `sqsPollers` depends on it. @default false */
  readonly managedInstances?: boolean;
  /** Local seconds per template second for visibility timeouts, alarm periods and function timeouts. @default 1/60 */
  readonly timeScale?: number;
  /** The latency every request through the contract layer waits; the report names it. @default - none */
  readonly latency?: LatencyProfileLabel;
  /** Where a function's init failure is told at once, beside the functions' log. @default - a line on stderr */
  readonly alert?: (message: string) => void;
  /** Run on engines or an assembly already there (tests). @default - the demo starts its own engines and synthesizes when needed */
  readonly localStack?: Pick<LocalStackOptions, 'engines' | 'synthesized' | 'nameSuffix'>;
}

/**
 * Runs the demo end to end; the engines are stopped however it ends, and the dump (with
 * `dumpDir`) is written however it ends.
 * @throws DemoAbortedError when it stops before it could verify (a function that cannot start, a stalled drain)
 */
export async function runDemo(options: DemoOptions): Promise<DemoReport> {
  validate(options);
  const started = Date.now();
  const faults = new DeliveryFaultPlan(seededRandom(options.seed ^ 0xfa17), { duplicate: options.duplicateRate, crash: options.crashRate, slow: options.slowRate });
  const deliveries = new DeliveryCounter();
  const logDir = options.dumpDir ?? path.join(process.cwd(), '.eo');
  mkdirSync(logDir, { recursive: true });
  const log = fileOutput(path.join(logDir, 'functions.log'));
  try {
    const stack = await start(options, { faults, deliveries, sink: log.sink, logFile: path.join(logDir, 'functions.log') });
    try {
      const report = await runScenario(stack, { faults, deliveries, started }, options);
      const managedInstances = managedInstancesReport(stack);
      return {
        ...report,
        latencyProfile: options.latency ?? NO_LATENCY,
        functionsNode: Object.fromEntries(stack.functionNodes),
        ...(Object.keys(managedInstances).length > 0 && { managedInstances }),
      };
    } finally {
      options.progress.phase('stopping the engines');
      await stack.stop();
    }
  } finally {
    await log.close();
  }
}

/** How the contract layer's refusals are marked in the functions' log. */
const CONTRACT_LOG_SOURCE = { functionName: 'aws-contract-layer', stream: 'stderr' } as const;

interface StartWiring {
  readonly faults: DeliveryFaultPlan;
  readonly deliveries: DeliveryCounter;
  readonly sink: NonNullable<LocalStackOptions['output']>;
  readonly logFile: string;
}

/** Starts the stack; a failure to start is dumped too (error.txt), since nothing else will be. */
async function start(options: DemoOptions, wiring: StartWiring): Promise<LocalStack> {
  try {
    return await startLocalStack({
      ...options.localStack,
      seed: options.seed,
      latency: options.latency,
      faults: wiring.faults,
      throttleRate: options.throttleRate,
      serverErrorRate: options.serverErrorRate,
      serializationFailureRate: options.serializationFailureRate,
      dataApiStatementFailures: options.dataApiStatementFailures,
      output: wiring.sink,
      onRefusal: (line) => wiring.sink(`${line}\n`, CONTRACT_LOG_SOURCE),
      onInitFailure: firstOnly((failure) => (options.alert ?? alertOnStderr)(`eo: ${initFailureSummary(failure)} (logged in ${wiring.logFile})`)),
      wrapInvoker: (id, invoke) => wiring.deliveries.wrap(id, invoke),
      onPhase: (phase) => options.progress.phase(phase),
      timeScale: options.timeScale,
      concurrency: options.concurrency,
      sqsConcurrency: demoSqsPollers(options),
      mappingOverrides: { sqsBatchSize: options.sqsBatchSize, sqsBatchingWindowSeconds: options.sqsBatchingWindow, streamBatchSize: options.streamBatchSize },
    });
  } catch (error) {
    const aborted = abortOf(error, 'starting the local stack', options.dumpDir);
    if (options.dumpDir) writeDump(options.dumpDir, { error: describeFailure(aborted) });
    throw aborted;
  }
}

/** The run stops at the first failure; the environments starting beside it fail the same way, and the log has them all. */
function firstOnly(listener: InitFailureListener): InitFailureListener {
  let told = false;
  return (failure) => {
    if (!told) listener(failure);
    told = true;
  };
}

function alertOnStderr(message: string): void {
  process.stderr.write(`\n${message}\n`);
}

function validate(options: DemoOptions): void {
  if (!Number.isInteger(options.events) || options.events < 1) throw new RangeError(`--events must be a whole number >= 1 (given ${options.events})`);
  if (!Number.isInteger(options.seed)) throw new RangeError(`--seed must be a whole number (given ${options.seed})`);
  const rates: [string, number][] = [
    ['--duplicate-rate', options.duplicateRate], ['--producer-retry-rate', options.producerRetryRate], ['--crash-rate', options.crashRate],
    ['--slow-rate', options.slowRate], ['--throttle-rate', options.throttleRate], ['--server-error-rate', options.serverErrorRate],
    ['--serialization-failure-rate', options.serializationFailureRate], ['--poison-rate', options.poisonRate], ['--schema-v2-rate', options.schemaV2Rate],
  ];
  for (const [name, rate] of rates) checkRate(name, rate);
  if (options.throttleRate + options.serverErrorRate > 1) throw new RangeError('--throttle-rate plus --server-error-rate must be at most 1');
}
