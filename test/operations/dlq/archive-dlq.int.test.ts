/**
 * Triage and redrive of a failure archive (`onFailure: 's3'`) on the shared engines: the objects
 * are written by hand in Lambda's format to a bucket of fauxqs's S3, each announced to the index
 * queue as EventBridge would ("Object Created"). The bucket holds the failures; the index queue
 * only counts them. A redrive puts each object's records back (Kinesis: the same data and
 * partition key; a table's stream: the guarded touch), deletes the object only after, then
 * deletes the announcements of objects the bucket no longer holds.
 */
import { randomUUID } from 'node:crypto';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand } from '@aws-sdk/client-dynamodb-streams';
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, KinesisStreamRecord } from 'aws-lambda';
import { onFailureObject, onFailureObjectKey, type StreamInvocationEvent } from '../../../aws/lambda/on-failure-object';
import type { OnFailureCondition } from '../../../aws/lambda/on-failure-record';
import { kinesisClient } from '../../../emulator/engines';
import { objectCreatedEvent } from '../../../emulator/stack/failure-archives';
import { outgoingMessage, publishToKinesis, type Envelope } from '../../../lambdas/runtime';
import { inspectQueue, listDlqs, NOT_SELECTED, redriveQueue, type DlqContext, type EntryFilter, type StackTopology } from '../../../operations/dlq';
import { listArchivedObjects } from '../../../operations/dlq/archive-objects';
import { createQueue, createStream, testEndpoints, uniqueName, type CreatedQueue, type CreatedStream } from '../../helpers/engines';
import { orderStatus } from '../../helpers/events';
import { itemByPk, pkTable } from '../../helpers/fixtures';
import { injectFaults, serviceError } from '../../helpers/sdk';
import { readKinesis, readTableStream } from '../../helpers/streams';
import { contextOf, dlqTestClients, FAST_SWEEP, inProcessLambda, topologyOf, visible } from './support';

const PROJECTION_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:order-projection';
const NOTIFIER_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:shipment-notifier';
const KINESIS_SHARD = 'shardId-000000000000';
const MINUTE_MS = 60_000;

const { clients, streams } = dlqTestClients();

/** An archive's bucket and its index queue. */
interface Archive {
  readonly bucket: string;
  readonly index: CreatedQueue;
  readonly mappingUuid: string;
}

async function createArchive(): Promise<Archive> {
  const bucket = uniqueName('archive').toLowerCase();
  const [index] = await Promise.all([createQueue(clients.sqs, uniqueName('archive-index')), clients.s3.send(new CreateBucketCommand({ Bucket: bucket }))]);
  return { bucket, index, mappingUuid: randomUUID() };
}

/** The one-DLQ topology, its DLQ the archive's index queue. */
function archiveTopology(archive: Archive, parts: Omit<Parameters<typeof topologyOf>[0], 'dlq'>): StackTopology {
  const topology = topologyOf({ dlq: archive.index, ...parts });
  return { ...topology, deadLetterQueues: topology.deadLetterQueues.map((dlq) => ({ ...dlq, archive: { bucket: archive.bucket } })) };
}

async function announce(archive: Archive, key: string, size = 1, etag = 'd41d8cd98f00b204e9800998ecf8427e', bucket = archive.bucket): Promise<void> {
  await clients.sqs.send(new SendMessageCommand({ QueueUrl: archive.index.url, MessageBody: JSON.stringify(objectCreatedEvent(bucket, { key, size, etag })) }));
}

/** Puts an object with `body` under a key stamped `at`, as the mapping would, and announces it. */
async function putObject(archive: Archive, shardId: string, at: Date, body: string): Promise<string> {
  const key = onFailureObjectKey({ mappingUuid: archive.mappingUuid, shardId, at });
  const put = await clients.s3.send(new PutObjectCommand({ Bucket: archive.bucket, Key: key, Body: body, ContentType: 'application/json' }));
  await announce(archive, key, Buffer.byteLength(body), (put.ETag ?? '').replaceAll('"', ''));
  return key;
}

