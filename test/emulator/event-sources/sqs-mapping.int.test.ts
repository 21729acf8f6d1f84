/**
 * The SQS mapping against fauxqs: what it deletes after each kind of response, how it gathers a
 * batch, and what each delivery fault does. Redelivery is fauxqs's own (visibility timeout).
 */
import { ChangeMessageVisibilityCommand, GetQueueAttributesCommand, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { destroyClients, LOCAL_REGION } from '../../../emulator/engines';
import { SqsMapping, type SqsMappingConfig } from '../../../emulator/event-sources/sqs-mapping';
import { createQueue, testClients, uniqueName, type CreatedQueue } from '../../helpers/engines';
import { pollUntil } from '../../helpers/poll';
import { failedItems, firstBatchFaults, recordingFunction, returned, threw, whileRunning, type RecordingFunction } from './support';

const clients = testClients();
afterAll(() => destroyClients(clients));
const { sqs } = clients;

type SqsFunction = RecordingFunction<SQSRecord>;

async function queueWith(bodies: readonly string[], visibilityTimeoutSeconds = 1): Promise<CreatedQueue> {
  const queue = await createQueue(sqs, uniqueName('mapped'), { VisibilityTimeout: String(visibilityTimeoutSeconds) });
  if (bodies.length > 0) await send(queue, bodies);
  return queue;
}

async function send(queue: CreatedQueue, bodies: readonly string[]): Promise<void> {
  const Entries = bodies.map((MessageBody, index) => ({ Id: String(index), MessageBody }));
  await sqs.send(new SendMessageBatchCommand({ QueueUrl: queue.url, Entries }));
}

function mappingFor(queue: CreatedQueue, fn: SqsFunction, overrides: Partial<SqsMappingConfig> = {}): SqsMapping {
  return new SqsMapping({
    queueUrl: queue.url,
    queueArn: queue.arn,
    region: LOCAL_REGION,
    batchSize: 10,
    maximumBatchingWindowSeconds: 0,
    reportBatchItemFailures: true,
    visibilityTimeoutSeconds: 1,
    concurrency: 1,
    invoke: fn.invoke,
    sqs,
    ...overrides,
  });
}

const bodiesOf = (batch: readonly SQSRecord[] | undefined): string[] => (batch ?? []).map((record) => record.body);
const receiveCounts = (batch: readonly SQSRecord[] | undefined): string[] => (batch ?? []).map((record) => record.attributes.ApproximateReceiveCount);
const idOf = (batch: readonly SQSRecord[], body: string): string => batch.find((record) => record.body === body)?.messageId ?? 'missing';

async function invocations(fn: SqsFunction, count: number): Promise<void> {
  await pollUntil(async () => (fn.batches.length >= count ? true : undefined), `${count} invocations`);
}

async function deleted(mapping: SqsMapping, count: number): Promise<void> {
  await pollUntil(async () => (mapping.stats.deleted >= count ? true : undefined), `${count} deletes`);
}

async function messagesLeft(queue: CreatedQueue): Promise<number> {
  const names = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] as const;
  const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queue.url, AttributeNames: [...names] }));
  return names.reduce((sum, name) => sum + Number(Attributes[name] ?? 0), 0);
}

test('a partial batch response deletes the successes; the failed message comes back with ApproximateReceiveCount 2', async () => {
  const queue = await queueWith(['a', 'b', 'c']);
  const fn = recordingFunction<SQSRecord>((records, call) => (call === 1 ? failedItems(idOf(records, 'b')) : returned()));
  const mapping = mappingFor(queue, fn);
  await whileRunning(mapping, async () => {
    await invocations(fn, 2);
    await deleted(mapping, 3);
  });
  expect(bodiesOf(fn.batches[0])).toEqual(['a', 'b', 'c']);
  expect(bodiesOf(fn.batches[1])).toEqual(['b']);
  expect(receiveCounts(fn.batches[1])).toEqual(['2']);
  expect(await messagesLeft(queue)).toBe(0);
});

