/**
 * Triage and redrive of a Kinesis consumer's failure queue on kinesalite: our wrappers of
 * permanent failures (the data travels with them) and Lambda's on-failure pointers (only a range:
 * the records are read back from the stream and put on it again).
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { KinesisStreamRecord } from 'aws-lambda';
import { createOrderProjection, orderKey } from '../../../example/handlers/order-projection';
import { outgoingMessage, publishToKinesis } from '../../../lambdas/runtime';
import { inspectQueue, redriveQueue, type DlqContext } from '../../../operations/dlq';
import { kinesisClient } from '../../../emulator/engines';
import { onFailureRecord } from '../../../aws/lambda/on-failure-record';
import { createQueue, createStream, testEndpoints, uniqueName, type CreatedQueue, type CreatedStream } from '../../helpers/engines';
import { kinesisEvent, orderStatus } from '../../helpers/events';
import { itemByPk, pkTable } from '../../helpers/fixtures';
import { injectFaults, serviceError } from '../../helpers/sdk';
import { readKinesis } from '../../helpers/streams';
import { contextOf, dlqTestClients, FAST_SWEEP, topologyOf, visible } from './support';

const FUNCTION_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:order-projection';
const HOUR_MS = 3_600_000;

const { clients, streams } = dlqTestClients();

interface Orders {
  readonly stream: CreatedStream;
  readonly dlq: CreatedQueue;
  readonly ordersTable: string;
  readonly context: DlqContext;
  /** What the stream held before any redrive. */
  readonly published: KinesisStreamRecord[];
}

/**
 * Three order events whose batch the mapping gave up on (a pointer), one poison record the
 * consumer sent to the DLQ itself (a wrapper), and a pointer to records that are long gone.
 */
async function setUp(): Promise<Orders> {
  const [stream, dlq, orders] = await Promise.all([createStream(clients.kinesis, uniqueName('orders'), 1), createQueue(clients.sqs, uniqueName('order-projection-dlq')), pkTable(clients.dynamodb, 'orders')]);
  const events = [orderStatus('o-1', 'CREATED', 1), orderStatus('o-1', 'PAID', 2), orderStatus('o-2', 'CREATED', 1)];
  await publishToKinesis(clients.kinesis, stream.streamName, [...events.map((event) => outgoingMessage(event, String(event.payload.orderId))), { body: 'not json \u00e9', partitionKey: 'poison-key' }]);
  const published = await readKinesis(clients.kinesis, stream.streamName);
  const handler = createOrderProjection({ ordersTable: orders.tableName, dlqUrl: dlq.url, clients });
  await handler(kinesisEvent(...published.slice(3)));
  await sendPointer(dlq, stream, published.slice(0, 3));
  await sendPointer(dlq, stream, [{ sequenceNumber: lowerThan(published[0]), arrivalMs: Date.now() - 30 * HOUR_MS }, { sequenceNumber: lowerThan(published[0], 1n), arrivalMs: Date.now() - 30 * HOUR_MS }]);
  const topology = topologyOf({ dlq, sources: [{ role: 'on-failure', arn: stream.streamArn }], streams: [{ name: stream.streamName, arn: stream.streamArn, retentionHours: 24 }] });
  return { stream, dlq, ordersTable: orders.tableName, context: contextOf(clients, streams, topology), published };
}

async function sendPointer(dlq: CreatedQueue, stream: CreatedStream, records: readonly (KinesisStreamRecord | { sequenceNumber: string; arrivalMs: number })[]): Promise<void> {
  const range = records.map((record) => ('sequenceNumber' in record ? record : { sequenceNumber: record.kinesis.sequenceNumber, arrivalMs: record.kinesis.approximateArrivalTimestamp * 1000 }));
  const body = onFailureRecord({ kind: 'kinesis', condition: 'RetryAttemptsExhausted', functionArn: FUNCTION_ARN, streamArn: stream.streamArn, shardId: 'shardId-000000000000', records: range, approximateInvokeCount: 3 });
  await clients.sqs.send(new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: JSON.stringify(body) }));
}

/** A sequence number the shard never held: a range trimmed away long ago. */
function lowerThan(record: KinesisStreamRecord | undefined, by = 2n): string {
  return (BigInt(record?.kinesis.sequenceNumber ?? '0') - 1_000_000n * by).toString();
}

const dataOf = (record: KinesisStreamRecord) => [Buffer.from(record.kinesis.data, 'base64').toString('utf8'), record.kinesis.partitionKey];
const redrive = (setup: Orders, options: Parameters<typeof redriveQueue>[1] = {}, context: DlqContext = setup.context) =>
  redriveQueue({ ...context, queue: setup.dlq.url }, { sweep: FAST_SWEEP, ...options });

