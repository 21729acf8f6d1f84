/**
 * A stream consumer with `onFailure: 's3'` on the local engines, with its bundled function: while
 * its table is throttled, the mapping gives a batch up and writes it whole to the archive bucket
 * (fauxqs's S3) in Lambda's format; EventBridge's announcement reaches the index queue and its
 * depth alarm notifies. Once the cause is gone, `eo dlq redrive` puts the records back on the
 * stream, deletes the object and then its announcement, and the projection ends exact; the alarm
 * returns to OK. A batch older than the stream's retention is redriven all the same: the records
 * come from the object, not from the stream.
 */
import { queueDepthAlarms } from '../../../emulator/stack/alarms';
import { Buffer } from 'node:buffer';
import type { KinesisStreamRecord } from 'aws-lambda';
import { publishToKinesis, outgoingMessage } from '../../../lambdas/runtime';
import { parseOnFailureObject } from '../../../aws/lambda/on-failure-object';
import { depthOf } from '../../../aws/sqs/peek';
import { kinesisClient } from '../../../emulator/engines';
import { dlqContextOfLocalStack } from '../../../emulator/stack/dlq-context';
import { startLocalStack, type LocalStack } from '../../../emulator/stack/runtime';
import { inspectQueue, listDlqs, redriveQueue, type DlqContext, type DlqInfo } from '../../../operations/dlq';
import { listArchivedObjects } from '../../../operations/dlq/archive-objects';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { orderKey } from '../../../example/handlers/order-projection';
import { sharedEngines, uniqueName } from '../../helpers/engines';
import { orderStatus } from '../../helpers/events';
import { itemByPk } from '../../helpers/fixtures';
import { pollUntil } from '../../helpers/poll';
import { injectFaults, serviceError } from '../../helpers/sdk';
import { readKinesis } from '../../helpers/streams';
import { ARCHIVE_STACK_RETRIES, synthesizeArchiveStack } from './archive-stack';

const DAY_MS = 86_400_000;
const FAST_SWEEP = { receiveWaitSeconds: 0 } as const;

let synthesized: ReturnType<typeof synthesizeArchiveStack>;
let stack: LocalStack;
let context: DlqContext;
let archive: DlqInfo & { archive: { bucket: string } };

beforeAll(async () => {
  synthesized = synthesizeArchiveStack();
  stack = await startLocalStack({ engines: sharedEngines(), synthesized, nameSuffix: `-${uniqueName('arch')}` });
  context = dlqContextOfLocalStack(stack);
  const found = context.topology.deadLetterQueues.find((dlq) => dlq.archive !== undefined);
  if (!found?.archive) throw new Error('the topology names no failure archive');
  archive = { ...found, archive: found.archive };
}, 300_000);

afterAll(async () => {
  await stack?.stop();
  synthesized?.remove();
});

const streamName = () => [...stack.resources.streams.values()][0]?.name ?? '';
const ordersTable = () => [...stack.resources.tables.values()][0]?.name ?? '';
const indexAlarm = () => queueDepthAlarms(stack.alarms).find(({ queueName }) => queueName === archive.name)?.alarm.alarmName ?? '';
const transitionsOf = (alarmName: string) => stack.alarmEvaluator.history().filter((transition) => transition.alarmName === alarmName);

/**
 * Publishes the events while every DynamoDB call of the function is throttled, and waits until
 * the mapping has archived all of them: in one batch, or in several when its polls read them
 * apart. Returns the new objects' keys, oldest first, and the records as the stream holds them.
 */
async function archiveWhileThrottled(events: ReturnType<typeof orderStatus>[]): Promise<{ keys: string[]; published: KinesisStreamRecord[] }> {
  const known = new Set((await listArchivedObjects(stack.clients.s3, archive.archive.bucket)).objects.map((object) => object.key));
  const alreadyOnStream = (await readKinesis(stack.clients.kinesis, streamName())).length;
  stack.proxy.setRates(1, 0);
  try {
    await publishToKinesis(stack.clients.kinesis, streamName(), events.map((event) => outgoingMessage(event, String(event.payload.orderId))));
    const archived = async () => {
      const { objects } = await listArchivedObjects(stack.clients.s3, archive.archive.bucket);
      const keys = objects.map((object) => object.key).filter((key) => !known.has(key));
      let records = 0;
      for (const key of keys) records += parseOnFailureObject(await objectBody(key)).event.Records.length;
      return { keys, records };
    };
    const { keys } = await waitFor(archived, ({ records }) => records >= events.length, `all ${events.length} records in the archive`, 120_000);
    const published = (await readKinesis(stack.clients.kinesis, streamName())).slice(alreadyOnStream);
    return { keys, published };
  } finally {
    stack.proxy.setRates(0, 0);
  }
}