test('a thrown invocation deletes nothing: the whole batch comes back', async () => {
  const queue = await queueWith(['a', 'b']);
  const fn = recordingFunction<SQSRecord>((_records, call) => (call === 1 ? threw() : returned()));
  const mapping = mappingFor(queue, fn);
  await whileRunning(mapping, async () => {
    await invocations(fn, 2);
    await deleted(mapping, 2);
  });
  expect(fn.batches.map(bodiesOf)).toEqual([['a', 'b'], ['a', 'b']]);
  expect(receiveCounts(fn.batches[1])).toEqual(['2', '2']);
  expect(mapping.stats).toMatchObject({ invocationErrors: 1, deleted: 2 });
});

test.each([
  { problem: 'an unknown identifier', response: { batchItemFailures: [{ itemIdentifier: 'not-in-this-batch' }] } },
  { problem: 'a malformed response', response: { batchItemFailures: 'b' } },
])('$problem fails the whole batch: nothing is deleted', async ({ response }) => {
  const queue = await queueWith(['a', 'b']);
  const fn = recordingFunction<SQSRecord>((_records, call) => (call === 1 ? returned(response) : returned()));
  const mapping = mappingFor(queue, fn);
  await whileRunning(mapping, async () => {
    await invocations(fn, 2);
    await deleted(mapping, 2);
  });
  expect(fn.batches.map(bodiesOf)).toEqual([['a', 'b'], ['a', 'b']]);
  expect(receiveCounts(fn.batches[1])).toEqual(['2', '2']);
  expect(mapping.stats).toMatchObject({ invalidResponses: 1, invocationErrors: 0 });
});

test('a batch is gathered across receives up to batchSize, and what is left goes when the window closes', async () => {
  const queue = await queueWith(['m1'], 10);
  const invokedAt: number[] = [];
  const fn = recordingFunction<SQSRecord>(() => {
    invokedAt.push(Date.now());
    return returned();
  });
  const mapping = mappingFor(queue, fn, { batchSize: 4, maximumBatchingWindowSeconds: 2, visibilityTimeoutSeconds: 10 });
  const started = Date.now();
  await whileRunning(mapping, async () => {
    await sleep(200);
    await send(queue, ['m2', 'm3']);
    await sleep(200);
    await send(queue, ['m4', 'm5', 'm6']);
    await invocations(fn, 2);
  });
  expect(fn.batches.map(bodiesOf)).toEqual([['m1', 'm2', 'm3', 'm4'], ['m5', 'm6']]);
  // The first batch filled up long before its 2 s window; the second waited its window out.
  expect((invokedAt[0] ?? Infinity) - started).toBeLessThan(1_500);
  expect((invokedAt[1] ?? 0) - (invokedAt[0] ?? 0)).toBeGreaterThanOrEqual(1_500);
});

test('the duplicate fault invokes the same batch twice, then deletes it once', async () => {
  const queue = await queueWith(['a', 'b']);
  const fn = recordingFunction<SQSRecord>();
  const mapping = mappingFor(queue, fn, { faults: firstBatchFaults({ duplicate: true }) });
  await whileRunning(mapping, () => deleted(mapping, 2));
  expect(fn.batches.map(bodiesOf)).toEqual([['a', 'b'], ['a', 'b']]);
  expect(fn.batches[1]?.map((record) => record.messageId)).toEqual(fn.batches[0]?.map((record) => record.messageId));
  expect(receiveCounts(fn.batches[1])).toEqual(['1', '1']);
  expect(mapping.stats).toMatchObject({ batches: 1, deliveries: 4, duplicateDeliveries: 2, deleted: 2 });
  expect(await messagesLeft(queue)).toBe(0);
});

