/**
 * The redrive's dedup window check on fauxqs, kinesalite and DynamoDB Local, with failures the
 * real consumers wrote. A redriven copy is new to its source and lives one more source retention:
 * it must not be processed after the dedup record of an earlier, applied copy expired. Time is
 * moved in two ways only: a message "sent N days ago" is handed to the consumer with its
 * `SentTimestamp` shifted back (SQS cannot be told to backdate one), and a redrive "N days later"
 * runs with `now` moved on (messages stay in the engines' DLQs for as long as the test needs).
 */
import { CreateTopicCommand } from '@aws-sdk/client-sns';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { createOrderProjection } from '../../../example/handlers/order-projection';
import { createPageViewCounter } from '../../../example/handlers/page-view-counter';
import { createShipmentNotifier } from '../../../example/handlers/shipment-notifier';
import { createEnvelope, outgoingMessage, publishToKinesis, publishToSqs, type BatchHandler, type Envelope } from '../../../lambdas/runtime';
import { redriveQueue, type ConsumerWindow, type DlqContext } from '../../../operations/dlq';
import { FIRST_SENT_ATTRIBUTE } from '../../../aws/first-sent';
import type { FailureEnvelope } from '../../../aws/dlq-format';
import { peekAll } from '../../../aws/sqs/peek';
import { createQueue, createStream, uniqueName, type CreatedQueue } from '../../helpers/engines';
import { dynamoEvent, kinesisEvent, lambdaContext } from '../../helpers/events';
import { idempotencyTable, pkTable } from '../../helpers/fixtures';
import { readKinesis, readTableStream } from '../../helpers/streams';
import { consumeQueue, contextOf, dlqTestClients, FAST_SWEEP, inProcessLambda, topologyOf, visible } from './support';

const DAY_S = 86_400;
const DAY_MS = DAY_S * 1000;
/** The queue consumer's window since the fix: 4 days + 14 days + 1 day + 4 days. */
const QUEUE_WINDOW_S = 23 * DAY_S;
/** The window before it, which stacks deployed before the fix still have: 4 + 14 + 1 days. */
const OLD_QUEUE_WINDOW_S = 19 * DAY_S;

const { clients, streams } = dlqTestClients();
const later = (days: number) => () => new Date(Date.now() + days * DAY_MS);

interface PageViews {
  readonly queue: CreatedQueue;
  readonly dlq: CreatedQueue;
  readonly context: DlqContext;
  /** The consumer before the fix: schema 2 is a permanent failure. */
  readonly before: BatchHandler;
}

/** The page-view counter's queue (4 days' retention) and DLQ; its dedup window as the stack declares it, if at all. */
async function pageViews(dedupTtlSeconds?: number): Promise<PageViews> {
  const [idempotency, counters, dlq] = await Promise.all([idempotencyTable(clients.dynamodb), pkTable(clients.dynamodb, 'counters'), createQueue(clients.sqs, uniqueName('page-views-dlq'))]);
  const queue = await createQueue(clients.sqs, uniqueName('page-views'), { MessageRetentionPeriod: String(4 * DAY_S), RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: 2 }) });
  const before = createPageViewCounter({ countersTable: counters.tableName, idempotencyTable: idempotency, dlqUrl: dlq.url, sourceQueueUrl: queue.url, maxAttempts: 5, acceptSchemaV2: false, clients, retry: { sleep: async () => undefined, maxAttempts: 2 } });
  const consumerWindows: ConsumerWindow[] = dedupTtlSeconds === undefined ? [] : [{ consumer: 'page-view-counter', sourceArn: queue.arn, dedupTtlSeconds }];
  const topology = topologyOf({ dlq, sources: [{ role: 'redrive', arn: queue.arn }], queues: [queue], consumerWindows });
  return { queue, dlq, context: contextOf(clients, streams, topology), before };
}

function pageViewV2(id: string): Envelope {
  return createEnvelope({ type: 'page.viewed', businessKey: `v2:${id}`, source: 'test', payload: { schemaVersion: 2, page: { id } }, occurredAt: '2026-11-30T12:00:00.000Z' });
}

/** The consumer before the fix takes everything in the queue, each message as if sent `daysAgo` days ago. */
async function failAll(setup: PageViews, daysAgo = 0): Promise<void> {
  const sentEarlier = (record: SQSRecord): SQSRecord => ({ ...record, attributes: { ...record.attributes, SentTimestamp: String(Number(record.attributes.SentTimestamp) - daysAgo * DAY_MS) } });
  await consumeQueue(clients.sqs, setup.queue, (event, context) => setup.before({ Records: (event.Records as SQSRecord[]).map(sentEarlier) }, context));
}

