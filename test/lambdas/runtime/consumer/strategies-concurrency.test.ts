/**
 * `directStrategy` runs handlers side by side: an unordered source's events up to `concurrency` at
 * once, an ordered source's groups side by side (each group one event at a time, in order, stopped
 * at its first failure), all under one bound. Jest's fake timers stand in for the clock, so that a
 * handler "takes" exactly HANDLER_MS and elapsed times are exact, not measured.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { z } from 'zod';
import type { FailureEnvelope } from '../../../../aws/dlq-format';
import { createConsumer, type BatchEvent } from '../../../../lambdas/runtime/consumer/consumer';
import { DlqSender } from '../../../../lambdas/runtime/failures/dlq';
import { PermanentError, TransientError } from '../../../../lambdas/runtime/core/errors';
import { fromSqsRecord, SourceKind } from '../../../../lambdas/runtime/decoding/records';
import { route } from '../../../../lambdas/runtime/decoding/routes';
import { DEFAULT_DIRECT_CONCURRENCY, directStrategy, type DirectResult } from '../../../../lambdas/runtime/consumer/direct-strategy';
import { type AcceptedEvent, type Outcome } from '../../../../lambdas/runtime/consumer/strategy';
import type { TimeBudget } from '../../../../lambdas/runtime/core/time-budget';
import { kinesisEvent, kinesisRecord, pageView, sqsEvent, sqsRecord, TEST_QUEUE_ARN } from '../../../helpers/events';
import { asClient, FakeClient, noSleep, recordingObservability } from '../../../helpers/fakes';

const HANDLER_MS = 100;
const FIFO_ARN = `${TEST_QUEUE_ARN}.fifo`;
const DLQ_URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/page-views-dlq';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

/** What ran when: each handler's interval on the fake clock, and the most that were in flight at once. */
function timeline() {
  const intervals = new Map<string, { start: number; end?: number }>();
  let inFlight = 0;
  let maxInFlight = 0;
  /** A handler that takes `ms`, then fails with `failure` if given. */
  const handler = (id: string, failure?: Error, ms = HANDLER_MS) => async (): DirectResult => {
    intervals.set(id, { start: Date.now() });
    maxInFlight = Math.max(maxInFlight, (inFlight += 1));
    await new Promise((resolve) => setTimeout(resolve, ms));
    inFlight -= 1;
    (intervals.get(id) as { end?: number }).end = Date.now();
    if (failure !== undefined) throw failure;
  };
  const overlap = (first: string, second: string): boolean => {
    const [a, b] = [intervals.get(first), intervals.get(second)];
    return a !== undefined && b !== undefined && a.start < (b.end ?? Infinity) && b.start < (a.end ?? Infinity);
  };
  return { handler, intervals, overlap, ran: () => [...intervals.keys()], maxInFlight: () => maxInFlight };
}

/** Runs `work` to its end on the fake clock; returns its result and the fake time it took. */
async function timed<T>(work: () => Promise<T>): Promise<{ result: T; elapsedMs: number }> {
  const startedAt = Date.now();
  const done = work();
  await jest.runAllTimersAsync();
  return { result: await done, elapsedMs: Date.now() - startedAt };
}

function accepted(index: number, invoke: () => DirectResult): AcceptedEvent<DirectResult> {
  const event = { eventId: `evt-${index}`, type: 'page.viewed', occurredAt: '2026-11-30T10:00:00Z', source: 'test', payload: {} };
  return { index, event, context: { record: fromSqsRecord(sqsRecord('{}')) }, invoke };
}

function statusOf(outcome: Outcome | undefined): string {
  return outcome?.status === 'failed' ? `failed:${(outcome.error as Error).name}` : String(outcome?.status);
}

/** A budget that ends `ms` from now on the fake clock. */
function budgetOf(ms: number): TimeBudget {
  const stopAt = Date.now() + ms;
  const remainingMs = () => Math.max(0, stopAt - Date.now());
  return { remainingMs, exhausted: () => remainingMs() <= 0 };
}

