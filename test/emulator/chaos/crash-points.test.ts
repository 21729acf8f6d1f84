/**
 * Crash points: the execution environment dies at one step of the consumer, `process.exit(137)`
 * inside a LocalFunction worker (not an error the runtime could catch and classify), then the
 * source redelivers and the invariants must hold: every counter equals the distinct valid events,
 * every order is at its latest version, poison is in the DLQ with its context, nothing is lost.
 *
 * The batches travel through real engines: fauxqs with a 3 s visibility timeout and an SQS
 * mapping (one poller, so a batch holds every message), and kinesalite with a stream mapping.
 * The crash is SDK middleware in the bundled handler (fixtures/crash-switch.ts) that fires once.
 */
import { createEnvelope, outgoingMessage, publishToKinesis, publishToSqs, type Envelope, type OutgoingMessage } from '../../../lambdas/runtime';
import { pageViewEffects } from '../../../example/handlers/page-view-counter';
import { planChunks } from '../../../lambdas/runtime/stores/dynamodb/chunking';
import { destroyClients, LOCAL_REGION, type LocalClients } from '../../../emulator/engines';
import { SqsMapping, StreamMapping, untilQuiet } from '../../../emulator/event-sources';
import { orderStatus, pageView } from '../../helpers/events';
import { createQueue, createStream, testClients, uniqueName } from '../../helpers/engines';
import { countersOf, dlqFailures, idempotencyTable, pkTable } from '../../helpers/fixtures';
import { pollUntil } from '../../helpers/poll';
import { bundleFixture, CrashingFunction, messagesIn, ordersOf, removeTemporaryFiles, summarise, type CrashPoint, type CrashSummary } from './crash-harness';

const VISIBILITY_TIMEOUT_SECONDS = 3;
/** Under the visibility timeout, so that a batch never outlives its own messages' invisibility while it gathers them. */
const BATCHING_WINDOW_SECONDS = 2;

let clients: LocalClients;
let counterAsset: string;
let projectionAsset: string;
const running: CrashingFunction[] = [];
const summaries: CrashSummary[] = [];

beforeAll(async () => {
  clients = testClients();
  [counterAsset, projectionAsset] = await Promise.all([bundleFixture('crashing-page-view-counter.ts'), bundleFixture('crashing-order-projection.ts')]);
});
afterAll(async () => {
  await Promise.all(running.splice(0).map((crashing) => crashing.stop()));
  destroyClients(clients);
  await removeTemporaryFiles();
  if (process.env.EO_CRASH_SUMMARY) process.stdout.write(`\n${JSON.stringify(summaries, null, 2)}\n`);
});

/** Distinct page views over two days, each of the first two published twice (producer retries), and one schema-2 view: poison until the fix. */
function pageViewBatch(views: number) {
  const valid = Array.from({ length: views }, (_, i) => pageView(`p-${i}`, `view-${i}`, i % 2 ? '2026-11-29T23:59:59Z' : '2026-11-30T00:00:00Z'));
  const poison = createEnvelope({ type: 'page.viewed', businessKey: 'schema-2-view', source: 'test', payload: { schemaVersion: 2, page: { id: 'docs' } }, occurredAt: '2026-11-30T12:00:00Z' });
  const messages: OutgoingMessage[] = [...valid, valid[0]!, valid[1]!, poison].map((event) => outgoingMessage(event));
  return { valid, poison, messages };
}

/** What the counters must hold: one view per distinct valid event, by page and by UTC day. */
function expectedCounters(valid: readonly Envelope[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const view of valid) {
    for (const key of [`page#${view.payload.pageId as string}`, `day#${view.occurredAt.slice(0, 10)}`]) counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

const pageTotal = (counters: Record<string, number> = {}) => Object.entries(counters).filter(([key]) => key.startsWith('page#')).reduce((sum, [, views]) => sum + views, 0);

/** A counters table, an idempotency table, a queue whose redrive policy (the backstop) targets the DLQ the consumer writes to. */
async function counterResources() {
  const dlq = await createQueue(clients.sqs, uniqueName('crash-dlq'));
  const [idempotency, counters, queue] = await Promise.all([
    idempotencyTable(clients.dynamodb),
    pkTable(clients.dynamodb, 'counters'),
    createQueue(clients.sqs, uniqueName('crash-views'), { VisibilityTimeout: String(VISIBILITY_TIMEOUT_SECONDS), RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: 6 }) }),
  ]);
  const variables = { COUNTERS_TABLE: counters.tableName, IDEMPOTENCY_TABLE: idempotency, DLQ_URL: dlq.url, SOURCE_QUEUE_URL: queue.url, MAX_ATTEMPTS: '5' };
  return { dlq, queue, countersTable: counters.tableName, variables };
}