interface Batch {
  readonly kind: 'kinesis' | 'dynamodb-stream';
  readonly condition: OnFailureCondition;
  readonly functionArn: string;
  readonly streamArn: string;
  readonly shardId: string;
  readonly failedAt: Date;
  readonly records: readonly (KinesisStreamRecord | DynamoDBRecord)[];
}

/** The on-failure object of a batch given up on, holding its records. */
function objectBody(batch: Batch): string {
  const range = batch.records.map((record) => ('kinesis' in record
    ? { sequenceNumber: record.kinesis.sequenceNumber, arrivalMs: record.kinesis.approximateArrivalTimestamp * 1000 }
    : { sequenceNumber: (record as DynamoDBRecord).dynamodb?.SequenceNumber ?? '', arrivalMs: ((record as DynamoDBRecord).dynamodb?.ApproximateCreationDateTime ?? 0) * 1000 }));
  const event: StreamInvocationEvent = { Records: batch.records };
  return JSON.stringify(onFailureObject({ ...batch, records: range, approximateInvokeCount: batch.condition === 'RecordAgeExceeded' ? 0 : 4, now: batch.failedAt, event }));
}

const keysIn = async (archive: Archive) => (await listArchivedObjects(clients.s3, archive.bucket)).objects.map((object) => object.key);
const dataOf = (record: KinesisStreamRecord) => [record.kinesis.data, record.kinesis.partitionKey];
const decoded = (record: KinesisStreamRecord | undefined) => Buffer.from(record?.kinesis.data ?? '', 'base64').toString('utf8');

// --- Kinesis ------------------------------------------------------------------------------------

interface Orders {
  readonly archive: Archive;
  readonly stream: CreatedStream;
  readonly context: DlqContext;
  readonly events: readonly Envelope[];
  /** What the stream held before any redrive. */
  readonly published: readonly KinesisStreamRecord[];
  /** The objects, oldest first: two batches that exhausted their retries, a malformed one between them, one too old. */
  readonly keys: { readonly first: string; readonly malformed: string; readonly second: string; readonly expired: string };
}

/**
 * Five records on the stream (o-1 twice, o-2, a poison record, o-3), given up on in three
 * batches: [o-1, o-1] and [o-2, poison] after their retries, [o-3] past its maximum age. Between
 * them, an object that is Lambda's SQS pointer without `payload`: not an S3 on-failure object.
 */
async function setUpOrders(): Promise<Orders> {
  const [archive, stream] = await Promise.all([createArchive(), createStream(clients.kinesis, uniqueName('orders'), 1)]);
  const events = [orderStatus('o-1', 'CREATED', 1), orderStatus('o-1', 'PAID', 2), orderStatus('o-2', 'CREATED', 1)];
  await publishToKinesis(clients.kinesis, stream.streamName, [
    ...events.map((event) => outgoingMessage(event, String(event.payload.orderId))),
    { body: 'not json \u00e9', partitionKey: 'poison-key' },
    outgoingMessage(orderStatus('o-3', 'CREATED', 1), 'o-3'),
  ]);
  const published = await readKinesis(clients.kinesis, stream.streamName);
  const base = Date.now() - 10 * MINUTE_MS;
  const batch = (condition: OnFailureCondition, records: readonly KinesisStreamRecord[], minute: number): [Date, string] => {
    const failedAt = new Date(base + minute * MINUTE_MS);
    return [failedAt, objectBody({ kind: 'kinesis', condition, functionArn: PROJECTION_ARN, streamArn: stream.streamArn, shardId: KINESIS_SHARD, failedAt, records })];
  };
  const first = await putObject(archive, KINESIS_SHARD, ...batch('RetryAttemptsExhausted', published.slice(0, 2), 0));
  const [pointerAt, withPayload] = batch('RetryAttemptsExhausted', published.slice(2, 4), 1);
  const pointer = Object.fromEntries(Object.entries(JSON.parse(withPayload) as Record<string, unknown>).filter(([name]) => name !== 'payload'));
  const malformed = await putObject(archive, KINESIS_SHARD, pointerAt, JSON.stringify(pointer));
  const second = await putObject(archive, KINESIS_SHARD, ...batch('RetryAttemptsExhausted', published.slice(2, 4), 2));
  const expired = await putObject(archive, KINESIS_SHARD, ...batch('RecordAgeExceeded', published.slice(4), 3));
  const topology = archiveTopology(archive, { sources: [{ role: 'on-failure', arn: stream.streamArn }], streams: [{ name: stream.streamName, arn: stream.streamArn, retentionHours: 24 }] });
  return { archive, stream, context: contextOf(clients, streams, topology), events, published, keys: { first, malformed, second, expired } };
}

