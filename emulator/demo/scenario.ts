/**
 * One scenario on a running stack: publish a workload, drain, verify, fix and redrive, verify
 * again. It stops at once when a function fails to initialize (it does not go on publishing, or
 * wait out a drain, against a function that cannot run), and however it ends it writes the dump,
 * if asked for one.
 */
import { seededRandom } from '../faults/random';
import type { DeliveryFaultPlan } from '../faults/plan';
import { output } from '../stack/outputs';
import type { LocalStack } from '../stack/runtime';
import { abortOf, type DemoAbortedError } from './abort';
import { awsContractViolations } from './aws-contract';
import type { DeliveryCounter } from './deliveries';
import { describeFailure, readWithin, writeDump } from './dump';
import { firstPhaseReport } from './first-phase';
import { pendingRedrive } from './pending';
import type { Progress } from '../../cli/progress';
import { consumerReports } from './consumers';
import { planMessages, publishMessages, type PublishedMessage, type PublishTargets } from './publisher';
import { fixAndRedrive, holdsMessages } from './redrive-phase';
import { replayPhase } from './replay-phase';
import { rebuildPhase } from './rebuild-phase';
import { awsContractInvariant, failedSentences, rebuildInvariantsOf, replayInvariantsOf, type DemoReport } from './report';
import { currentState, settledState, tableRangeReader } from './settle';
import type { FinalState } from './state';
import type { PhaseMark } from './timeline';
import { buildTimeline } from './timeline-builder';
import { generateWorkload, type WorkloadEvent } from './workload';

/** What a scenario needs from whoever started the stack. */
export interface ScenarioContext {
  readonly faults: DeliveryFaultPlan;
  readonly deliveries: DeliveryCounter;
  readonly started: number;
}

/** The settings of one scenario on a running stack. */
export interface ScenarioOptions {
  readonly events: number;
  readonly seed: number;
  readonly producerRetryRate: number;
  readonly poisonRate: number;
  readonly schemaV2Rate: number;
  readonly progress: Progress;
  /** Write published.jsonl, state.json and (on a failure) error.txt here. @default - no dump */
  readonly dumpDir?: string;
  /** Share of valid events that are page views. @default 0.7 */
  readonly pageViewShare?: number;
  /** Share of valid events that are invoice payments. @default 0.1 */
  readonly paymentShare?: number;
  /** Give up draining after this long with nothing moving. @default - `drainStallMs` of emulator/stack/drain.ts: 60 s, or more for a stack that can legitimately stay still longer */
  readonly drainStallMs?: number;
  /** Give up draining after this long in all. @default DRAIN_DEFAULTS.maxMs */
  readonly drainMaxMs?: number;
}

/** What the run has got to: for the dump and for the phase an abort names. */
class ScenarioRecord {
  public phase = 'planning the workload';
  public published: readonly PublishedMessage[] | undefined;
  public state: FinalState | undefined;
  /** Each phase entered, in ms since the run started: the timeline's marks. */
  public readonly phases: PhaseMark[] = [];

  public constructor(private readonly started: number) {}

  public enter(phase: string, progress: Progress): void {
    this.phase = phase;
    this.phases.push({ atMs: Date.now() - this.started, phase });
    progress.phase(phase);
  }
}

/**
 * Publishes a workload to a running stack, drains it, and verifies the final state.
 * @throws DemoAbortedError naming the phase and the cause (a function's init failure, a stalled drain)
 */
export async function runScenario(stack: LocalStack, context: ScenarioContext, options: ScenarioOptions): Promise<DemoReport> {
  const record = new ScenarioRecord(context.started);
  try {
    const report = await scenario(stack, context, options, record);
    if (options.dumpDir) writeDump(options.dumpDir, { messages: record.published, state: record.state });
    return report;
  } catch (error) {
    const aborted = abortOf(error, record.phase, options.dumpDir);
    if (options.dumpDir) await dumpAfterFailure(stack, options.dumpDir, record, aborted);
    throw aborted;
  }
}