async function objectBody(key: string): Promise<string> {
  const { Body } = await stack.clients.s3.send(new GetObjectCommand({ Bucket: archive.archive.bucket, Key: key }));
  return (await Body?.transformToString('utf8')) ?? '';
}

/** Polls `read` until `done` holds for what it returns. */
function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  return pollUntil(async () => {
    const value = await read();
    return done(value) ? value : undefined;
  }, what, { timeoutMs, intervalMs: 200 });
}

const dataOf = (record: KinesisStreamRecord) => [Buffer.from(record.kinesis.data, 'base64').toString('utf8'), record.kinesis.partitionKey];

test('a batch given up on lands whole in the archive, the alarm fires, and the redrive brings the records back: the projection is exact, the alarm OK', async () => {
  await waitFor(async () => transitionsOf(indexAlarm()), (transitions) => transitions.some((t) => t.newState === 'OK'), 'the index alarm to start OK');
  const { keys, published } = await archiveWhileThrottled([orderStatus('o-1', 'CREATED', 1), orderStatus('o-1', 'PAID', 2), orderStatus('o-2', 'CREATED', 1)]);

  // Lambda's objects: their keys, the SQS record's fields, and the whole invocation event as `payload`.
  const archived = [];
  for (const key of keys) {
    expect(key).toMatch(/^aws\/lambda\/[0-9a-f-]{36}\/shardId-000000000000\/\d{4}\/\d{2}\/\d{2}\/\d{4}-\d{2}-\d{2}T\d{2}\.\d{2}\.\d{2}-[0-9a-f-]{36}$/);
    archived.push(parseOnFailureObject(await objectBody(key)));
  }
  for (const { record, range, event } of archived) {
    expect(record.requestContext).toMatchObject({ condition: 'RetryAttemptsExhausted', approximateInvokeCount: ARCHIVE_STACK_RETRIES + 1 });
    expect(range).toMatchObject({ shardId: 'shardId-000000000000', batchSize: event.Records.length, startSequenceNumber: (event.Records[0] as KinesisStreamRecord).kinesis.sequenceNumber });
  }
  expect(archived.flatMap(({ event }) => (event.Records as KinesisStreamRecord[]).map(dataOf))).toEqual(published.map(dataOf));

  // Announced through EventBridge to the index queue, whose alarm notifies the alarm topic.
  const alarmed = await waitFor(async () => transitionsOf(indexAlarm()), (transitions) => transitions.some((t) => t.newState === 'ALARM'), 'the index alarm to fire');
  expect(alarmed.find((t) => t.newState === 'ALARM')?.notified).toEqual([[...stack.resources.topics.values()][0]?.arn]);
  // The mapping's own DroppedEventCount (the records it gave up), which local mode counts, fires the consumer's alarm too.
  const dropped = stack.alarms.evaluated.find((alarm) => alarm.alarmName.includes('ConsumerAlarmsDroppedEvents'));
  if (!dropped?.metrics[0]) throw new Error('the projection has no DroppedEvents alarm that local mode evaluates');
  await waitFor(async () => transitionsOf(dropped.alarmName), (transitions) => transitions.some((t) => t.newState === 'ALARM'), 'the dropped-events alarm to fire');
  // Every record given up is counted once the evaluator has sampled the mapping after the last batch.
  const droppedKey = dropped.metrics[0].key;
  const droppedCount = () => stack.metrics.datapoints(droppedKey, 0, Number.MAX_SAFE_INTEGER).reduce((total, point) => total + point.value, 0);
  expect(await waitFor(async () => droppedCount(), (count) => count >= published.length, 'every dropped record counted')).toBe(published.length);
  await waitFor(() => depthOf(stack.clients.sqs, archive.url), (depth) => depth.visible === keys.length, 'an announcement per object');
  const [listing] = (await listDlqs(context)).filter((dlq) => dlq.archive);
  expect(listing).toMatchObject({ archivedObjects: keys.length, visible: keys.length, sources: [{ role: 'on-failure', arn: [...stack.resources.streams.values()][0]?.arn }] });
  const inspection = await inspectQueue({ ...context, queue: archive.url });
  expect(inspection.groups.map((group) => [group.kind, group.errorType, group.consumer, group.count])).toEqual([['archived', 'RetryAttemptsExhausted', expect.stringContaining('OrderProjection'), keys.length]]);
  expect(inspection.archived.flatMap((batch) => batch.records.map((view) => view.key))).toEqual(['o-1', 'o-1', 'o-2']);
  expect(await itemByPk(stack.clients.dynamodb, ordersTable(), orderKey('o-1'))).toBeUndefined();

  const result = await redriveQueue({ ...context, queue: archive.url }, { sweep: FAST_SWEEP });
  expect(result).toMatchObject({ redriven: keys.length, failed: 0, records: 3, announcements: { deleted: keys.length, kept: 0, unrecognized: 0 } });
  expect((await listArchivedObjects(stack.clients.s3, archive.archive.bucket)).objects).toEqual([]);
  const republished = (await readKinesis(stack.clients.kinesis, streamName())).slice(-3);
  expect(republished.map(dataOf)).toEqual(published.map(dataOf));

  await waitFor(() => itemByPk(stack.clients.dynamodb, ordersTable(), orderKey('o-2')), (item) => item !== undefined, 'the redriven o-2');
  expect(await itemByPk(stack.clients.dynamodb, ordersTable(), orderKey('o-1'))).toMatchObject({ status: 'PAID', version: 2 });
  expect(await itemByPk(stack.clients.dynamodb, ordersTable(), orderKey('o-2'))).toMatchObject({ status: 'CREATED', version: 1 });
  expect(await depthOf(stack.clients.sqs, archive.url)).toMatchObject({ visible: 0, inFlight: 0 });
  const recovered = await waitFor(async () => transitionsOf(indexAlarm()), (transitions) => transitions.at(-1)?.newState === 'OK', 'the index alarm back to OK');
  expect(recovered.map((t) => t.newState)).toEqual(['OK', 'ALARM', 'OK']);
}, 240_000);