describe('directStrategy on an unordered source', () => {
  test.each([
    { concurrency: undefined, events: 25 },
    { concurrency: 4, events: 10 },
    { concurrency: 10, events: 3 },
    { concurrency: 1, events: 5 },
  ])('concurrency $concurrency, $events slow handlers: min(limit, N) in flight, done in ceil(N / limit) handler times', async ({ concurrency, events }) => {
    const { handler, maxInFlight } = timeline();
    const limit = concurrency ?? DEFAULT_DIRECT_CONCURRENCY;
    const batch = Array.from({ length: events }, (_, index) => accepted(index, handler(`e${index}`)));
    const { result, elapsedMs } = await timed(() => directStrategy({ concurrency }).apply(batch, { ordered: false }));
    expect(maxInFlight()).toBe(Math.min(limit, events));
    expect(elapsedMs).toBe(Math.ceil(events / limit) * HANDLER_MS);
    expect([...result.keys()]).toEqual(batch.map((event) => event.index));
    expect(new Set([...result.values()].map(statusOf))).toEqual(new Set(['applied']));
  });

  test('the default is 10', () => {
    expect(DEFAULT_DIRECT_CONCURRENCY).toBe(10);
  });

  test('events start in batch order, and each gets its own outcome whatever the order they finish in', async () => {
    const { handler, ran } = timeline();
    const batch = [accepted(3, handler('e3', undefined, 300)), accepted(1, handler('e1', new PermanentError('declined'), 200)), accepted(2, handler('e2', undefined, 100))];
    const { result } = await timed(() => directStrategy({ concurrency: 2, sleep: noSleep }).apply(batch, { ordered: false }));
    expect(ran()).toEqual(['e3', 'e1', 'e2']);
    expect([...result.entries()].map(([index, outcome]) => [index, statusOf(outcome)])).toEqual([
      [3, 'applied'],
      [1, 'failed:PermanentError'],
      [2, 'applied'],
    ]);
  });

  test('the time budget still stops new starts: events waiting for a slot when it runs out are out of time', async () => {
    const { handler, ran } = timeline();
    const batch = Array.from({ length: 6 }, (_, index) => accepted(index, handler(`e${index}`)));
    // Two at a time, 250 ms of budget: starts at 0 and 100 ms; at 200 ms the 50 ms left do not cover the slowest event (100 ms).
    const { result } = await timed(() => directStrategy({ concurrency: 2 }).apply(batch, { ordered: false, budget: budgetOf(250) }));
    expect(ran()).toEqual(['e0', 'e1', 'e2', 'e3']);
    expect([...result.values()].map(statusOf)).toEqual(['applied', 'applied', 'applied', 'applied', 'failed:OutOfTimeError', 'failed:OutOfTimeError']);
  });

  test.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '4' as unknown as number])('fails if concurrency is not a positive integer (%p)', (concurrency) => {
    expect(() => directStrategy({ concurrency })).toThrow(new RangeError(`concurrency must be a positive integer (given ${String(concurrency)})`));
  });
});

describe('directStrategy on an ordered run', () => {
  test('one event at a time, in order, stopped at the first failure; the budget stops it too', async () => {
    const { handler, ran, maxInFlight } = timeline();
    const batch = [accepted(0, handler('e0')), accepted(1, handler('e1')), accepted(2, handler('e2')), accepted(3, handler('e3'))];
    const { result } = await timed(() => directStrategy().apply(batch, { ordered: true, budget: budgetOf(250) }));
    expect(maxInFlight()).toBe(1);
    expect(ran()).toEqual(['e0', 'e1']);
    expect([...result.values()].map(statusOf)).toEqual(['applied', 'applied', 'failed:OutOfTimeError', 'failed:NotAttemptedError']);
  });
});

/** A consumer whose handler takes HANDLER_MS per page view, failing `transient-*` transiently and `poison-*` permanently. */
function consumerOf(source: SourceKind, concurrency?: number, msOf: (pageId: string) => number = () => HANDLER_MS) {
  const { handler, ...seen } = timeline();
  const dlq = new FakeClient(() => ({ MessageId: 'dlq-message' }));
  const failureOf = (pageId: string) => (pageId.startsWith('transient-') ? new TransientError(`${pageId} failed for now`) : pageId.startsWith('poison-') ? new PermanentError(`${pageId} can never apply`) : undefined);
  const consumer = createConsumer<DirectResult>({
    name: 'slow-consumer',
    source,
    routes: { 'page.viewed': route(z.object({ pageId: z.string() }), (event) => handler(event.payload.pageId, failureOf(event.payload.pageId), msOf(event.payload.pageId))()) },
    strategy: directStrategy({ concurrency, maxAttempts: 1, sleep: noSleep }),
    dlq: new DlqSender(asClient<SQSClient>(dlq), DLQ_URL, { sleep: noSleep, maxAttempts: 1 }),
    maxAttempts: 5,
    maxReceiveCount: 6,
    observability: recordingObservability(),
  });
  const handle = (event: BatchEvent) => timed(async () => (await consumer(event)).batchItemFailures.map((failure) => failure.itemIdentifier));
  const dlqIds = () => dlq.commandsNamed('SendMessageCommand').map((command) => (JSON.parse(String(command.input.MessageBody)) as FailureEnvelope).source.itemIdentifier);
  return { handle, dlqIds, ...seen };
}

