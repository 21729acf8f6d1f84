/**
 * `eo replay` on a Kinesis consumer, on kinesalite and DynamoDB Local: the order projection
 * (versioned upserts) consumed its stream once; a replay of the window changes nothing, sends
 * nothing to the DLQ, and says so; a window that starts later (AT_TIMESTAMP) sends only what came
 * after; an event the consumer never saw is applied. The Lambda client is the in-process fake of
 * the Invoke API (../dlq/support.ts); the handler, its tables and its DLQ are real.
 */
import type { KinesisStreamRecord } from 'aws-lambda';
import { setTimeout as sleep } from 'node:timers/promises';
import { createOrderProjection, orderKey } from '../../../example/handlers/order-projection';
import { outgoingMessage, publishToKinesis, type BatchHandler, type ReplayCounts } from '../../../lambdas/runtime';
import { planReplay, runReplay, type ReplayPlan } from '../../../operations/replay';
import type { DlqContext } from '../../../operations/dlq';
import { createQueue, createStream, uniqueName, type CreatedQueue, type CreatedStream } from '../../helpers/engines';
import { kinesisEvent, lambdaContext, orderStatus } from '../../helpers/events';
import { itemByPk, pkTable } from '../../helpers/fixtures';
import { readKinesis } from '../../helpers/streams';
import { contextOf, dlqTestClients, inProcessLambda, topologyOf, visible } from '../dlq/support';

const { clients, streams } = dlqTestClients();

interface Orders {
  readonly stream: CreatedStream;
  readonly dlq: CreatedQueue;
  readonly ordersTable: string;
  readonly context: DlqContext;
  readonly lambda: ReturnType<typeof inProcessLambda>;
  readonly published: KinesisStreamRecord[];
}

/** Four order events and a poison record, consumed once as the mapping would: the poison is in the DLQ. */
async function setUp(): Promise<Orders> {
  const [stream, dlq, orders] = await Promise.all([createStream(clients.kinesis, uniqueName('replay-orders'), 1), createQueue(clients.sqs, uniqueName('replay-dlq')), pkTable(clients.dynamodb, 'orders')]);
  const events = [orderStatus('o-1', 'CREATED', 1), orderStatus('o-1', 'PAID', 2), orderStatus('o-2', 'CREATED', 1), orderStatus('o-1', 'SHIPPED', 3)];
  await publishToKinesis(clients.kinesis, stream.streamName, [...events.map((event) => outgoingMessage(event, String(event.payload.orderId))), { body: 'not json', partitionKey: 'o-9' }]);
  const published = await readKinesis(clients.kinesis, stream.streamName);
  const projection = createOrderProjection({ ordersTable: orders.tableName, dlqUrl: dlq.url, clients });
  expect((await projection(kinesisEvent(...published), lambdaContext())).batchItemFailures).toEqual([]);
  expect(await visible(clients.sqs, dlq.url)).toBe(1);
  const lambda = inProcessLambda({ 'order-projection': projection });
  const topology = topologyOf({
    dlq,
    sources: [{ role: 'on-failure', arn: stream.streamArn }],
    streams: [{ name: stream.streamName, arn: stream.streamArn, retentionHours: 24 }],
    consumerFunctions: [{ functionName: 'order-projection', consumer: 'order-projection', sourceArn: stream.streamArn, batchSize: 2 }],
  });
  return { stream, dlq, ordersTable: orders.tableName, context: contextOf(clients, streams, topology, clients.sqs, lambda), lambda, published };
}

function planFor(setup: Orders, fromMs: number, nowMs = Date.now()): ReplayPlan {
  return planReplay(setup.context.topology, 'order-projection', { fromMs, toMs: nowMs }, { nowMs });
}

test('a replay of a window already applied changes nothing, sends nothing, and counts each record', async () => {
  const setup = await setUp();
  const before = await itemByPk(clients.dynamodb, setup.ordersTable, orderKey('o-1'));
  const summary = await runReplay(setup.context, planFor(setup, Date.now() - 3_600_000));

  expect(summary.totals).toEqual({ records: 5, applied: 0, duplicates: 0, skipped: 4, permanent: 1, reported: 0 });
  expect(summary.complete).toBe(true);
  expect(summary.shards).toEqual([{ shardId: 'shardId-000000000000', inWindow: 5, sent: 5, invocations: 3 }]);
  // In shard order, in batches of the mapping's size, each marked as a replay.
  expect(setup.lambda.invocations.map((invocation) => invocation.event.Records.length)).toEqual([2, 2, 1]);
  expect(setup.lambda.invocations.flatMap((invocation) => invocation.event.Records).map((record) => (record as unknown as KinesisStreamRecord).kinesis.sequenceNumber)).toEqual(setup.published.map((record) => record.kinesis.sequenceNumber));
  expect(await itemByPk(clients.dynamodb, setup.ordersTable, orderKey('o-1'))).toEqual(before);
  expect(await visible(clients.sqs, setup.dlq.url)).toBe(1);
});

