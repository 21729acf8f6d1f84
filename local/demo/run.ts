/**
 * The main job: run the synthesized stack on local engines, publish a workload with duplicates,
 * crashes, throttling and poison, drain, and prove the effects exact.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CONSUMER_NAME as COUNTER_CONSUMER } from '../../lambdas/handlers/page-view-counter';
import { checkRate, DeliveryFaultPlan } from '../faults/plan';
import { seededRandom } from '../faults/random';
import { fileOutput } from '../functions';
import type { SqsMappingStats, StreamMappingStats } from '../event-sources';
import { dlqContextOfLocalStack, redriveQueue } from '../dlq';
import { output } from '../stack/outputs';
import { startLocalStack, type LocalStack } from '../stack/runtime';
import { DeliveryCounter } from './deliveries';
import { expectedState } from './expected';
import type { Progress } from './progress';
import { planMessages, publishMessages, type PublishedMessage } from './publisher';
import { redriveViolationsOf, violationsOf, type DemoReport } from './report';
import { dlqDepth, readState, type FinalState } from './state';
import { verify } from './verify';
import { generateWorkload, type WorkloadEvent } from './workload';

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
  poisonRate: 0.01,
  schemaV2Rate: 0.01,
  drainTimeoutMs: 150_000,
} as const;

/** Draining may take this long per published event, beyond the default: large runs need longer. */
const DRAIN_MS_PER_EVENT = 30;

/** The drain timeout for a run of `events`: the default, or more for large runs. */
export function drainTimeoutFor(events: number): number {
  return Math.max(DEMO_DEFAULTS.drainTimeoutMs, events * DRAIN_MS_PER_EVENT);
}

export interface DemoOptions {
  readonly events: number;
  readonly seed: number;
  readonly duplicateRate: number;
  readonly producerRetryRate: number;
  readonly crashRate: number;
  readonly slowRate: number;
  readonly throttleRate: number;
  readonly serverErrorRate: number;
  readonly poisonRate: number;
  readonly schemaV2Rate: number;
  readonly dumpDir?: string;
  readonly drainTimeoutMs: number;
  readonly progress: Progress;
  /** Share of valid events that are page views. @default 0.7 */
  readonly pageViewShare?: number;
  /** Replace the template's mapping batch sizes and window (chaos schedules explore them). @default - the template's */
  readonly sqsBatchSize?: number;
  readonly sqsBatchingWindow?: number;
  readonly streamBatchSize?: number;
  /** SQS pollers per mapping and execution environments per function. @default 2 */
  readonly concurrency?: number;
  /** Local seconds per template second for visibility timeouts and alarm periods. @default 1/60 */
  readonly timeScale?: number;
}

/** Runs the demo end to end; the engines are stopped however it ends. */
export async function runDemo(options: DemoOptions): Promise<DemoReport> {
  validate(options);
  const started = Date.now();
  const faults = new DeliveryFaultPlan(seededRandom(options.seed ^ 0xfa17), { duplicate: options.duplicateRate, crash: options.crashRate, slow: options.slowRate });
  const deliveries = new DeliveryCounter();
  const logDir = options.dumpDir ?? path.join(process.cwd(), '.eo');
  mkdirSync(logDir, { recursive: true });
  const log = fileOutput(path.join(logDir, 'functions.log'));
  const stack = await startLocalStack({
    seed: options.seed,
    faults,
    throttleRate: options.throttleRate,
    serverErrorRate: options.serverErrorRate,
    output: log.sink,
    wrapInvoker: (id, invoke) => deliveries.wrap(id, invoke),
    onPhase: (phase) => options.progress.phase(phase),
    timeScale: options.timeScale,
    concurrency: options.concurrency,
    sqsConcurrency: options.concurrency,
    mappingOverrides: { sqsBatchSize: options.sqsBatchSize, sqsBatchingWindowSeconds: options.sqsBatchingWindow, streamBatchSize: options.streamBatchSize },
  });
  try {
    return await runScenario(stack, { faults, deliveries, started }, options);
  } finally {
    options.progress.phase('stopping the engines');
    await stack.stop();
    await log.close();
  }
}