const redrive = (setup: { archive: Archive; context: DlqContext }, options: Parameters<typeof redriveQueue>[1] = {}, context: DlqContext = setup.context) =>
  redriveQueue({ ...context, queue: setup.archive.index.url }, { sweep: FAST_SWEEP, ...options });

test('inspect groups the objects by condition and function, and shows each batch\'s records, leaving the archive as it was', async () => {
  const setup = await setUpOrders();
  const inspection = await inspectQueue({ ...setup.context, queue: setup.archive.index.url }, { sweep: FAST_SWEEP });

  expect(inspection).toMatchObject({ total: 4, truncated: false, ranges: [], queue: { url: setup.archive.index.url, archive: { bucket: setup.archive.bucket } } });
  expect(inspection.groups.map((group) => [group.kind, group.errorType, group.consumer, group.count, group.distinct])).toEqual([
    ['archived', 'RetryAttemptsExhausted', 'order-projection', 2, 2],
    ['archived', 'MalformedOnFailureObjectError', undefined, 1, 1],
    ['archived', 'RecordAgeExceeded', 'order-projection', 1, 1],
  ]);
  const exhausted = inspection.groups[0];
  expect(exhausted?.example).toMatchObject({ messageId: setup.keys.first, source: setup.stream.streamArn, attempts: 4, message: expect.stringContaining(`2 records of ${KINESIS_SHARD}`) });
  expect(exhausted?.example.message).toContain(`s3://${setup.archive.bucket}`);
  expect(inspection.groups[1]?.example.message).toMatch(new RegExp(`^s3://${setup.archive.bucket}/${setup.keys.malformed}: .*no payload`));

  // Oldest first, each batch with its records: position, partition key, our envelope's event id, the body.
  expect(inspection.archived.map((batch) => [batch.key, batch.condition, batch.records.length])).toEqual([
    [setup.keys.first, 'RetryAttemptsExhausted', 2],
    [setup.keys.malformed, 'MalformedOnFailureObjectError', 0],
    [setup.keys.second, 'RetryAttemptsExhausted', 2],
    [setup.keys.expired, 'RecordAgeExceeded', 1],
  ]);
  const [first, malformed, second, expired] = inspection.archived;
  expect(first).toMatchObject({
    bucket: setup.archive.bucket,
    consumer: 'order-projection',
    streamArn: setup.stream.streamArn,
    shardId: KINESIS_SHARD,
    startSequenceNumber: setup.published[0]?.kinesis.sequenceNumber,
    endSequenceNumber: setup.published[1]?.kinesis.sequenceNumber,
    attempts: 4,
  });
  expect(Date.parse(first?.failedAt ?? '')).toBeLessThan(Date.parse(second?.failedAt ?? ''));
  expect(first?.records).toEqual(setup.published.slice(0, 2).map((record, at) => ({
    sequenceNumber: record.kinesis.sequenceNumber,
    key: 'o-1',
    eventId: setup.events[at]?.eventId,
    body: excerpt(decoded(record)),
  })));
  expect(second?.records.map((view) => [view.key, view.eventId, view.body])).toEqual([['o-2', setup.events[2]?.eventId, excerpt(decoded(setup.published[2]))], ['poison-key', undefined, 'not json \u00e9']]);
  expect(expired).toMatchObject({ condition: 'RecordAgeExceeded', attempts: 0, records: [{ key: 'o-3' }] });
  expect(malformed).toMatchObject({ records: [], problem: expect.stringMatching(/no payload/) });
  expect(malformed).not.toHaveProperty('streamArn');

  expect(await keysIn(setup.archive)).toHaveLength(4);
  expect(await visible(clients.sqs, setup.archive.index.url)).toBe(4);
});