/** Runs one batch of page views through a real queue into a page-view-counter that dies at `point`, until nothing comes back. */
async function crashOnQueue(point: CrashPoint, batch: ReturnType<typeof pageViewBatch>) {
  const { dlq, queue, countersTable, variables } = await counterResources();
  const crashing = await CrashingFunction.start({ name: 'page-view-counter', assetDir: counterAsset, point, variables });
  running.push(crashing);
  await publishToSqs(clients.sqs, queue.url, batch.messages);
  const { invoke, crashed } = crashing.invoker(async () => ({ counters: await countersOf(clients.dynamodb, countersTable), dlqMessages: await messagesIn(clients.sqs, dlq.url) }));
  // One poller and a batch size of exactly the messages: the crash hits one batch that holds them all.
  const mapping = new SqsMapping({
    queueUrl: queue.url, queueArn: queue.arn, region: LOCAL_REGION, batchSize: batch.messages.length, maximumBatchingWindowSeconds: BATCHING_WINDOW_SECONDS,
    reportBatchItemFailures: true, visibilityTimeoutSeconds: VISIBILITY_TIMEOUT_SECONDS, concurrency: 1, invoke, sqs: clients.sqs,
  });
  // Until the queue is empty (nothing left to redeliver), then until the mapping has settled.
  const drain = async () => {
    mapping.start();
    try {
      await pollUntil(async () => ((await messagesIn(clients.sqs, queue.url)) === 0 ? true : undefined), 'the queue to drain', { timeoutMs: 40_000, intervalMs: 200 });
      await untilQuiet([mapping], { quietMs: 300, timeoutMs: 10_000 });
    } finally {
      await mapping.stop();
    }
  };
  const startedAt = Date.now();
  await drain();
  const report = await crashing.crashReport();
  const result = {
    report,
    atCrash: crashed()?.state,
    crashResult: crashed()?.result,
    counters: await countersOf(clients.dynamodb, countersTable),
    dead: await dlqFailures(clients.sqs, dlq.url, 10, 500),
    left: await messagesIn(clients.sqs, queue.url),
  };
  const atCrash = result.atCrash && { pageViewsCounted: pageTotal(result.atCrash.counters), dlqMessages: result.atCrash.dlqMessages };
  summaries.push(summarise(point, batch.messages.length, { ...result, atCrash }, mapping.stats, crashing.stats(), Date.now() - startedAt));
  return { ...result, crashing, queue, dlq, countersTable, mapping, drain };
}

/** The invariants every queue crash point must leave, whatever it did on the way. */
function expectExactAfterRedelivery(run: Awaited<ReturnType<typeof crashOnQueue>>, batch: ReturnType<typeof pageViewBatch>, poisonAttempts: number[]) {
  expect(run.crashResult).toMatchObject({ ok: false, error: { kind: 'crash', name: 'Runtime.ExitError', message: expect.stringMatching(/exit code 137/) } });
  expect(run.counters).toEqual(expectedCounters(batch.valid));
  expect(run.dead.map((failure) => failure.attempts).sort()).toEqual(poisonAttempts);
  for (const failure of run.dead) {
    expect(failure).toMatchObject({ consumer: 'page-view-counter', reason: 'permanent', eventId: batch.poison.eventId, error: { name: 'SchemaViolationError', details: { issues: [expect.stringMatching(/^schemaVersion: 2/)] } } });
    expect(failure.original.body).toBe(JSON.stringify(batch.poison));
  }
  expect(new Set(run.dead.map((failure) => failure.source.itemIdentifier)).size).toBe(1);
  expect(run.left).toBe(0);
  expect(run.crashing.stats()).toMatchObject({ crashes: 1, coldStarts: 2 });
  expect(run.mapping.stats.invocationErrors).toBe(1);
}