test("a batch older than the stream's retention is redriven from the object, without reading the stream", async () => {
  const { keys, published } = await archiveWhileThrottled([orderStatus('o-3', 'CREATED', 1), orderStatus('o-3', 'SHIPPED', 2)]);
  // kinesalite keeps records forever: this client answers reads as a stream past its retention
  // does (mocked, since no local engine trims), so anything that read the stream would fail.
  const kinesis = kinesisClient(stack.endpoints.kinesis);
  for (const commandName of ['GetShardIteratorCommand', 'GetRecordsCommand']) injectFaults(kinesis, { commandName, error: () => serviceError('TrimmedDataAccessException', 400) });
  const pastRetention = { ...context, clients: { ...context.clients, kinesis } };
  // Ten days on: long past the stream's 24 hours, within the archive's 14-day lifecycle, and (the
  // redriven records living another day) within the consumer's 17-day dedup window.
  const tenDaysLater = () => new Date(Date.now() + 10 * DAY_MS);
  expect(context.topology.consumerWindows).toContainEqual({ consumer: 'order-projection', sourceArn: [...stack.resources.streams.values()][0]?.arn, dedupTtlSeconds: 17 * DAY_MS / 1000 });
  try {
    const result = await redriveQueue({ ...pastRetention, queue: archive.url }, { now: tenDaysLater, sweep: FAST_SWEEP });
    expect(result).toMatchObject({ redriven: keys.length, pastRetention: 0, failed: 0, records: 2 });
  } finally {
    kinesis.destroy();
  }
  const republished = (await readKinesis(stack.clients.kinesis, streamName())).slice(-2);
  expect(republished.map(dataOf)).toEqual(published.map(dataOf));
  await waitFor(() => itemByPk(stack.clients.dynamodb, ordersTable(), orderKey('o-3')), (item) => item?.version === 2, 'the redriven o-3');
  expect(await itemByPk(stack.clients.dynamodb, ordersTable(), orderKey('o-3'))).toMatchObject({ status: 'SHIPPED', version: 2 });
}, 240_000);

test("the runtime's own failures still go to the consumer's DLQ, which eo dlq finds beside the archive", async () => {
  const runtimeDlq = context.topology.deadLetterQueues.find((dlq) => dlq.sources.some((source) => source.role === 'runtime'));
  expect(runtimeDlq).toMatchObject({ sources: [{ role: 'runtime', arn: [...stack.resources.streams.values()][0]?.arn }] });
  expect(runtimeDlq?.archive).toBeUndefined();
  await publishToKinesis(stack.clients.kinesis, streamName(), [{ body: 'not an event', partitionKey: 'poison' }]);
  await waitFor(() => depthOf(stack.clients.sqs, runtimeDlq?.url ?? ''), (depth) => depth.visible === 1, 'the poison record in the DLQ');
  const inspection = await inspectQueue({ ...context, queue: runtimeDlq?.url ?? '' }, { sweep: FAST_SWEEP });
  expect(inspection.groups.map((group) => [group.kind, group.errorType, group.consumer, group.count])).toEqual([['wrapper', 'InvalidEnvelopeError', 'order-projection', 1]]);
  expect((await listArchivedObjects(stack.clients.s3, archive.archive.bucket)).objects).toEqual([]);
}, 120_000);