test('inspect shows the wrapper and each pointer\'s range, read back from the stream', async () => {
  const setup = await setUp();
  const inspection = await inspectQueue({ ...setup.context, queue: setup.dlq.url }, { sweep: FAST_SWEEP });

  expect(inspection.groups.map((group) => [group.kind, group.errorType, group.consumer, group.count])).toEqual([
    ['pointer', 'RetryAttemptsExhausted', 'order-projection', 2],
    ['wrapper', 'InvalidEnvelopeError', 'order-projection', 1],
  ]);
  expect(inspection.groups[1]?.example.original).toBe('not json \u00e9');
  const [readable, gone] = [...inspection.ranges].sort((a, b) => b.readable - a.readable);
  expect(readable).toMatchObject({ shardId: 'shardId-000000000000', startSequenceNumber: setup.published[0]?.kinesis.sequenceNumber, endSequenceNumber: setup.published[2]?.kinesis.sequenceNumber, batchSize: 3, readable: 3, missing: 0, status: 'readable' });
  expect(gone).toMatchObject({ batchSize: 2, readable: 0, missing: 2, status: 'unreadable' });
  expect(gone?.reason).toMatch(/past the stream's 24 h retention/);
  expect(await visible(clients.sqs, setup.dlq.url)).toBe(3);
});

test('redrive puts the records back with the same data and partition key, and keeps the pointer past retention', async () => {
  const setup = await setUp();
  const result = await redrive(setup);

  expect(result).toMatchObject({ redriven: 2, pastRetention: 1, failed: 0, records: 4 });
  expect(result.details.find((detail) => detail.status === 'past-retention')).toMatchObject({ kind: 'pointer', missing: 2, records: 0, reason: expect.stringMatching(/no longer readable/) });
  const republished = (await readKinesis(clients.kinesis, setup.stream.streamName)).slice(setup.published.length);
  expect(republished.map(dataOf).sort()).toEqual(setup.published.map(dataOf).sort());
  const left = await inspectQueue({ ...setup.context, queue: setup.dlq.url }, { sweep: FAST_SWEEP });
  expect(left.ranges.map((range) => range.status)).toEqual(['unreadable']);
  expect(left.total).toBe(1);
});

test('the redriven records applied twice leave the projection exact', async () => {
  const setup = await setUp();
  await redrive(setup);
  const valid = (await readKinesis(clients.kinesis, setup.stream.streamName)).filter((record) => !dataOf(record)[0]?.startsWith('not json'));
  const handler = createOrderProjection({ ordersTable: setup.ordersTable, clients });
  expect((await handler(kinesisEvent(...valid))).batchItemFailures).toEqual([]);
  expect((await handler(kinesisEvent(...valid))).batchItemFailures).toEqual([]);
  expect(await itemByPk(clients.dynamodb, setup.ordersTable, orderKey('o-1'))).toMatchObject({ status: 'PAID', version: 2 });
  expect(await itemByPk(clients.dynamodb, setup.ordersTable, orderKey('o-2'))).toMatchObject({ status: 'CREATED', version: 1 });
});

test('--dry-run reads the ranges but puts nothing on the stream and deletes nothing', async () => {
  const setup = await setUp();
  const result = await redrive(setup, { dryRun: true });
  expect(result).toMatchObject({ dryRun: true, redriven: 2, pastRetention: 1, records: 4 });
  expect(await readKinesis(clients.kinesis, setup.stream.streamName)).toHaveLength(setup.published.length);
  expect(await visible(clients.sqs, setup.dlq.url)).toBe(3);
});

test('a failed put stops the redrive with the pointer still in the DLQ; the next run finishes', async () => {
  const setup = await setUp();
  const kinesis = kinesisClient(testEndpoints().kinesis);
  const faults = injectFaults(kinesis, { commandName: 'PutRecordsCommand', error: () => serviceError('InternalFailure', 500) });
  const broken = { ...setup.context, clients: { ...setup.context.clients, kinesis } };

  const interrupted = await redrive(setup, { filter: { kind: ['pointer'] } }, broken);
  expect(interrupted).toMatchObject({ redriven: 0, failed: 1, stoppedEarly: expect.stringMatching(/republish failed/) });
  expect(await visible(clients.sqs, setup.dlq.url)).toBe(3);

  faults.disable();
  expect(await redrive(setup, { filter: { kind: ['pointer'] } }, broken)).toMatchObject({ redriven: 1, pastRetention: 1, failed: 0 });
  kinesis.destroy();
  expect(await visible(clients.sqs, setup.dlq.url)).toBe(2);
});