const redrive = (setup: PageViews, options: Parameters<typeof redriveQueue>[1] = {}) => redriveQueue({ ...setup.context, queue: setup.dlq.url }, { sweep: FAST_SWEEP, ...options });

test('a stack still on the old 19-day window: a copy redriven 16 days after it was sent is held back, since it would live 4 days more', async () => {
  const setup = await pageViews(OLD_QUEUE_WINDOW_S);
  await publishToSqs(clients.sqs, setup.queue.url, [outgoingMessage(pageViewV2('docs'))]);
  await failAll(setup, 16);

  const dryRun = await redrive(setup, { dryRun: true });
  expect(dryRun).toMatchObject({ dryRun: true, redriven: 0, pastDedupWindow: 1 });
  const held = await redrive(setup);
  expect(held).toMatchObject({ redriven: 0, pastDedupWindow: 1, failed: 0, uncheckedSources: [] });
  expect(held.details[0]).toMatchObject({ status: 'past-dedup-window', kind: 'wrapper', target: setup.queue.url });
  expect(held.records).toBe(0);
  expect(held.details[0]?.reason).toMatch(/could be processed until \S+ \(the source keeps it 4 d\), after page-view-counter's dedup record of an earlier copy may have expired at \S+ \(19 d after \S+, when the event's first copy was sent\).*--allow-past-dedup-window/);
  expect([await visible(clients.sqs, setup.dlq.url), await visible(clients.sqs, setup.queue.url)]).toEqual([1, 0]);

  const allowed = await redrive(setup, { allowPastDedupWindow: true });
  expect(allowed).toMatchObject({ redriven: 1, pastDedupWindow: 0 });
  expect(allowed.details[0]?.note).toMatch(/^past the dedup window, redriven on --allow-past-dedup-window: a redriven copy could be processed until/);
  expect([await visible(clients.sqs, setup.dlq.url), await visible(clients.sqs, setup.queue.url)]).toEqual([0, 1]);
});

test('a copy carries the time of the event\'s first copy through the next failure, so a second redrive is checked from there, not from the copy', async () => {
  const setup = await pageViews(QUEUE_WINDOW_S);
  await publishToSqs(clients.sqs, setup.queue.url, [outgoingMessage(pageViewV2('docs'))]);
  await failAll(setup, 10);
  // First cycle: 10 days after the first copy, within the 23-day window with 4 days to spare.
  expect(await redrive(setup)).toMatchObject({ redriven: 1, pastDedupWindow: 0 });

  // The redriven copy fails again; its wrapper keeps the carried time in the original's attributes.
  await failAll(setup);
  const [message] = await peekAll(clients.sqs, setup.dlq.url);
  const wrapper = JSON.parse(message?.Body ?? '{}') as FailureEnvelope;
  const carried = Date.parse(String(wrapper.original.messageAttributes?.[FIRST_SENT_ATTRIBUTE]?.stringValue));
  expect(Date.now() - carried).toBeGreaterThan(10 * DAY_MS - 60_000);
  expect(Number(wrapper.original.attributes?.SentTimestamp)).toBeGreaterThan(carried + 9 * DAY_MS);

  // 5 days on the copy would still be done within the window (10 + 5 + 4 = 19 <= 23); 10 days on it would not (24).
  expect(await redrive(setup, { dryRun: true, now: later(5) })).toMatchObject({ redriven: 1, pastDedupWindow: 0 });
  const second = await redrive(setup, { now: later(10) });
  expect(second).toMatchObject({ redriven: 0, pastDedupWindow: 1 });
  expect(second.details[0]?.reason).toMatch(/23 d after \S+, when the event's first copy was sent/);
  expect(await visible(clients.sqs, setup.dlq.url)).toBe(1);
});

test('a source that no consumer of the stack declares a dedup TTL for is redriven unchecked, and the result says so', async () => {
  const setup = await pageViews();
  await publishToSqs(clients.sqs, setup.queue.url, [outgoingMessage(pageViewV2('docs'))]);
  await failAll(setup, 30);
  expect(await redrive(setup)).toMatchObject({ redriven: 1, pastDedupWindow: 0, uncheckedSources: [setup.queue.arn] });
});

test('a Kinesis wrapper holds no arrival time: its failure is counted back by the stream\'s retention, against every consumer of the stream', async () => {
  const [stream, dlq, orders] = await Promise.all([createStream(clients.kinesis, uniqueName('orders'), 1), createQueue(clients.sqs, uniqueName('order-projection-dlq')), pkTable(clients.dynamodb, 'orders')]);
  await publishToKinesis(clients.kinesis, stream.streamName, [{ body: 'not json', partitionKey: 'poison-key' }]);
  await createOrderProjection({ ordersTable: orders.tableName, dlqUrl: dlq.url, clients })(kinesisEvent(...(await readKinesis(clients.kinesis, stream.streamName))));
  const sevenDayStream = { name: stream.streamName, arn: stream.streamArn, retentionHours: 7 * 24 };
  const contextWith = (...windows: [string, number][]) =>
    contextOf(clients, streams, topologyOf({ dlq, sources: [{ role: 'on-failure', arn: stream.streamArn }], streams: [sevenDayStream], consumerWindows: windows.map(([consumer, days]) => ({ consumer, sourceArn: stream.streamArn, dedupTtlSeconds: days * DAY_S })) }));
  const redriveIn13Days = (context: DlqContext, dryRun = true) => redriveQueue({ ...context, queue: dlq.url }, { sweep: FAST_SWEEP, dryRun, now: later(13) });

  // The new window of a 7-day stream (7 + 14 + 1 + 7 = 29 days) covers a redrive 13 days after the failure.
  expect(await redriveIn13Days(contextWith(['order-projection', 29]))).toMatchObject({ redriven: 1, pastDedupWindow: 0 });
  // Another consumer of the stream, still on its old 22 days, gets the copy too: the record may
  // have arrived 7 days before it failed, and the copy lives 7 days after the redrive (27 > 22).
  const held = await redriveIn13Days(contextWith(['order-projection', 29], ['order-audit', 22]), false);
  expect(held).toMatchObject({ redriven: 0, pastDedupWindow: 1 });
  expect(held.details[0]?.reason).toMatch(/order-audit's dedup record .* \(22 d after \S+, when it first failed, less the source's 7 d retention\)/);
  expect(await readKinesis(clients.kinesis, stream.streamName)).toHaveLength(1);
  expect(await visible(clients.sqs, dlq.url)).toBe(1);
});