// Concurrent: each scenario has its own tables, queues, function and mapping, and spends most of its time waiting for a visibility timeout.
describe('page-view-counter on SQS, killed at each step of the consumer', () => {
  test.concurrent('(a) before the transaction: nothing was committed; the redelivery commits everything once', async () => {
    const batch = pageViewBatch(12);
    const run = await crashOnQueue({ command: 'TransactWriteItemsCommand', when: 'before', nth: 1 }, batch);
    expect(run.report).toEqual({ command: 'TransactWriteItemsCommand', when: 'before', nth: 1, records: 15, done: [] });
    expect(run.atCrash).toEqual({ counters: {}, dlqMessages: 0 });
    expectExactAfterRedelivery(run, batch, [2]);
  });

  test.concurrent('(b) after the transaction, before the response: everything was committed; the redelivery finds only duplicates', async () => {
    const batch = pageViewBatch(12);
    const run = await crashOnQueue({ command: 'TransactWriteItemsCommand', when: 'after', nth: 1 }, batch);
    expect(run.report).toMatchObject({ records: 15, done: ['12 events'] });
    expect(run.atCrash).toEqual({ counters: expectedCounters(batch.valid), dlqMessages: 0 });
    expectExactAfterRedelivery(run, batch, [2]);
  });

  test.concurrent('(c) after a DLQ send, before the response: the poison is sent again, so the DLQ holds it twice; redriven after the fix, it counts once', async () => {
    const batch = pageViewBatch(12);
    const run = await crashOnQueue({ command: 'SendMessageCommand', when: 'after', nth: 1 }, batch);
    expect(run.report).toMatchObject({ records: 15, done: [`DLQ ${batch.poison.eventId}`] });
    expect(run.atCrash).toEqual({ counters: expectedCounters(batch.valid), dlqMessages: 1 });
    expectExactAfterRedelivery(run, batch, [1, 2]);
    // Redrive both copies after the fix: the dedup record of the poison's eventId absorbs the second.
    await run.crashing.deploy({ ACCEPT_SCHEMA_V2: 'true' });
    await publishToSqs(clients.sqs, run.queue.url, run.dead.map((failure) => ({ body: failure.original.body })));
    await run.drain();
    expect(await countersOf(clients.dynamodb, run.countersTable)).toEqual(expectedCounters([...batch.valid, { ...batch.poison, payload: { pageId: 'docs' } }]));
    expect(await messagesIn(clients.sqs, run.queue.url)).toBe(0);
    expect(await messagesIn(clients.sqs, run.dlq.url)).toBe(0);
  });

  // A batch's transactions are in flight at once (issue 27), so "the 2nd" is the second to succeed,
  // whichever chunk it is, and the third may commit on the table while the process dies.
  test.concurrent('(d) in the middle of a batch commit, after 2 of its 3 concurrent transactions succeeded: the redelivery commits only the rest', async () => {
    const batch = pageViewBatch(120);
    const plan = planChunks(batch.valid.map((view, index) => ({ index, eventId: view.eventId, payloadHash: '', effects: pageViewEffects('counters', view.payload.pageId as string, view.occurredAt) })));
    const sizes = plan.chunks.map((chunk) => chunk.events.length);
    expect(sizes.length).toBeGreaterThanOrEqual(3);
    const run = await crashOnQueue({ command: 'TransactWriteItemsCommand', when: 'after', nth: 2 }, batch);
    expect(run.report).toMatchObject({ records: 123 });
    const committed = (run.report?.done ?? []).map((line) => Number(/^(\d+) events$/.exec(line)?.[1]));
    expect(committed).toHaveLength(2);
    expect(isSubMultiset(committed, sizes)).toBe(true);
    const atCrash = pageTotal(run.atCrash?.counters);
    expect(atCrash).toBeGreaterThanOrEqual(committed[0]! + committed[1]!);
    expect(atCrash).toBeLessThanOrEqual(batch.valid.length);
    expectExactAfterRedelivery(run, batch, [2]);
  });
});