test('inspect --filter selects among the objects', async () => {
  const setup = await setUpOrders();
  const inspect = (filter: EntryFilter) => inspectQueue({ ...setup.context, queue: setup.archive.index.url }, { sweep: FAST_SWEEP, filter });
  expect((await inspect({ errorType: ['RecordAgeExceeded'] })).archived.map((batch) => batch.key)).toEqual([setup.keys.expired]);
  expect((await inspect({ errorType: ['MalformedOnFailureObjectError'] })).archived.map((batch) => batch.key)).toEqual([setup.keys.malformed]);
  expect((await inspect({ kind: ['pointer'] })).total).toBe(0);
  expect((await inspect({ kind: ['archived'], consumer: ['order-projection'] })).total).toBe(3);
});

test('list counts the archive\'s objects and their announcements, and dates the oldest object', async () => {
  const setup = await setUpOrders();
  const { objects } = await listArchivedObjects(clients.s3, setup.archive.bucket);
  const oldest = objects[0]?.lastModified ?? '';
  const now = () => new Date(Date.parse(oldest) + 90_000);

  const [listing] = await listDlqs(setup.context, { sweep: FAST_SWEEP, now });
  expect(listing).toMatchObject({
    url: setup.archive.index.url,
    archive: { bucket: setup.archive.bucket },
    sources: [{ role: 'on-failure', arn: setup.stream.streamArn }],
    archivedObjects: 4,
    visible: 4,
    inFlight: 0,
    peeked: 4,
    truncated: false,
    oldestSentAt: oldest,
    oldestAgeSeconds: 90,
  });
  expect(objects.map((object) => object.key)).toEqual([setup.keys.first, setup.keys.malformed, setup.keys.second, setup.keys.expired]);

  const [capped] = await listDlqs(setup.context, { sweep: FAST_SWEEP, now, peekLimit: 2 });
  expect(capped).toMatchObject({ archivedObjects: 2, peeked: 2, truncated: true, visible: 4 });
});

test('redrive puts each batch back with the same data and partition key, deletes the objects and then their announcements; the malformed one stays, announced', async () => {
  const setup = await setUpOrders();
  const { archive } = setup;
  // An announcement of an object the bucket no longer holds (expired, or deleted by an earlier
  // run), one of another bucket's object, and a message that announces nothing.
  const gone = onFailureObjectKey({ mappingUuid: archive.mappingUuid, shardId: KINESIS_SHARD, at: new Date(Date.now() - 60 * MINUTE_MS) });
  await announce(archive, gone);
  await announce(archive, setup.keys.first, 1, 'etag', uniqueName('other-bucket'));
  await clients.sqs.send(new SendMessageCommand({ QueueUrl: archive.index.url, MessageBody: JSON.stringify({ Service: 'Amazon S3', Event: 's3:TestEvent', Bucket: archive.bucket }) }));

  const result = await redrive(setup);

  expect(result).toMatchObject({ dryRun: false, redriven: 3, failed: 1, skipped: 0, records: 5, stoppedEarly: undefined, announcements: { deleted: 4, kept: 1, unrecognized: 2 } });
  expect(result.details.map((detail) => [detail.messageId, detail.kind, detail.errorType, detail.status])).toEqual([
    [setup.keys.first, 'archived', 'RetryAttemptsExhausted', 'redriven'],
    [setup.keys.malformed, 'archived', 'MalformedOnFailureObjectError', 'failed'],
    [setup.keys.second, 'archived', 'RetryAttemptsExhausted', 'redriven'],
    [setup.keys.expired, 'archived', 'RecordAgeExceeded', 'redriven'],
  ]);
  expect(result.details[0]).toMatchObject({ consumer: 'order-projection', target: setup.stream.streamName, records: 2 });
  expect(result.details[1]?.reason).toMatch(new RegExp(`s3://${archive.bucket}/${setup.keys.malformed} is not a Lambda on-failure object: .*no payload`));

  // The records come back at the tip of the stream, oldest batch first, byte for byte.
  const republished = (await readKinesis(clients.kinesis, setup.stream.streamName)).slice(setup.published.length);
  expect(republished.map(dataOf)).toEqual(setup.published.map(dataOf));
  expect(republished.map((record) => record.kinesis.sequenceNumber)).not.toContain(setup.published[0]?.kinesis.sequenceNumber);

  expect(await keysIn(archive)).toEqual([setup.keys.malformed]);
  // Left: the malformed object's announcement and the two that announce nothing of this bucket.
  expect(await visible(clients.sqs, archive.index.url)).toBe(3);
  const left = await inspectQueue({ ...setup.context, queue: archive.index.url }, { sweep: FAST_SWEEP });
  expect(left.groups.map((group) => group.errorType)).toEqual(['MalformedOnFailureObjectError']);
});

