/**
 * Runs one schedule: publishes its events on the modelled source, then invokes the real consumer
 * batch after batch, as the event source mapping would, until the model says the source is
 * drained. Records the whole history (what each invocation got, did and answered) for the checker.
 */
import type { BatchHandler, BatchResponse } from '../../lambdas/runtime/consumer/consumer';
import { consumerFor, invocationContext } from './consumer';
import type { Schedule } from './schedule';
import { createSource, type Delivered, type ModelSource } from './sources';
import { World, type InvocationTrace } from './world';

export interface InvocationRecord extends InvocationTrace {
  readonly invocation: number;
  readonly records: readonly Delivered[];
  /** What Lambda got: the response, or a failure (a throw, or a crash that lost the answer). */
  readonly answer: BatchResponse | 'failed';
  /** Whether Lambda found the answer a valid partial batch response. */
  readonly valid: boolean;
  readonly lateAck: boolean;
}

export interface RunHistory {
  readonly schedule: Schedule;
  readonly source: ModelSource;
  readonly world: World;
  readonly invocations: readonly InvocationRecord[];
  /** False when the source still held records after the invocation bound. */
  readonly drained: boolean;
}

/** More invocations than any schedule needs to drain: every record is delivered a bounded number of times. */
const MAX_INVOCATIONS = 400;

/** `onStart`: told the world before anything runs (the test points its clock there). */
export async function runSchedule(schedule: Schedule, hooks: { readonly onStart?: (world: World) => void } = {}): Promise<RunHistory> {
  const world = new World(schedule);
  hooks.onStart?.(world);
  const source = createSource(schedule, world);
  const invocations: InvocationRecord[] = [];
  let consumer = consumerFor(schedule, source, world);
  while (!source.drained && invocations.length < MAX_INVOCATIONS) {
    const batch = source.next(world);
    if (batch === undefined) {
      const wakeAt = source.wakeAt(world.now);
      if (wakeAt === undefined) break;
      world.now = wakeAt;
      continue;
    }
    const invocation = invocations.length;
    world.begin(invocation);
    const answer = await invoke(consumer, batch.event, world, remainingMsOf(schedule, invocation));
    const crashed = world.trace.crashed;
    if (crashed) consumer = consumerFor(schedule, source, world);
    const lateAck = schedule.lateAcks.includes(invocation) && !crashed;
    if (lateAck) source.expire(batch, world);
    const valid = source.settle(batch, crashed ? 'failed' : answer);
    invocations.push({ ...world.trace, invocation, records: batch.records, answer: crashed ? 'failed' : answer, valid, lateAck });
    world.now += 1;
  }
  return { schedule, source, world, invocations, drained: source.drained };
}

async function invoke(consumer: BatchHandler, event: Parameters<BatchHandler>[0], world: World, remainingMs: number | undefined): Promise<BatchResponse | 'failed'> {
  try {
    return await consumer(event, invocationContext(world, remainingMs));
  } catch {
    return 'failed';
  }
}

function remainingMsOf(schedule: Schedule, invocation: number): number | undefined {
  return schedule.tightBudgets.find((budget) => budget.invocation === invocation)?.remainingMs;
}
