/**
 * `eo replay` with a failure archive (`onFailure: 's3'`), on kinesalite, DynamoDB Local and
 * fauxqs's S3: a batch the mapping gave up on is kept whole in the bucket; a record of it that the
 * stream no longer holds (older than the shard's oldest record) is sent from the object, before the
 * shard's records; one the stream still holds is sent from the stream, once; a batch another
 * function failed on is not this consumer's. The objects stay. The Lambda client is the in-process
 * fake of the Invoke API (../dlq/support.ts); the handler, its table, the stream and the bucket are real.
 */
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import type { KinesisStreamRecord } from 'aws-lambda';
import { createOrderProjection, orderKey } from '../../../example/handlers/order-projection';
import { onFailureObject, onFailureObjectKey } from '../../../aws/lambda/on-failure-object';
import { outgoingMessage, publishToKinesis } from '../../../lambdas/runtime';
import { listArchivedObjects } from '../../../operations/dlq/archive-objects';
import { planReplay, runReplay } from '../../../operations/replay';
import { formatReplay } from '../../../operations/cli/replay-output';
import { createQueue, createStream, uniqueName } from '../../helpers/engines';
import { kinesisEvent, kinesisRecord, lambdaContext, orderStatus } from '../../helpers/events';
import { itemByPk, pkTable } from '../../helpers/fixtures';
import { readKinesis } from '../../helpers/streams';
import { contextOf, dlqTestClients, inProcessLambda, topologyOf } from '../dlq/support';

const { clients, streams } = dlqTestClients();
const REGION_ACCOUNT = 'us-east-1:000000000000';

/** An archived Kinesis record the stream no longer holds: a sequence number below any the stream gives, arrived a minute ago. */
function expiredRecord(orderId: string, status: string, version: number): KinesisStreamRecord {
  const record = kinesisRecord(JSON.stringify(orderStatus(orderId, status, version)), { sequenceNumber: '1', partitionKey: orderId });
  return { ...record, kinesis: { ...record.kinesis, approximateArrivalTimestamp: Date.now() / 1000 - 60 } };
}

async function setUp() {
  const [stream, index, orders] = await Promise.all([createStream(clients.kinesis, uniqueName('archive-replay'), 1), createQueue(clients.sqs, uniqueName('archive-index')), pkTable(clients.dynamodb, 'orders')]);
  const bucket = uniqueName('archive').toLowerCase();
  await clients.s3.send(new CreateBucketCommand({ Bucket: bucket }));
  await publishToKinesis(clients.kinesis, stream.streamName, [orderStatus('o-1', 'CREATED', 1), orderStatus('o-1', 'PAID', 2)].map((event) => outgoingMessage(event, 'o-1')));
  const published = await readKinesis(clients.kinesis, stream.streamName);
  const projection = createOrderProjection({ ordersTable: orders.tableName, clients });
  expect((await projection(kinesisEvent(...published), lambdaContext())).batchItemFailures).toEqual([]);
  // Two batches this function gave up on: one holding an expired record and one the stream still holds; one of another function.
  const archive = async (functionName: string, records: readonly KinesisStreamRecord[]) => {
    const body = onFailureObject({
      kind: 'kinesis',
      condition: 'RetryAttemptsExhausted',
      functionArn: `arn:aws:lambda:${REGION_ACCOUNT}:function:${functionName}`,
      streamArn: stream.streamArn,
      shardId: 'shardId-000000000000',
      records: records.map((record) => ({ sequenceNumber: record.kinesis.sequenceNumber, arrivalMs: record.kinesis.approximateArrivalTimestamp * 1000 })),
      approximateInvokeCount: 4,
      event: { Records: records },
    });
    await clients.s3.send(new PutObjectCommand({ Bucket: bucket, Key: onFailureObjectKey({ mappingUuid: 'uuid', shardId: 'shardId-000000000000' }), Body: JSON.stringify(body) }));
  };
  await archive('order-projection', [expiredRecord('o-9', 'SHIPPED', 1), published[1] as KinesisStreamRecord]);
  await archive('another-function', [expiredRecord('o-8', 'SHIPPED', 1)]);
  const topology = topologyOf({
    dlq: index,
    sources: [{ role: 'on-failure', arn: stream.streamArn }],
    streams: [{ name: stream.streamName, arn: stream.streamArn, retentionHours: 24 }],
    consumerFunctions: [{ functionName: 'order-projection', consumer: 'order-projection', sourceArn: stream.streamArn, batchSize: 10 }],
  });
  const withArchive = { ...topology, deadLetterQueues: topology.deadLetterQueues.map((dlq) => ({ ...dlq, archive: { bucket } })) };
  const lambda = inProcessLambda({ 'order-projection': projection });
  return { context: contextOf(clients, streams, withArchive, clients.sqs, lambda), lambda, bucket, ordersTable: orders.tableName, published };
}

function planFor(setup: Awaited<ReturnType<typeof setUp>>) {
  const nowMs = Date.now();
  return planReplay(setup.context.topology, 'order-projection', { fromMs: nowMs - 3_600_000, toMs: nowMs }, { nowMs });
}

test('a record the stream no longer holds is replayed from the archive, first; one it holds, from the stream, once; another function\'s batch not at all', async () => {
  const setup = await setUp();
  const plan = planFor(setup);
  expect(plan.archives).toEqual([setup.bucket]);

  const dryRun = await runReplay(setup.context, plan, { dryRun: true });
  expect(dryRun.shards).toEqual([{ shardId: 'shardId-000000000000', inWindow: 3, fromArchive: 1, sent: 0, invocations: 0 }]);
  expect(dryRun.archive).toEqual({ objects: 1, truncated: false });
  expect(setup.lambda.invocations).toEqual([]);

  const summary = await runReplay(setup.context, plan);
  // The expired o-9 applies; the two the stream holds were applied by the mapping: not newer.
  expect(summary.totals).toEqual({ records: 3, applied: 1, duplicates: 0, skipped: 2, permanent: 0, reported: 0 });
  expect(summary.complete).toBe(true);
  const sent = setup.lambda.invocations.flatMap((invocation) => invocation.event.Records).map((record) => (record as unknown as KinesisStreamRecord).kinesis.sequenceNumber);
  expect(sent).toEqual(['1', ...setup.published.map((record) => record.kinesis.sequenceNumber)]);
  expect(await itemByPk(clients.dynamodb, setup.ordersTable, orderKey('o-9'))).toMatchObject({ status: 'SHIPPED', version: 1 });
  expect(await itemByPk(clients.dynamodb, setup.ordersTable, orderKey('o-8'))).toBeUndefined();
  // A replay reads the archive; only a redrive empties it.
  expect((await listArchivedObjects(clients.s3, setup.bucket)).objects).toHaveLength(2);
  expect(formatReplay('Test', summary)).toContain('shardId-000000000000: 3 record(s) in the window (1 from the failure archive, which the stream no longer holds), 3 sent in 1 invocation(s)');
});