test('a table stream\'s change past its consumer\'s window is held before the consumer is invoked', async () => {
  const [orders, dlq, idempotency] = await Promise.all([pkTable(clients.dynamodb, 'orders', true), createQueue(clients.sqs, uniqueName('notifier-dlq')), idempotencyTable(clients.dynamodb)]);
  const { TopicArn = '' } = await clients.sns.send(new CreateTopicCommand({ Name: uniqueName('notifications') }));
  await clients.dynamodb.send(new PutItemCommand({ TableName: orders.tableName, Item: marshall({ pk: 'order#bad', status: 'SHIPPED', version: 1 }) }));
  const streamArn = orders.streamArn ?? '';
  const notifier = createShipmentNotifier({ topicArn: TopicArn, idempotencyTable: idempotency, dlqUrl: dlq.url, clients });
  await notifier(dynamoEvent(...(await readTableStream(streams, streamArn))), lambdaContext());
  // The notifier keeps its dedup records 2 days (its function's DEDUP_TTL_SECONDS); another consumer of the stream, 30 days, gets nothing of the redrive.
  const consumerWindows = [{ consumer: 'shipment-notifier', sourceArn: streamArn, dedupTtlSeconds: 2 * DAY_S }, { consumer: 'shipment-audit', sourceArn: streamArn, dedupTtlSeconds: 30 * DAY_S }];
  const consumerFunctions = [{ functionName: 'shipment-notifier', consumer: 'shipment-notifier', sourceArn: streamArn }, { functionName: 'shipment-audit', consumer: 'shipment-audit', sourceArn: streamArn }];
  const topology = topologyOf({ dlq, sources: [{ role: 'on-failure', arn: streamArn }], tables: [{ name: orders.tableName, arn: `arn:aws:dynamodb:us-east-1:000000000000:table/${orders.tableName}`, streamArn }], consumerWindows, consumerFunctions });
  const lambda = inProcessLambda({ 'shipment-notifier': notifier });
  const redriveAt = (days: number) => redriveQueue({ ...contextOf(clients, streams, topology, clients.sqs, lambda), queue: dlq.url }, { sweep: FAST_SWEEP, dryRun: true, now: () => new Date(Date.now() + days * DAY_MS) });

  // Handed to the notifier at once, the copy is processed now: within its 2 days, it goes; past them, it is held.
  expect(await redriveAt(1.5)).toMatchObject({ redriven: 1, pastDedupWindow: 0 });
  const held = await redriveAt(2.5);
  expect(held).toMatchObject({ redriven: 0, pastDedupWindow: 1 });
  expect(held.details[0]?.reason).toMatch(/a redriven copy would be processed now, .* after shipment-notifier's dedup record .* when the event's first copy was sent/);
  expect(lambda.invocations).toEqual([]);
  expect(await visible(clients.sqs, dlq.url)).toBe(1);
});

