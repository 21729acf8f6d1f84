/**
 * The redrive puts a Kinesis batch back with the same data and partition keys, and keeps each
 * key's order through records that Kinesis refuses (a throttled shard): a refused record is put
 * again before any later record of its key. The client is a fake over an `AcceptedLog`
 * (test/helpers/fakes.ts) that refuses the records a test names; no local engine fails single
 * records of a PutRecords on demand. The redrive against the engines: kinesis-dlq.int.test.ts.
 */
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import { putKinesisRecords, type KinesisPut } from '../../../operations/dlq/kinesis-republish';
import { AcceptedLog, asClient, awsError, FakeClient, kinesisStreamFake, recordingSleep } from '../../helpers/fakes';

const STREAM = 'orders';

function puts(...keysAndData: [string, string][]): KinesisPut[] {
  return keysAndData.map(([partitionKey, data]) => ({ partitionKey, data: Buffer.from(data, 'utf8') }));
}

test('a record refused while a later one of its key would be accepted is still put first', async () => {
  const log = new AcceptedLog((data) => (data === 'order-1 created' ? 2 : 0));
  const records = puts(['order-1', 'order-1 created'], ['order-1', 'order-1 paid'], ['order-2', 'order-2 created'], ['order-1', 'order-1 shipped']);
  await putKinesisRecords(asClient<KinesisClient>(kinesisStreamFake(log)), STREAM, records, recordingSleep());
  expect(log.byKey).toEqual(new Map([['order-1', ['order-1 created', 'order-1 paid', 'order-1 shipped']], ['order-2', ['order-2 created']]]));
});

test('records of distinct keys go in one request', async () => {
  const kinesis = kinesisStreamFake(new AcceptedLog());
  await putKinesisRecords(asClient<KinesisClient>(kinesis), STREAM, puts(['a', '1'], ['b', '2'], ['c', '3']), recordingSleep());
  expect(kinesis.commands).toHaveLength(1);
});

test('records still refused after 5 attempts fail the redrive, naming how many were not put; the later ones of their key were never sent', async () => {
  const kinesis = kinesisStreamFake(new AcceptedLog((data) => (data === 'stuck' ? Infinity : 0)));
  const error = await putKinesisRecords(asClient<KinesisClient>(kinesis), STREAM, puts(['a', 'stuck'], ['b', 'fine'], ['a', 'after']), recordingSleep()).catch((caught: unknown) => caught);
  expect((error as Error).message).toBe(`Kinesis refused records to ${STREAM} after 5 attempts: 2 of 3 not put`);
  const sent = kinesis.commands.flatMap((command) => (command.input.Records as { Data: Uint8Array }[]).map((record) => Buffer.from(record.Data).toString('utf8')));
  expect(sent).not.toContain('after');
});

test('a request that fails as a whole, transiently, is sent again', async () => {
  const kinesis = new FakeClient((command, call) => {
    if (call === 1) throw awsError('InternalFailure', 500);
    return { FailedRecordCount: 0, Records: (command.input.Records as unknown[]).map(() => ({ SequenceNumber: '1', ShardId: 'shardId-000000000000' })) };
  });
  await putKinesisRecords(asClient<KinesisClient>(kinesis), STREAM, puts(['a', '1']), recordingSleep());
  expect(kinesis.commands).toHaveLength(2);
});