async function scenario(stack: LocalStack, context: ScenarioContext, options: ScenarioOptions, record: ScenarioRecord): Promise<DemoReport> {
  const { workload, messages } = plan(stack, options);
  record.enter(`publishing ${messages.length} messages (producer retries and poison included)`, options.progress);
  record.published = messages;
  await stack.initFailures.race(publish(stack, messages, options.progress));
  const drainAgain = (): Promise<void> => drain(stack, context.deliveries, messages.length, options, record);
  await drainAgain();
  record.enter('reading the state back', options.progress);
  const state = (record.state = await settledState(stack));
  const pending = await pendingRedrive(state, messages, tableRangeReader(stack));
  const firstPhase = firstPhaseReport({ seed: options.seed, workload, messages, state, pending, stack, deliveries: context.deliveries, faults: context.faults, started: context.started });
  const fixed = await fixAndRedrive(stack, { workload, messages, dlqEverNonEmpty: holdsMessages(state), drain: drainAgain, onPhase: (phase) => record.enter(phase, options.progress) });
  record.state = fixed.state;
  const consumers = consumerReports(stack, context.deliveries, fixed.after);
  record.enter('replaying the whole run through the stream consumers (eo replay): the state must not change', options.progress);
  const replay = await replayPhase(stack, fixed.state, context.started);
  const replayed = replayInvariantsOf(replay);
  record.enter('rebuilding the order projection into generation 2 from its stream (eo replay --generation, eo compare): it must equal the live table', options.progress);
  const rebuilds = await rebuildPhase(stack, context.started);
  const rebuilt = rebuildInvariantsOf(rebuilds);
  const durationMs = Date.now() - context.started;
  const aws = stack.contract();
  const violations = [...firstPhase.violations, ...fixed.violations, ...failedSentences(replayed), ...failedSentences(rebuilt), ...awsContractViolations(aws)];
  const invariants = [...(firstPhase.invariants ?? []), ...fixed.invariants, ...replayed, ...rebuilt, awsContractInvariant(aws)];
  const timeline = buildTimeline(stack, { startedAt: context.started, endedAt: Date.now(), phases: record.phases });
  return { ...firstPhase, redrive: fixed.redrive, replay, rebuilds, consumers, aws, durationMs, eventsPerSecond: Math.round((workload.length / durationMs) * 1000), violations, invariants, timeline };
}

/** The workload and the messages the producer sends for it (producer retries included). */
function plan(stack: LocalStack, options: ScenarioOptions): { workload: WorkloadEvent[]; messages: PublishedMessage[] } {
  const workload = generateWorkload({ events: options.events, seed: options.seed, poisonRate: options.poisonRate, schemaV2Rate: options.schemaV2Rate, pageViewShare: options.pageViewShare, paymentShare: options.paymentShare });
  return { workload, messages: planMessages(workload, seededRandom(options.seed ^ 0x9e7), options.producerRetryRate, targetsOf(stack)) };
}

/** Where the producers send: the stack's outputs. */
function targetsOf(stack: LocalStack): Omit<PublishTargets, 'sns' | 'sqs' | 'kinesis'> {
  return {
    pageViewsTopicArn: output(stack.outputs, 'PageViewsTopicArn'),
    ordersStreamName: output(stack.outputs, 'OrdersStreamName'),
    ledgerQueueUrl: output(stack.outputs, 'LedgerQueueUrl'),
    paymentsQueueUrl: output(stack.outputs, 'PaymentsQueueUrl'),
  };
}

async function publish(stack: LocalStack, messages: readonly PublishedMessage[], progress: Progress): Promise<void> {
  const targets = { sns: stack.clients.sns, sqs: stack.clients.sqs, kinesis: stack.clients.kinesis, ...targetsOf(stack) };
  await publishMessages(messages, targets, (sent) => progress.update('published', sent, messages.length));
  progress.done();
}

/** Quiet means: no mapping saw anything for longer than a (compressed) visibility timeout. */
async function drain(stack: LocalStack, deliveries: DeliveryCounter, published: number, options: ScenarioOptions, record: ScenarioRecord): Promise<void> {
  record.enter('draining: functions consume until every source is quiet', options.progress);
  const quietMs = 1_000 + Math.max(...[...stack.resources.queues.values()].map((queue) => queue.localVisibilityTimeoutSeconds)) * 1_000;
  const ticker = setInterval(() => options.progress.update('delivered', Math.min(deliveries.total, published), published), 250);
  try {
    await stack.drain({ quietMs, stallMs: options.drainStallMs, maxMs: options.drainMaxMs, signal: stack.initFailures.signal });
  } finally {
    clearInterval(ticker);
    options.progress.done();
  }
}

/** Best effort and bounded: the engines may be why the run failed. */
async function dumpAfterFailure(stack: LocalStack, dir: string, record: ScenarioRecord, aborted: DemoAbortedError): Promise<void> {
  const state = await readWithin(() => currentState(stack));
  writeDump(dir, { messages: record.published, state: state ?? record.state, error: `${describeFailure(aborted)}\n\n${JSON.stringify(aborted.abort, null, 2)}` });
}
