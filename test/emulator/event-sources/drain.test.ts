/**
 * The drain waits for as long as work progresses, and gives up only after a stated time with
 * nothing moving, naming what did not drain. A fake clock: the tests take milliseconds, the runs
 * they stand for take minutes.
 */
import { DrainStalledError, quiescentPart, untilDrained, type DrainClock, type DrainPart, type PartState } from '../../../emulator/event-sources/drain';

/** Time moves only when the drain sleeps. */
function fakeClock(): DrainClock & { elapsed(): number } {
  let now = 1_000_000;
  const start = now;
  return { now: () => now, sleep: async (ms) => void (now += ms), elapsed: () => now - start };
}

/** A part whose state is computed from the clock's elapsed time. */
function part(name: string, clock: { elapsed(): number }, stateAt: (elapsedMs: number) => PartState): DrainPart {
  return { name, look: () => stateAt(clock.elapsed()) };
}

/** A queue that loses a message every `everyMs` until it is empty. */
function shrinkingQueue(clock: { elapsed(): number }, messages: number, everyMs: number): DrainPart {
  return part('queue page-views', clock, (elapsed) => {
    const left = Math.max(0, messages - Math.floor(elapsed / everyMs));
    return { drained: left === 0, progress: String(left), detail: `${left} messages visible, 0 in flight` };
  });
}

test('a run that keeps progressing drains long after the old fixed budget (150 s)', async () => {
  const clock = fakeClock();
  // 4,000 messages, one every 100 ms: 400 s of steady progress, never a 60 s pause.
  await expect(untilDrained([shrinkingQueue(clock, 4_000, 100)], { stallMs: 60_000, clock })).resolves.toBeUndefined();
  expect(clock.elapsed()).toBeGreaterThanOrEqual(400_000);
});

test('a run that stalls fails after the stall time, naming the part that holds work', async () => {
  const clock = fakeClock();
  // Drains 100 messages, then stops at 37 left: a consumer that no longer makes progress.
  const stuck = part('queue page-views', clock, (elapsed) => {
    const left = Math.max(37, 137 - Math.floor(elapsed / 100));
    return { drained: false, progress: String(left), detail: `${left} messages visible, 0 in flight` };
  });
  const idle = part('mapping OrderProjection (kinesis -> OrderProjectionFunction)', clock, () => ({ drained: true, progress: 'same', detail: 'idle' }));
  const failure = untilDrained([stuck, idle], { stallMs: 60_000, clock });
  await expect(failure).rejects.toThrow(DrainStalledError);
  await expect(failure).rejects.toThrow('nothing progressed for 60 s (no delivery, delete, queue depth or stream position changed); not drained: queue page-views (37 messages visible, 0 in flight)');
  // It stalled after 10 s of progress; it gave up 60 s later, not before and not much after.
  expect(clock.elapsed()).toBeGreaterThanOrEqual(70_000);
  expect(clock.elapsed()).toBeLessThan(71_000);
});

test('the error lists what did not drain and why, for every part', async () => {
  const clock = fakeClock();
  const busy = { isIdle: () => false, lastActivityAt: clock.now() };
  const parts = [quiescentPart('mapping PageViewCounter (sqs -> PageViewCounterFunction)', busy, { quietMs: 4_000, clock }), shrinkingQueue(clock, 3, Number.POSITIVE_INFINITY)];
  const error = await untilDrained(parts, { stallMs: 5_000, clock }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(DrainStalledError);
  expect((error as DrainStalledError).limit).toBe('no-progress');
  expect((error as DrainStalledError).parts).toEqual([
    { name: 'mapping PageViewCounter (sqs -> PageViewCounterFunction)', detail: 'busy: a batch in flight or records waiting' },
    { name: 'queue page-views', detail: '3 messages visible, 0 in flight' },
  ]);
});

test('work that moves for ever without draining ends at the safety cap', async () => {
  const clock = fakeClock();
  const cycling = part('mapping ShipmentNotifier (dynamodb-stream -> ShipmentNotifierFunction)', clock, (elapsed) => ({ drained: false, progress: String(elapsed), detail: 'busy: a batch in flight or records waiting' }));
  const error = await untilDrained([cycling], { stallMs: 60_000, maxMs: 600_000, clock }).catch((caught: unknown) => caught);
  expect((error as DrainStalledError).limit).toBe('safety-cap');
  expect((error as Error).message).toMatch(/^not drained within 600 s, the drain's overall limit; not drained: mapping ShipmentNotifier/);
});

test('a mapping drains only once it has been quiet for quietMs', async () => {
  const clock = fakeClock();
  const mapping = { isIdle: () => true, lastActivityAt: clock.now() };
  await untilDrained([quiescentPart('mapping', mapping, { quietMs: 4_000, clock })], { stallMs: 60_000, clock });
  expect(clock.elapsed()).toBeGreaterThanOrEqual(4_000);
  expect(clock.elapsed()).toBeLessThan(4_500);
});

test('an aborted signal ends the drain at once with its reason', async () => {
  const clock = fakeClock();
  const controller = new AbortController();
  controller.abort(new Error('function page-view-counter failed to initialize'));
  await expect(untilDrained([shrinkingQueue(clock, 10, 100)], { clock, signal: controller.signal })).rejects.toThrow('function page-view-counter failed to initialize');
});