/** What a scenario needs from whoever started the stack. */
export interface ScenarioContext {
  readonly faults: DeliveryFaultPlan;
  readonly deliveries: DeliveryCounter;
  readonly started: number;
}

/** The settings of one scenario on a running stack. */
export type ScenarioOptions = Pick<DemoOptions, 'events' | 'seed' | 'producerRetryRate' | 'poisonRate' | 'schemaV2Rate' | 'drainTimeoutMs' | 'progress' | 'dumpDir' | 'pageViewShare'>;

/** Publishes a workload to a running stack, drains it, and verifies the final state. */
export async function runScenario(stack: LocalStack, context: ScenarioContext, options: ScenarioOptions): Promise<DemoReport> {
  const workload = generateWorkload({ events: options.events, seed: options.seed, poisonRate: options.poisonRate, schemaV2Rate: options.schemaV2Rate, pageViewShare: options.pageViewShare });
  const messages = planMessages(workload, seededRandom(options.seed ^ 0x9e7), options.producerRetryRate, {
    pageViewsQueueUrl: output(stack.outputs, 'PageViewsQueueUrl'),
    ordersStreamName: output(stack.outputs, 'OrdersStreamName'),
  });
  await publish(stack, messages, options.progress);
  await drain(stack, context.deliveries, messages.length, options);
  const state = await settledState(stack);
  const firstPhase = buildReport({ seed: options.seed, workload, messages, state, stack, deliveries: context.deliveries, faults: context.faults, started: context.started });
  const fixed = await fixAndRedrive(stack, { workload, messages, deliveries: context.deliveries, options, dlqEverNonEmpty: holdsMessages(state) });
  if (options.dumpDir) writeDump(options.dumpDir, messages, fixed.state);
  const durationMs = Date.now() - context.started;
  return {
    ...firstPhase,
    redrive: fixed.redrive,
    durationMs,
    eventsPerSecond: Math.round((workload.length / durationMs) * 1000),
    violations: [...firstPhase.violations, ...fixed.violations],
  };
}

/** Errors that the fix (or time) cures: the rest, malformed bodies and unknown types, stay in the DLQ. */
const FIXABLE_ERRORS = ['SchemaViolationError', 'RetriesExhaustedError'];

interface RedrivePhaseInput {
  readonly workload: readonly WorkloadEvent[];
  readonly messages: readonly PublishedMessage[];
  readonly deliveries: DeliveryCounter;
  readonly options: ScenarioOptions;
  /** Whether a DLQ held messages after the first drain: then an ALARM must have been published. */
  readonly dlqEverNonEmpty: boolean;
}

/**
 * "Deploys the fix" (the counter accepts schema 2), redrives the page-views DLQ's fixable failures,
 * drains again, and checks that the state is now exact with schema-2 page views counted.
 */
async function fixAndRedrive(stack: LocalStack, input: RedrivePhaseInput): Promise<{ redrive: NonNullable<DemoReport['redrive']>; violations: string[]; state: FinalState }> {
  const { options } = input;
  options.progress.phase('deploying the fix (ACCEPT_SCHEMA_V2=true) and redriving the page-views DLQ');
  await deployFix(stack);
  const result = await redriveQueue({ ...dlqContextOfLocalStack(stack), queue: 'PageViewCounterDlqUrl' }, { filter: { errorType: FIXABLE_ERRORS } });
  await drain(stack, input.deliveries, input.messages.length, options);
  const state = await settledState(stack);
  const after = verify({ expected: expectedState(input.workload, { includeSchemaV2: true }), state, published: input.messages, counterConsumer: COUNTER_CONSUMER, dlqEverNonEmpty: input.dlqEverNonEmpty || holdsMessages(state) });
  const pageViewDlq = dlqNamed(stack, output(stack.outputs, 'PageViewCounterDlqUrl'));
  const remaining = state.dlqs.find((dlq) => dlq.queueName === pageViewDlq);
  const redrive = {
    redriven: result.redriven,
    remainingInDlq: remaining ? dlqDepth(remaining) : 0,
    exactAfter: violationsOf(after).length === 0,
    alarmsConsistent: alarmsMatchQueues(stack, state),
  };
  return { redrive, violations: redriveViolationsOf(redrive, after), state };
}

