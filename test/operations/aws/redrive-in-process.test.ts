/**
 * The AWS mode's operations in this process, against moto, where the test can watch each request:
 * the order of a redrive's send and delete, and how many reads a range read-back takes.
 */
import { GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-kinesis';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { createEnvelope, outgoingMessage, publishToKinesis, SchemaViolationError } from '../../../lambdas/runtime';
import { awsDlqContext, readRange, redriveQueue, type AwsDlqContext } from '../../../operations/dlq';
import { readerFor } from '../../../operations/dlq/stream-range';
import { startMoto, type MotoServer } from '../../helpers/moto';
import { countRequests, injectFaults, serviceError } from '../../helpers/sdk';
import { deployTestStack, depth, failThroughRuntime, motoClients, readStream, REGION, type MotoClients, type TestStack } from './support';

let moto: MotoServer;
let clients: MotoClients;
const savedEnv = { ...process.env };

beforeAll(async () => {
  moto = await startMoto();
  clients = motoClients(moto);
  // The SDK's credential chain reads the process's environment; the endpoints are passed explicitly.
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_EC2_METADATA_DISABLED: 'true' });
});

afterAll(async () => {
  process.env = savedEnv;
  clients?.destroy();
  await moto?.stop();
});

/** The AWS mode's context for the stack, its endpoints from moto's variables. */
function contextOf(stack: TestStack): Promise<AwsDlqContext> {
  return awsDlqContext({ stackName: stack.name, region: REGION, env: moto.env(REGION) });
}

/** Sends and deletes that succeeded, in order, with the queue each went to. */
function recordSendsAndDeletes(sqs: SQSClient): string[][] {
  const calls: string[][] = [];
  sqs.middlewareStack.add(
    (next, context) => async (args) => {
      const output = await next(args);
      const name = context.commandName ?? '';
      if (name === 'SendMessageCommand' || name === 'DeleteMessageCommand') calls.push([name, String((args.input as { QueueUrl?: string }).QueueUrl)]);
      return output;
    },
    { step: 'initialize', priority: 'low' },
  );
  return calls;
}

const noWait = { sweep: { receiveWaitSeconds: 0 } } as const;

test('a redrive deletes a DLQ message only after its send to the source succeeded; a failed send leaves it in the DLQ', async () => {
  const stack = await deployTestStack(clients);
  await failThroughRuntime(clients.sqs, stack, ['a', 'b'].map((id) => ({ body: JSON.stringify(createEnvelope({ type: 'page.viewed', businessKey: id, source: 'test', payload: { page: { id } } })), attributes: {} })), () => new SchemaViolationError('page.viewed', ['schemaVersion: 2']));
  const context = await contextOf(stack);
  try {
    const calls = recordSendsAndDeletes(context.clients.sqs);
    injectFaults(context.clients.sqs, { commandName: 'SendMessageCommand', times: 1, error: () => serviceError('InternalError', 500) });

    expect(await redriveQueue({ ...context, queue: stack.dlq.url }, noWait)).toMatchObject({ redriven: 0, failed: 1, stoppedEarly: expect.stringMatching(/republish failed/) });
    expect(calls).toEqual([]);
    expect([await depth(clients.sqs, stack.dlq.url), await depth(clients.sqs, stack.sourceQueue.url)]).toEqual([2, 0]);

    expect(await redriveQueue({ ...context, queue: stack.dlq.url }, noWait)).toMatchObject({ redriven: 2, failed: 0 });
    const send = ['SendMessageCommand', stack.sourceQueue.url];
    const remove = ['DeleteMessageCommand', stack.dlq.url];
    expect(calls).toEqual([send, remove, send, remove]);
  } finally {
    context.destroy();
  }
});

test('reading a range back stops at the shard\'s tip by MillisBehindLatest, not after empty reads', async () => {
  const stack = await deployTestStack(clients);
  const events = ['o-1', 'o-2', 'o-3'].map((id) => createEnvelope({ type: 'order.status-changed', businessKey: id, source: 'test', payload: { orderId: id } }));
  await publishToKinesis(clients.kinesis, stack.stream.name, events.map((event) => outgoingMessage(event)));
  const [first, , last] = await readStream(clients.kinesis, stack.stream.name);
  // moto 5.2 reports MillisBehindLatest (0 at the tip), as Kinesis does.
  const { ShardIterator } = await clients.kinesis.send(new GetShardIteratorCommand({ StreamName: stack.stream.name, ShardId: 'shardId-000000000000', ShardIteratorType: 'LATEST' }));
  expect((await clients.kinesis.send(new GetRecordsCommand({ ShardIterator }))).MillisBehindLatest).toBe(0);

  const context = await contextOf(stack);
  try {
    const reads = countRequests(context.clients.kinesis);
    // A pointer whose range runs past what the shard holds: two of its five records never came.
    const range = { shardId: 'shardId-000000000000', startSequenceNumber: first?.SequenceNumber ?? '', endSequenceNumber: (BigInt(last?.SequenceNumber ?? '0') + 1000n).toString(), batchSize: 5, streamArn: stack.stream.arn, approximateArrivalOfFirstRecord: new Date().toISOString(), approximateArrivalOfLastRecord: new Date().toISOString() };
    const read = await readRange(readerFor(context.clients, stack.stream.arn), range);
    expect({ records: read.records.length, missing: read.missing, unreadable: read.unreadable }).toEqual({ records: 3, missing: 2, unreadable: undefined });
    expect(reads.count('GetRecordsCommand')).toBe(1);
  } finally {
    context.destroy();
  }
});