test('a dry run counts the records in the window and invokes nothing', async () => {
  const setup = await setUp();
  const summary = await runReplay(setup.context, planFor(setup, Date.now() - 3_600_000), { dryRun: true });
  expect(summary).toMatchObject({ dryRun: true, complete: false, shards: [{ inWindow: 5, sent: 0, invocations: 0 }] });
  expect(setup.lambda.invocations).toEqual([]);
});

test('the window starts at --from (AT_TIMESTAMP): what came before is not sent, and an event the consumer never saw is applied', async () => {
  const setup = await setUp();
  await sleep(1_100);
  const from = Date.now();
  await sleep(1_100);
  await publishToKinesis(clients.kinesis, setup.stream.streamName, [outgoingMessage(orderStatus('o-2', 'PAID', 2), 'o-2')]);
  const summary = await runReplay(setup.context, planFor(setup, from));
  expect(summary.totals).toEqual({ records: 1, applied: 1, duplicates: 0, skipped: 0, permanent: 0, reported: 0 });
  expect(await itemByPk(clients.dynamodb, setup.ordersTable, orderKey('o-2'))).toMatchObject({ status: 'PAID', version: 2 });
  const again = await runReplay(setup.context, planFor(setup, from));
  expect(again.totals).toMatchObject({ records: 1, applied: 0, skipped: 1 });
});

test('a queue consumer is refused, with why and what would make it replayable', async () => {
  const setup = await setUp();
  const queue = await createQueue(clients.sqs, uniqueName('page-views'));
  const topology = { ...setup.context.topology, consumerFunctions: [...setup.context.topology.consumerFunctions, { functionName: 'page-view-counter', consumer: 'page-view-counter', sourceArn: queue.arn }] };
  const nowMs = Date.now();
  expect(() => planReplay(topology, 'page-view-counter', { fromMs: nowMs - 60_000, toMs: nowMs }, { nowMs })).toThrow(/reads a queue \(.*\), and a queue keeps no history: .* feed it from a Kinesis stream/);
  expect(() => planReplay(topology, 'no-such-consumer', { fromMs: nowMs - 60_000, toMs: nowMs }, { nowMs })).toThrow('no consumer of Test is named "no-such-consumer" (its consumers: order-projection, page-view-counter)');
});

test('a reported record is sent again from there, as the mapping retries, with backoff, and counted once; one reported for the whole retry bound stops its shard', async () => {
  const setup = await setUp();
  const projection = createOrderProjection({ ordersTable: setup.ordersTable, clients });
  const third = setup.published[2]?.kinesis.sequenceNumber;
  let refusals = 1;
  // Reports the third record (as a throttle that outlasted the runtime's retries would) `refusals` times, then applies.
  const flaky: BatchHandler = async (event, context) => {
    const records = (event as { Records: KinesisStreamRecord[] }).Records;
    const at = records.findIndex((record) => record.kinesis.sequenceNumber === third);
    if (at < 0 || refusals <= 0) return projection(event, context);
    refusals -= 1;
    const settled = await projection({ Records: records.slice(0, at) }, context);
    const rest = records.slice(at).map((record) => ({ itemIdentifier: record.kinesis.sequenceNumber }));
    return { batchItemFailures: rest, replay: { ...(settled.replay as ReplayCounts), records: records.length, reported: rest.length } };
  };
  const lambda = inProcessLambda({ 'order-projection': flaky });
  const context = { ...setup.context, clients: { ...setup.context.clients, lambda } };
  const summary = await runReplay(context, planFor(setup, Date.now() - 3_600_000), { retryDelayMs: 1 });
  expect(summary.totals).toEqual({ records: 5, applied: 0, duplicates: 0, skipped: 4, permanent: 1, reported: 0 });
  expect(summary.complete).toBe(true);
  expect(lambda.invocations.map((invocation) => invocation.event.Records.length)).toEqual([2, 2, 2, 1]);

  // Issue 40, part 3: a fault that outlasts a few retries (a throttle storm, crashes) is retried
  // with backoff for the bound, as the mapping would, not given up after four reports in a row.
  refusals = 8;
  lambda.invocations.length = 0;
  const persisted = await runReplay(context, planFor(setup, Date.now() - 3_600_000), { retryDelayMs: 1, maxRetryDelayMs: 4 });
  expect(persisted.complete).toBe(true);
  expect(persisted.totals).toEqual({ records: 5, applied: 0, duplicates: 0, skipped: 4, permanent: 1, reported: 0 });
  expect(lambda.invocations).toHaveLength(2 + 8 + 1);
  expect(persisted.shards[0]).toMatchObject({ invocations: 11, retries: 8 });

  refusals = Number.POSITIVE_INFINITY;
  const stopped = await runReplay(context, planFor(setup, Date.now() - 3_600_000), { retryDelayMs: 1, maxRetryDelayMs: 4, retryForMs: 200 });
  expect(stopped.complete).toBe(false);
  expect(stopped.shards[0]?.stoppedAt).toEqual({ sequenceNumber: third, reason: expect.stringMatching(/^the function reported it .*; reported \d+ times in a row over 0\.2 s \(the replay retries a record for 0\.2 s: --retry-for\): re-run the replay/) });
  // The two records before it settled; it and the one after it in its batch are reported.
  expect(stopped.totals).toMatchObject({ records: 4, skipped: 2, reported: 2 });
});