async function deployFix(stack: LocalStack): Promise<void> {
  const counter = [...stack.functionSpecs.values()].find((spec) => spec.environment.CONSUMER_NAME === COUNTER_CONSUMER);
  const fn = counter && stack.functions.get(counter.logicalId);
  if (!counter || !fn) throw new Error(`no local function runs ${COUNTER_CONSUMER}`);
  await fn.setEnvironment({ ...counter.environment, ACCEPT_SCHEMA_V2: 'true' });
}

function dlqNamed(stack: LocalStack, url: string): string {
  return [...stack.resources.queues.values()].find((queue) => queue.url === url)?.name ?? url;
}

/** Every depth alarm is in ALARM while its queue holds messages and OK once it is empty. */
function alarmsMatchQueues(stack: LocalStack, state: FinalState): boolean {
  const states = stack.alarmEvaluator.states();
  return stack.alarms.queueDepth.every((alarm) => {
    const dlq = state.dlqs.find((candidate) => candidate.queueName === alarm.queueName);
    const depth = dlq ? dlqDepth(dlq) : 0;
    return states[alarm.alarmName] === (depth > 0 ? 'ALARM' : 'OK');
  });
}

function validate(options: DemoOptions): void {
  if (!Number.isInteger(options.events) || options.events < 1) throw new RangeError(`--events must be a whole number >= 1 (given ${options.events})`);
  if (!Number.isInteger(options.seed)) throw new RangeError(`--seed must be a whole number (given ${options.seed})`);
  const rates: [string, number][] = [
    ['--duplicate-rate', options.duplicateRate], ['--producer-retry-rate', options.producerRetryRate], ['--crash-rate', options.crashRate],
    ['--slow-rate', options.slowRate], ['--throttle-rate', options.throttleRate], ['--server-error-rate', options.serverErrorRate],
    ['--poison-rate', options.poisonRate], ['--schema-v2-rate', options.schemaV2Rate],
  ];
  for (const [name, rate] of rates) checkRate(name, rate);
  if (options.throttleRate + options.serverErrorRate > 1) throw new RangeError('--throttle-rate plus --server-error-rate must be at most 1');
}

async function publish(stack: LocalStack, messages: readonly PublishedMessage[], progress: Progress): Promise<void> {
  progress.phase(`publishing ${messages.length} messages (producer retries and poison included)`);
  await publishMessages(messages, { sqs: stack.clients.sqs, kinesis: stack.clients.kinesis, pageViewsQueueUrl: output(stack.outputs, 'PageViewsQueueUrl'), ordersStreamName: output(stack.outputs, 'OrdersStreamName') }, (sent) =>
    progress.update('published', sent, messages.length),
  );
  progress.done();
}

/** Quiet means: no mapping saw anything for longer than a (compressed) visibility timeout. */
async function drain(stack: LocalStack, deliveries: DeliveryCounter, published: number, options: ScenarioOptions): Promise<void> {
  options.progress.phase('draining: functions consume until every source is quiet');
  const quietMs = 1_000 + Math.max(...[...stack.resources.queues.values()].map((queue) => queue.localVisibilityTimeoutSeconds)) * 1_000;
  const ticker = setInterval(() => options.progress.update('delivered', Math.min(deliveries.total, published), published), 250);
  try {
    await stack.drain({ quietMs, timeoutMs: options.drainTimeoutMs });
  } finally {
    clearInterval(ticker);
    options.progress.done();
  }
}

/**
 * Gives the alarm evaluator two periods to see the final DLQ depths, then reads everything back
 * with the evaluator paused: reading a DLQ hides its messages for a moment, which the evaluator
 * would take for a drained queue (an OK, and a state that no longer matches the queue).
 */