test('the crashAfterInvoke fault drops the response: the batch comes back after the visibility timeout', async () => {
  const queue = await queueWith(['a', 'b']);
  const fn = recordingFunction<SQSRecord>();
  const mapping = mappingFor(queue, fn, { faults: firstBatchFaults({ crashAfterInvoke: true }) });
  await whileRunning(mapping, () => deleted(mapping, 2));
  expect(fn.batches.map(bodiesOf)).toEqual([['a', 'b'], ['a', 'b']]);
  expect(receiveCounts(fn.batches[1])).toEqual(['2', '2']);
  expect(mapping.stats).toMatchObject({ batches: 2, deliveries: 4, crashes: 1, deleted: 2 });
});

test('the outliveVisibility fault: another poller takes the batch meanwhile, and the late delete with stale receipt handles deletes nothing', async () => {
  const queue = await queueWith(['only']);
  // The second receive fails, so only a delete by the held (first) receive could remove the message.
  const fn = recordingFunction<SQSRecord>((records) => (records[0]?.attributes.ApproximateReceiveCount === '2' ? threw() : returned()));
  const mapping = mappingFor(queue, fn, { concurrency: 2, faults: firstBatchFaults({ outliveVisibility: true }) });
  await whileRunning(mapping, async () => {
    await invocations(fn, 3);
    await deleted(mapping, 2);
  });
  // Invoked in this order: the other poller's receive (2), the held batch (1), a third receive (3).
  expect(fn.batches.map(receiveCounts)).toEqual([['2'], ['1'], ['3']]);
  // fauxqs reports the stale delete as successful, as SQS does, so `deleted` counts it.
  expect(mapping.stats).toMatchObject({ visibilityOutlived: 1, deliveries: 3, invocationErrors: 1, deleted: 2 });
  expect(await messagesLeft(queue)).toBe(0);
});