test('a second redrive finds nothing more to put back, and keeps what it cannot redrive', async () => {
  const setup = await setUpOrders();
  await redrive(setup);
  const again = await redrive(setup);
  expect(again).toMatchObject({ redriven: 0, failed: 1, records: 0, announcements: { deleted: 0, kept: 1, unrecognized: 0 } });
  expect(await readKinesis(clients.kinesis, setup.stream.streamName)).toHaveLength(setup.published.length * 2);
});

test('--dry-run reports what would be redriven, and leaves every object, every record and every message', async () => {
  const setup = await setUpOrders();
  const result = await redrive(setup, { dryRun: true });

  expect(result).toMatchObject({ dryRun: true, redriven: 3, failed: 1, records: 5 });
  expect(result.announcements).toBeUndefined();
  expect(result.details.filter((detail) => detail.status === 'redriven').map((detail) => detail.target)).toEqual([setup.stream.streamName, setup.stream.streamName, setup.stream.streamName]);
  expect(await readKinesis(clients.kinesis, setup.stream.streamName)).toHaveLength(setup.published.length);
  expect(await keysIn(setup.archive)).toEqual([setup.keys.first, setup.keys.malformed, setup.keys.second, setup.keys.expired]);
  expect(await visible(clients.sqs, setup.archive.index.url)).toBe(4);
});

test('a failed put stops the redrive with the object still in the bucket and announced; the next run finishes', async () => {
  const setup = await setUpOrders();
  // A separate client whose PutRecords fails before reaching kinesalite: an outage no local engine produces on demand.
  const kinesis = kinesisClient(testEndpoints().kinesis);
  const faults = injectFaults(kinesis, { commandName: 'PutRecordsCommand', error: () => serviceError('InternalFailure', 500) });
  const broken = { ...setup.context, clients: { ...setup.context.clients, kinesis } };
  try {
    const interrupted = await redrive(setup, {}, broken);
    expect(interrupted).toMatchObject({ redriven: 0, failed: 1, records: 0, stoppedEarly: expect.stringMatching(/a republish failed: the object stays in the archive/) });
    expect(interrupted.details).toEqual([expect.objectContaining({ messageId: setup.keys.first, status: 'failed', reason: expect.stringMatching(/^republish failed: InternalFailure/) })]);
    expect(interrupted.announcements).toEqual({ deleted: 0, kept: 4, unrecognized: 0 });
    // A request that fails transiently is sent again, as its records would be: 5 attempts, then the redrive stops.
    expect(faults.failures).toBe(5);
    expect(await keysIn(setup.archive)).toHaveLength(4);
    expect(await visible(clients.sqs, setup.archive.index.url)).toBe(4);
    expect(await readKinesis(clients.kinesis, setup.stream.streamName)).toHaveLength(setup.published.length);

    faults.disable();
    expect(await redrive(setup, {}, broken)).toMatchObject({ redriven: 3, failed: 1, records: 5, stoppedEarly: undefined, announcements: { deleted: 3, kept: 1 } });
  } finally {
    kinesis.destroy();
  }
  expect(await keysIn(setup.archive)).toEqual([setup.keys.malformed]);
  expect(await visible(clients.sqs, setup.archive.index.url)).toBe(1);
  expect((await readKinesis(clients.kinesis, setup.stream.streamName)).slice(setup.published.length).map(dataOf)).toEqual(setup.published.map(dataOf));
});