/** Whether every element of `part` can be matched to its own element of `whole`. */
function isSubMultiset(part: readonly number[], whole: readonly number[]): boolean {
  const left = [...whole];
  return part.every((value) => {
    const at = left.indexOf(value);
    return at >= 0 && left.splice(at, 1).length === 1;
  });
}

describe('order-projection on Kinesis (ordered), killed after the first PutItem of a batch', () => {
  test.concurrent('the retried batch leaves every order at its latest version; the poison is in the DLQ once', async () => {
    const [orders, stream, dlq, onFailure] = await Promise.all([
      pkTable(clients.dynamodb, 'orders'),
      createStream(clients.kinesis, uniqueName('crash-orders'), 1),
      createQueue(clients.sqs, uniqueName('crash-order-dlq')),
      createQueue(clients.sqs, uniqueName('crash-on-failure')),
    ]);
    const point: CrashPoint = { command: 'PutItemCommand', when: 'after', nth: 1 };
    const crashing = await CrashingFunction.start({ name: 'order-projection', assetDir: projectionAsset, point, variables: { ORDERS_TABLE: orders.tableName, DLQ_URL: dlq.url } });
    running.push(crashing);
    const o1v3 = orderStatus('o-1', 'SHIPPED', 3);
    const events = [orderStatus('o-1', 'CREATED', 1), orderStatus('o-2', 'CREATED', 1), o1v3, orderStatus('o-1', 'PAID', 2), orderStatus('o-3', 'PAID', 2), orderStatus('o-3', 'CREATED', 1), orderStatus('o-2', 'CANCELLED', 2), o1v3];
    const messages = events.map((event) => outgoingMessage(event, String(event.payload.orderId)));
    messages.splice(4, 0, { body: 'definitely not json', partitionKey: 'o-2' });
    await publishToKinesis(clients.kinesis, stream.streamName, messages);
    const { invoke, crashed } = crashing.invoker(() => ordersOf(clients.dynamodb, orders.tableName));
    const mapping = new StreamMapping({
      kind: 'kinesis', streamArn: stream.streamArn, streamName: stream.streamName, region: LOCAL_REGION, functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:order-projection',
      batchSize: 100, bisectBatchOnFunctionError: true, maximumRetryAttempts: 3, maximumRecordAgeSeconds: 3600, reportBatchItemFailures: true,
      startingPosition: 'TRIM_HORIZON', onFailureQueueUrl: onFailure.url, pollIntervalMs: 100, retryDelayMs: 100, shardRefreshMs: 500, invoke, clients: { kinesis: clients.kinesis, sqs: clients.sqs },
    });
    const startedAt = Date.now();
    mapping.start();
    const report = await (async () => {
      try {
        const crashReport = await crashing.crashReport();
        await untilQuiet([mapping], { quietMs: 1_000, timeoutMs: 30_000 });
        return crashReport;
      } finally {
        await mapping.stop();
      }
    })();

    expect(report).toEqual({ command: 'PutItemCommand', when: 'after', nth: 1, records: 9, done: ['order#o-1 v1'] });
    expect(crashed()?.state).toEqual({ 'order#o-1': 'CREATED v1' });
    const final = await ordersOf(clients.dynamodb, orders.tableName);
    expect(final).toEqual({ 'order#o-1': 'SHIPPED v3', 'order#o-2': 'CANCELLED v2', 'order#o-3': 'PAID v2' });
    const dead = await dlqFailures(clients.sqs, dlq.url, 10, 500);
    expect(dead.map((failure) => [failure.error.name, Buffer.from(failure.original.body, 'base64').toString()])).toEqual([['InvalidEnvelopeError', 'definitely not json']]);
    expect(await dlqFailures(clients.sqs, onFailure.url, 10, 300).catch(() => ['not a failure wrapper'])).toEqual([]);
    expect(mapping.stats).toMatchObject({ invocationErrors: 1, onFailureMessages: 0, recordsSkipped: 0 });
    expect(crashing.stats()).toMatchObject({ crashes: 1, coldStarts: 2 });
    summaries.push(summarise(point, messages.length, { report, atCrash: crashed()?.state, dead, left: 0 }, mapping.stats, crashing.stats(), Date.now() - startedAt));
  });
});
