/**
 * The fix-and-redrive phase: "deploys the fix" (the counter accepts schema 2), sends every DLQ's
 * curable messages back (curable.ts: schema violations, transient failures, stream on-failure
 * pointers), drains again, and checks the state strictly: every effect exact with the schema-2
 * page views counted, and every notification sent. What stays in a DLQ is named, queue by queue.
 */
import { queueDepthAlarms } from '../stack/alarms';
import { CONSUMER_NAME as COUNTER_CONSUMER } from '../../example/handlers/page-view-counter';
import { BARE_ERROR_TYPE, entryOf, peekQueue, redriveQueue, type DlqInfo } from '../../operations/dlq';
import { dlqContextOfLocalStack } from '../stack/dlq-context';
import type { LocalStack } from '../stack/runtime';
import { redriveFilter } from './curable';
import { expectedState } from './expected';
import type { PublishedMessage } from './publisher';
import { failedSentences, redriveInvariantsOf, violationsOf, type DlqRedrive, type InvariantVerdict, type RedriveReport } from './report';
import { settledState } from './settle';
import { dlqDepth, type DlqContents, type FinalState } from './state';
import { verify, type Verification } from './verify';
import type { WorkloadEvent } from './workload';

export interface RedrivePhaseInput {
  readonly workload: readonly WorkloadEvent[];
  readonly messages: readonly PublishedMessage[];
  /** Whether a DLQ held messages after the first drain: then an ALARM must have been published. */
  readonly dlqEverNonEmpty: boolean;
  /** Drains the stack (with the run's progress output and limits). */
  readonly drain: () => Promise<void>;
  readonly onPhase: (phase: string) => void;
}

export interface RedrivePhase {
  readonly redrive: RedriveReport;
  readonly violations: string[];
  /** Every invariant of the phase with its verdict; `violations` are the failed ones' sentences. */
  readonly invariants: readonly InvariantVerdict[];
  readonly state: FinalState;
  /** The strict verification of the final state. */
  readonly after: Verification;
}

/** Deploys the fix, redrives every DLQ, drains, and verifies strictly. */
export async function fixAndRedrive(stack: LocalStack, input: RedrivePhaseInput): Promise<RedrivePhase> {
  input.onPhase('deploying the fix (ACCEPT_SCHEMA_V2=true) and redriving every DLQ\'s schema violations, transient failures and stream on-failure records');
  await deployFix(stack);
  // The alarms run on: a redrive hides the messages it reads, which the depth alarms count as held.
  const redriven = await redriveEveryDlq(stack);
  await input.drain();
  const state = await settledState(stack);
  const after = verify({ expected: expectedState(input.workload, { includeSchemaV2: true }), state, published: input.messages, counterConsumer: COUNTER_CONSUMER, dlqEverNonEmpty: input.dlqEverNonEmpty || holdsMessages(state), dlqAlarmNames: dlqAlarmNames(stack) });
  const queues = [...redriven].map(([queue, count]) => dlqRedrive(queue, count, state.dlqs.find((dlq) => dlq.queueName === queue)));
  const redrive: RedriveReport = {
    redriven: sum(queues.map((queue) => queue.redriven)),
    remainingInDlq: sum(queues.map((queue) => queue.remaining)),
    queues,
    exactAfter: violationsOf(after).length === 0,
    alarmsConsistent: alarmsMatchQueues(stack, state),
  };
  const invariants = redriveInvariantsOf(redrive, after);
  return { redrive, violations: failedSentences(invariants), invariants, state, after };
}

async function deployFix(stack: LocalStack): Promise<void> {
  const counter = [...stack.functionSpecs.values()].find((spec) => spec.environment.CONSUMER_NAME === COUNTER_CONSUMER);
  const fn = counter && stack.functions.get(counter.logicalId);
  if (!counter || !fn) throw new Error(`no local function runs ${COUNTER_CONSUMER}`);
  await fn.setEnvironment({ ...counter.environment, ACCEPT_SCHEMA_V2: 'true' });
}

/** Sends every DLQ's curable messages back; the count redriven by DLQ name, every DLQ of the stack listed. */
export async function redriveEveryDlq(stack: LocalStack): Promise<Map<string, number>> {
  const context = dlqContextOfLocalStack(stack);
  const redriven = new Map<string, number>();
  for (const dlq of context.topology.deadLetterQueues) redriven.set(dlq.name, await redriveCurable(stack, dlq));
  return redriven;
}

/**
 * The `dlq redrive` filter cannot say "error kind transient", so the selection is computed here
 * from a look at the queue first (see curable.ts), then handed to the redrive as error types.
 */
async function redriveCurable(stack: LocalStack, dlq: DlqInfo): Promise<number> {
  const { messages } = await peekQueue(stack.clients.sqs, dlq.url);
  const filter = redriveFilter(messages.map(entryOf));
  if (filter === undefined) return 0;
  const result = await redriveQueue({ ...dlqContextOfLocalStack(stack), queue: dlq.url }, { filter });
  return result.redriven;
}

function dlqRedrive(queue: string, redriven: number, contents: DlqContents | undefined): DlqRedrive {
  const remainingByError: Record<string, number> = {};
  const names = [...(contents?.failures.map((failure) => failure.error.name) ?? []), ...(contents?.pointers.map((pointer) => pointer.condition) ?? []), ...(contents?.bare.map(() => BARE_ERROR_TYPE) ?? [])];
  for (const name of names) remainingByError[name] = (remainingByError[name] ?? 0) + 1;
  return { queue, redriven, remaining: contents ? dlqDepth(contents) : 0, remainingByError };
}

/** The names of the DLQs' depth alarms: only their ALARM answers for a DLQ that held messages. */
export function dlqAlarmNames(stack: Pick<LocalStack, 'alarms'>): ReadonlySet<string> {
  return new Set(queueDepthAlarms(stack.alarms).map(({ alarm }) => alarm.alarmName));
}

/** Every depth alarm is in ALARM while its queue holds messages and OK once it is empty. */
function alarmsMatchQueues(stack: LocalStack, state: FinalState): boolean {
  const states = stack.alarmEvaluator.states();
  return queueDepthAlarms(stack.alarms).every(({ alarm, queueName }) => {
    const dlq = state.dlqs.find((candidate) => candidate.queueName === queueName);
    const depth = dlq ? dlqDepth(dlq) : 0;
    return states[alarm.alarmName] === (depth > 0 ? 'ALARM' : 'OK');
  });
}

/** Whether any DLQ holds a message. */
export function holdsMessages(state: FinalState): boolean {
  return state.dlqs.some((dlq) => dlqDepth(dlq) > 0);
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