test('--filter errorType=RecordAgeExceeded redrives that batch only, and leaves the others and their announcements', async () => {
  const setup = await setUpOrders();
  const result = await redrive(setup, { filter: { errorType: ['RecordAgeExceeded'] } });

  expect(result).toMatchObject({ filter: 'errorType=RecordAgeExceeded', redriven: 1, skipped: 3, failed: 0, records: 1, announcements: { deleted: 1, kept: 3, unrecognized: 0 } });
  expect(result.details.filter((detail) => detail.status === 'skipped').map((detail) => [detail.messageId, detail.reason])).toEqual([
    [setup.keys.first, NOT_SELECTED],
    [setup.keys.malformed, NOT_SELECTED],
    [setup.keys.second, NOT_SELECTED],
  ]);
  expect((await readKinesis(clients.kinesis, setup.stream.streamName)).slice(setup.published.length).map(dataOf)).toEqual(setup.published.slice(4).map(dataOf));
  expect(await keysIn(setup.archive)).toEqual([setup.keys.first, setup.keys.malformed, setup.keys.second]);
  expect(await visible(clients.sqs, setup.archive.index.url)).toBe(3);
});

test('an object holding a record that is not a Kinesis record fails alone and is kept; the other batches are redriven', async () => {
  const setup = await setUpOrders();
  const withoutData = Object.fromEntries(Object.entries(setup.published[0]?.kinesis ?? {}).filter(([name]) => name !== 'data' && name !== 'partitionKey'));
  const broken = { ...setup.published[0], kinesis: withoutData } as unknown as KinesisStreamRecord;
  const early = new Date(Date.now() - 60 * MINUTE_MS);
  const key = await putObject(setup.archive, KINESIS_SHARD, early, objectBody({ kind: 'kinesis', condition: 'RetryAttemptsExhausted', functionArn: PROJECTION_ARN, streamArn: setup.stream.streamArn, shardId: KINESIS_SHARD, failedAt: early, records: [broken] }));

  const result = await redrive(setup, { filter: { errorType: ['RetryAttemptsExhausted'] } });
  const detail = result.details.find((candidate) => candidate.messageId === key);
  expect(detail).toMatchObject({ status: 'failed', reason: expect.stringMatching(/not a Kinesis record/) });
  expect(result).toMatchObject({ redriven: 2, failed: 1, records: 4 });
  expect(await keysIn(setup.archive)).toEqual(expect.arrayContaining([key, setup.keys.malformed, setup.keys.expired]));
  expect(await keysIn(setup.archive)).toHaveLength(3);
});

function excerpt(text: string): string {
  return text.length <= 240 ? text : `${text.slice(0, 240)}…`;
}

// --- DynamoDB stream ----------------------------------------------------------------------------

const order = (id: string, status: string, version: number) => ({ pk: `order#${id}`, orderId: id, status, version });