const fifo = (pageId: string, group: string) => sqsRecord(pageView(pageId), { messageId: pageId, messageGroupId: group, queueArn: FIFO_ARN });
const standard = (pageId: string) => sqsRecord(pageView(pageId), { messageId: pageId });

/** Whether the ids ran one after another in this order, none overlapping the next. */
function inSequence(intervals: ReturnType<typeof timeline>['intervals'], ids: readonly string[]): boolean {
  return ids.every((id, position) => position === 0 || (intervals.get(ids[position - 1] as string)?.end ?? Infinity) <= (intervals.get(id)?.start ?? -Infinity));
}

describe('through the consumer', () => {
  test('a standard queue: failures are reported and dead-lettered in batch order, though handlers end in another', async () => {
    // The later a message, the sooner its handler ends: p6 after 10 ms, transient-1 after 60 ms.
    const { handle, dlqIds, intervals } = consumerOf(SourceKind.SQS, undefined, (pageId) => (7 - Number(pageId.at(-1))) * 10);
    const { result: failures, elapsedMs } = await handle(sqsEvent(...['transient-1', 'poison-2', 'p3', 'transient-4', 'poison-5', 'p6'].map(standard)));
    expect(elapsedMs).toBe(60);
    const byEnd = [...intervals.entries()].sort(([, first], [, second]) => (first.end ?? 0) - (second.end ?? 0)).map(([id]) => id);
    expect(byEnd).toEqual(['p6', 'poison-5', 'transient-4', 'p3', 'poison-2', 'transient-1']);
    expect(failures).toEqual(['transient-1', 'transient-4']);
    expect(dlqIds()).toEqual(['poison-2', 'poison-5']);
  });

  test('SQS FIFO: a group runs one message at a time in order; groups run side by side', async () => {
    const { handle, intervals, overlap, maxInFlight } = consumerOf(SourceKind.SQS);
    const groups = { a: ['a1', 'a2', 'a3'], b: ['b1', 'b2', 'b3'], c: ['c1', 'c2', 'c3'] };
    const records = [0, 1, 2].flatMap((at) => Object.entries(groups).map(([group, ids]) => fifo(ids[at] as string, group)));
    const { result: failures, elapsedMs } = await handle(sqsEvent(...records));
    expect(failures).toEqual([]);
    for (const ids of Object.values(groups)) expect(inSequence(intervals, ids)).toBe(true);
    expect(overlap('a1', 'b1') && overlap('b1', 'c1') && overlap('a3', 'c3')).toBe(true);
    expect(maxInFlight()).toBe(3);
    expect(elapsedMs).toBe(3 * HANDLER_MS);
  });

  test('SQS FIFO: groups share the limit', async () => {
    const { handle, maxInFlight } = consumerOf(SourceKind.SQS, 2);
    const records = ['a', 'b', 'c', 'd'].flatMap((group) => [fifo(`${group}1`, group), fifo(`${group}2`, group)]);
    const { result: failures, elapsedMs } = await handle(sqsEvent(...records));
    expect(failures).toEqual([]);
    expect(maxInFlight()).toBe(2);
    expect(elapsedMs).toBe(4 * HANDLER_MS);
  });

  test("SQS FIFO: a failure stops its own group only; the rest of that group is reported, not run", async () => {
    const { handle, ran, intervals } = consumerOf(SourceKind.SQS);
    const records = [fifo('a1', 'a'), fifo('b1', 'b'), fifo('transient-a2', 'a'), fifo('b2', 'b'), fifo('a3', 'a'), fifo('b3', 'b')];
    const { result: failures } = await handle(sqsEvent(...records));
    expect(failures).toEqual(['transient-a2', 'a3']);
    expect(ran()).not.toContain('a3');
    expect(inSequence(intervals, ['b1', 'b2', 'b3'])).toBe(true);
  });

  test('Kinesis: the batch is one order group, one record at a time in sequence order', async () => {
    const { handle, intervals, maxInFlight } = consumerOf(SourceKind.KINESIS);
    const ids = ['k1', 'k2', 'k3', 'k4'];
    const { result: failures, elapsedMs } = await handle(kinesisEvent(...ids.map((id, index) => kinesisRecord(pageView(id), { sequenceNumber: String(100 + index), partitionKey: `key-${index}` }))));
    expect(failures).toEqual([]);
    expect(maxInFlight()).toBe(1);
    expect(inSequence(intervals, ids)).toBe(true);
    expect(elapsedMs).toBe(4 * HANDLER_MS);
  });
});