describe('keepHeldInvisible, for a visibility timeout scaled below the real window and run time: a hold while held, the scaled timeout when let go', () => {
  /** `fn`, then `hold` before the invocation returns (given the call number, from 1). */
  const holding = (fn: SqsFunction, hold: (call: number) => Promise<void> | void): SqsFunction => ({
    batches: fn.batches,
    invoke: async (event) => {
      const result = await fn.invoke(event);
      await hold(fn.batches.length);
      return result;
    },
  });
  // The batch is gathered for a 1 s window and run for 1.5 s: 2.5 s held against a 1 s visibility timeout.
  const heldLong = (fn: SqsFunction): SqsFunction => holding(fn, () => sleep(1_500));

  test.each([
    { held: 'held longer than the visibility timeout', hold: heldLong },
    // As on a busy 2-core machine: the poller's own process starved, its first invocation keeping
    // the event loop from turning for 2.5 s, so that nothing the poller schedules runs meanwhile.
    { held: 'held while its poller is starved past the visibility timeout', hold: (fn: SqsFunction) => holding(fn, (call) => (call === 1 ? blockEventLoop(2_500) : undefined)) },
  ])('with it, a batch $held is delivered once and deleted', async ({ hold }) => {
    const queue = await queueWith(['a', 'b', 'c']);
    const fn = recordingFunction<SQSRecord>();
    const mapping = mappingFor(queue, hold(fn), { concurrency: 2, batchSize: 20, maximumBatchingWindowSeconds: 1, keepHeldInvisible: true });
    await whileRunning(mapping, async () => {
      await pollUntil(async () => ((await messagesLeft(queue)) === 0 ? true : undefined), 'an empty queue');
    });
    // A batch that reappeared would be delivered again with ApproximateReceiveCount 2, and the first delete would carry stale receipt handles.
    expect(fn.batches.map(receiveCounts)).toEqual([['1', '1', '1']]);
    expect(mapping.stats).toMatchObject({ deliveries: 3, deleted: 3 });
  });

  // The hold (30 s by default) is longer than pollUntil waits: these pass only if the batch is let go.
  test.each([
    { let: 'the crashAfterInvoke fault', respond: () => returned(), faults: firstBatchFaults({ crashAfterInvoke: true }) },
    { let: 'a thrown invocation', respond: (_records: SQSRecord[], call: number) => (call === 1 ? threw() : returned()), faults: undefined },
  ])('with it, a batch that $let lets go comes back after the visibility timeout, not the hold', async ({ respond, faults }) => {
    const queue = await queueWith(['a', 'b']);
    const fn = recordingFunction<SQSRecord>(respond);
    const mapping = mappingFor(queue, fn, { keepHeldInvisible: true, faults });
    await whileRunning(mapping, () => deleted(mapping, 2));
    expect(bodiesOf(fn.batches[0])).toEqual(['a', 'b']);
    // Both come back, each received a second time; in one batch or two, as SQS's receives return them
    // (a receive may return fewer messages than are visible).
    const redelivered = fn.batches.slice(1).flat();
    expect(bodiesOf(redelivered).sort()).toEqual(['a', 'b']);
    expect(receiveCounts(redelivered)).toEqual(['2', '2']);
  });

  test('with it, a message the crashed invocation reported keeps the visibility the function gave it', async () => {
    const queue = await queueWith(['a', 'b']);
    const invokedAt: number[] = [];
    // As the runtime does: report `b` and push its next delivery out (5 s), past the 1 s the rest comes back after.
    const fn = recordingFunction<SQSRecord>((records, call) => (call === 1 ? failedItems(idOf(records, 'b')) : returned()));
    const reportingWithBackoff: SqsFunction = {
      batches: fn.batches,
      invoke: async (event) => {
        invokedAt.push(Date.now());
        const result = await fn.invoke(event);
        const b = fn.batches.length === 1 ? fn.batches[0]?.find((record) => record.body === 'b') : undefined;
        if (b) await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: queue.url, ReceiptHandle: b.receiptHandle, VisibilityTimeout: 5 }));
        return result;
      },
    };
    const mapping = mappingFor(queue, reportingWithBackoff, { keepHeldInvisible: true, faults: firstBatchFaults({ crashAfterInvoke: true }) });
    await whileRunning(mapping, () => deleted(mapping, 2));
    const redeliveredB = fn.batches.findIndex((batch, index) => index > 0 && bodiesOf(batch).includes('b'));
    expect((invokedAt[redeliveredB] ?? 0) - (invokedAt[0] ?? 0)).toBeGreaterThanOrEqual(4_500);
    expect(fn.batches.slice(1).flatMap(bodiesOf).sort()).toEqual(['a', 'b']);
  });

  test('without it, the same batch is delivered again and again while it is held', async () => {
    const queue = await queueWith(['a', 'b', 'c']);
    const fn = recordingFunction<SQSRecord>();
    const mapping = mappingFor(queue, heldLong(fn), { concurrency: 2, batchSize: 20, maximumBatchingWindowSeconds: 1, keepHeldInvisible: false });
    await whileRunning(mapping, async () => {
      // Each receive's deletes come after the next receive, with stale receipt handles: the batch keeps coming back.
      await pollUntil(async () => (fn.batches.flatMap(receiveCounts).some((count) => Number(count) >= 3) ? true : undefined), 'a third receive');
    });
    expect(mapping.stats.deliveries).toBeGreaterThanOrEqual(9);
  });

  test('the outliveVisibility fault still lets the held batch reappear', async () => {
    const queue = await queueWith(['only']);
    const fn = recordingFunction<SQSRecord>((records) => (records[0]?.attributes.ApproximateReceiveCount === '2' ? threw() : returned()));
    const mapping = mappingFor(queue, fn, { concurrency: 2, keepHeldInvisible: true, faults: firstBatchFaults({ outliveVisibility: true }) });
    await whileRunning(mapping, async () => {
      await invocations(fn, 3);
      await deleted(mapping, 2);
    });
    expect(fn.batches.map(receiveCounts)).toEqual([['2'], ['1'], ['3']]);
    expect(await messagesLeft(queue)).toBe(0);
  });
});

/** Keeps this thread busy: no timer, I/O callback or promise of this process runs meanwhile. */
function blockEventLoop(ms: number): void {
  const until = Date.now() + ms;
  let spins = 0;
  while (Date.now() < until) spins += 1;
  if (spins < 0) throw new Error('unreachable');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