async function settledState(stack: LocalStack): Promise<FinalState> {
  await sleep(2 * stack.alarmPeriodMs);
  return stack.alarmEvaluator.whilePaused(async () => {
    await stack.alarmEvaluator.evaluateNow();
    return readState({
      dynamodb: stack.clients.dynamodb,
      sqs: stack.clients.sqs,
      countersTable: output(stack.outputs, 'CountersTableName'),
      ordersTable: output(stack.outputs, 'OrdersTableName'),
      idempotencyTable: output(stack.outputs, 'IdempotencyTableName'),
      notificationsInboxUrl: inboxOf(stack, output(stack.outputs, 'NotificationsTopicArn')),
      alarmsInboxUrl: inboxOf(stack, output(stack.outputs, 'AlarmTopicArn')),
      deadLetterQueues: stack.deadLetterQueues,
    });
  });
}

function inboxOf(stack: LocalStack, topicArn: string): string {
  const topic = [...stack.resources.topics.values()].find((candidate) => candidate.arn === topicArn);
  if (!topic) throw new Error(`no local topic with ARN ${topicArn}`);
  return topic.inbox.url;
}

interface ReportInput {
  readonly seed: number;
  readonly workload: readonly WorkloadEvent[];
  readonly messages: readonly PublishedMessage[];
  readonly state: FinalState;
  readonly stack: LocalStack;
  readonly deliveries: DeliveryCounter;
  readonly faults: DeliveryFaultPlan;
  readonly started: number;
}

function holdsMessages(state: FinalState): boolean {
  return state.dlqs.some((dlq) => dlqDepth(dlq) > 0);
}

function buildReport(input: ReportInput): DemoReport {
  const { workload, messages, state, stack } = input;
  const dlqEverNonEmpty = holdsMessages(state);
  const verification = verify({ expected: expectedState(workload), state, published: messages, counterConsumer: COUNTER_CONSUMER, dlqEverNonEmpty });
  const stats = stack.mappings.map((spec) => spec.mapping.stats as Partial<SqsMappingStats & StreamMappingStats>);
  const sum = (pick: (s: Partial<SqsMappingStats & StreamMappingStats>) => number | undefined) => stats.reduce((total, s) => total + (pick(s) ?? 0), 0);
  const durationMs = Date.now() - input.started;
  return {
    seed: input.seed,
    published: {
      logicalEvents: workload.length,
      messages: messages.length,
      producerRetries: messages.filter((message) => message.retry).length,
      poison: messages.filter((message) => message.event.kind === 'poison').length,
    },
    deliveries: { total: input.deliveries.total, duplicates: input.deliveries.duplicates },
    faults: {
      crashAfterCommit: sum((s) => s.crashes),
      visibilityExpired: sum((s) => s.visibilityOutlived),
      throttled: stack.proxy.stats().throttled,
      serverErrors: stack.proxy.stats().serverErrors,
      duplicateBatches: input.faults.decided.duplicate,
    },
    effects: verification.effects,
    notifications: { expected: verification.notifications.expected, sent: verification.notifications.sent },
    dlq: { messages: verification.dlq.messages, withContext: verification.dlq.withContext, appliedWithoutContext: verification.dlq.appliedWithoutContext },
    lost: verification.lost,
    alarms: { notifications: verification.alarms.notifications },
    durationMs,
    eventsPerSecond: Math.round((workload.length / durationMs) * 1000),
    violations: violationsOf(verification),
  };
}

function writeDump(dir: string, messages: readonly PublishedMessage[], state: FinalState): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'published.jsonl'), messages.map((message) => JSON.stringify({ target: message.target.split('/').pop(), body: message.body })).join('\n') + '\n');
  const orders = Object.fromEntries(Object.entries(state.orders).map(([orderId, order]) => [orderId, { status: order.status, version: order.version }]));
  writeFileSync(path.join(dir, 'state.json'), JSON.stringify({ counters: state.counters, orders, notifications: state.notifications }, null, 2));
}