test('a table stream\'s archive: each batch goes to the function that failed on it, as archived, and its object is deleted; the table is not touched', async () => {
  const [archive, orders] = await Promise.all([createArchive(), pkTable(clients.dynamodb, 'orders', true)]);
  for (const item of [order('o-1', 'PAID', 1), order('o-1', 'SHIPPED', 2), order('o-3', 'PAID', 1), order('o-3', 'SHIPPED', 2)]) {
    await clients.dynamodb.send(new PutItemCommand({ TableName: orders.tableName, Item: marshall(item) }));
  }
  const streamArn = orders.streamArn ?? '';
  const original = await readTableStream(streams, streamArn);
  expect(original.map((record) => [record.eventName, record.dynamodb?.NewImage?.status?.S])).toEqual([['INSERT', 'PAID'], ['MODIFY', 'SHIPPED'], ['INSERT', 'PAID'], ['MODIFY', 'SHIPPED']]);
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  const shardId = StreamDescription?.Shards?.[0]?.ShardId ?? '';
  const failedAt = new Date(Date.now() - 5 * MINUTE_MS);
  const batch = (records: readonly DynamoDBRecord[]) => objectBody({ kind: 'dynamodb-stream', condition: 'RetryAttemptsExhausted', functionArn: NOTIFIER_ARN, streamArn, shardId, failedAt, records });
  // o-1's MODIFY to SHIPPED, and o-3's INSERT as PAID, which the item has moved past since.
  const first = await putObject(archive, shardId, failedAt, batch(original.slice(1, 2)));
  const second = await putObject(archive, shardId, new Date(failedAt.getTime() + 1_000), batch(original.slice(2, 3)));
  const consumerFunctions = [{ functionName: 'shipment-notifier', consumer: 'shipment-notifier', sourceArn: streamArn }];
  const topology = archiveTopology(archive, { sources: [{ role: 'on-failure', arn: streamArn }], tables: [{ name: orders.tableName, arn: `arn:aws:dynamodb:us-east-1:000000000000:table/${orders.tableName}`, streamArn }], consumerFunctions });
  const lambda = inProcessLambda({ 'shipment-notifier': async () => ({ batchItemFailures: [] }) });
  const setup = { archive, context: contextOf(clients, streams, topology, clients.sqs, lambda) };

  const inspection = await inspectQueue({ ...setup.context, queue: archive.index.url }, { sweep: FAST_SWEEP });
  expect(inspection.groups.map((group) => [group.kind, group.errorType, group.consumer, group.count])).toEqual([['archived', 'RetryAttemptsExhausted', 'shipment-notifier', 2]]);
  expect(inspection.archived.map((report) => report.records.map((view) => [view.eventName, view.key, JSON.parse(view.body).status]))).toEqual([
    [['MODIFY', JSON.stringify({ pk: { S: 'order#o-1' } }), { S: 'SHIPPED' }]],
    [['INSERT', JSON.stringify({ pk: { S: 'order#o-3' } }), { S: 'PAID' }]],
  ]);

  expect(await redrive(setup, { dryRun: true })).toMatchObject({ redriven: 2, records: 2 });
  expect(lambda.invocations).toEqual([]);
  expect(await keysIn(archive)).toEqual([first, second]);

  const result = await redrive(setup);
  expect(result).toMatchObject({ redriven: 2, failed: 0, records: 2, announcements: { deleted: 2, kept: 0, unrecognized: 0 } });
  expect(result.details.map((detail) => [detail.messageId, detail.status, detail.target])).toEqual([[first, 'redriven', 'function shipment-notifier'], [second, 'redriven', 'function shipment-notifier']]);
  const delivered = lambda.invocations.flatMap((invocation) => invocation.event.Records);
  expect(delivered.map((record) => [record.eventID, record.eventName, record.dynamodb?.SequenceNumber])).toEqual(original.slice(1, 3).map((record) => [record.eventID, record.eventName, record.dynamodb?.SequenceNumber]));
  expect(await readTableStream(streams, streamArn)).toHaveLength(original.length);
  expect(await itemByPk(clients.dynamodb, orders.tableName, 'order#o-1')).toEqual(order('o-1', 'SHIPPED', 2));
  expect(await keysIn(archive)).toEqual([]);
  expect(await visible(clients.sqs, archive.index.url)).toBe(0);
});

