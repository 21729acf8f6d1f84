/**
 * The operator's policy grants every call that `list`, `inspect`, `redrive`, `replay` and `compare` really make: each
 * request the operations send to the engines is recorded as the SDK sent it, mapped to the IAM
 * permissions AWS checks for it (local mode's evaluator, emulator/iam), and decided against the
 * policy generated from the same topology. A call the policy forgot fails here, on the request
 * that needs it.
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DescribeStreamCommand, type DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { Template } from '../../../aws/cloudformation/template';
import { onFailureRecord } from '../../../aws/lambda/on-failure-record';
import { outgoingMessage, publishToKinesis, publishToSqs, type BatchHandler } from '../../../lambdas/runtime';
import { authorize, AwsService, compileRolePolicies, requiredPermissions, type Permission } from '../../../emulator/iam';
import { dynamoDbClient, kinesisClient, LOCAL_ACCOUNT_ID, LOCAL_REGION, sqsClient } from '../../../emulator/engines';
import { inspectQueue, listDlqs, operatorPolicy, redriveQueue, type DlqContext, type StackTopology } from '../../../operations/dlq';
import { createQueue, createStream, testEndpoints, uniqueName } from '../../helpers/engines';
import { kinesisEvent, lambdaContext, orderStatus, pageView } from '../../helpers/events';
import { createOrderProjection } from '../../../example/handlers/order-projection';
import { diffTables, pairGenerations, planReplay, runReplay } from '../../../operations/replay';
import { pkTable } from '../../helpers/fixtures';
import { readKinesis, readTableStream, tableStreamsClient } from '../../helpers/streams';
import { pageViewConsumer, pageViewV2 } from './page-views';
import { consumeQueue, dlqTestClients, FAST_SWEEP, inProcessLambda, letSqsMoveAll, topologyOf } from './support';

const { clients } = dlqTestClients();
/** The recording clients the tests opened, closed after them. */
const opened: { destroy(): void }[] = [];
afterAll(() => opened.forEach((client) => client.destroy()));
const ACCOUNT = LOCAL_ACCOUNT_ID;
const DAY = 86_400;

/** A request as the SDK sent it, and what it named. */
interface Call {
  readonly service: AwsService;
  readonly operation: string;
  readonly input: Record<string, unknown>;
}

/** Fresh clients of the engines that record every request, and the stream each shard iterator they were handed belongs to. */
function recordingClients(lambda: DlqContext['clients']['lambda']): { clients: DlqContext['clients']; calls: Call[]; iterators: Map<string, string> } {
  const calls: Call[] = [];
  const iterators = new Map<string, string>();
  const endpoints = testEndpoints();
  const recorded = { sqs: sqsClient(endpoints.sqs), kinesis: kinesisClient(endpoints.kinesis), dynamodb: dynamoDbClient(endpoints.dynamodb), dynamodbStreams: tableStreamsClient() };
  record(recorded.sqs, AwsService.SQS, calls, iterators);
  record(recorded.kinesis, AwsService.KINESIS, calls, iterators);
  record(recorded.dynamodb, AwsService.DYNAMODB, calls, iterators);
  record(recorded.dynamodbStreams, AwsService.DYNAMODB_STREAMS, calls, iterators);
  opened.push(...Object.values(recorded));
  return { clients: { ...recorded, s3: clients.s3, lambda, region: LOCAL_REGION }, calls, iterators };
}

function record(client: SQSClient | ReturnType<typeof kinesisClient> | ReturnType<typeof dynamoDbClient> | DynamoDBStreamsClient, service: AwsService, calls: Call[], iterators: Map<string, string>): void {
  (client.middlewareStack as SQSClient['middlewareStack']).add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      calls.push({ service, operation: (context.commandName ?? '').replace(/Command$/, ''), input });
      const result = await next(args);
      const output = result.output as { ShardIterator?: string; NextShardIterator?: string };
      const stream = (input.StreamArn ?? input.StreamARN ?? input.StreamName ?? iterators.get(String(input.ShardIterator))) as string | undefined;
      for (const iterator of [output.ShardIterator, output.NextShardIterator]) if (iterator && stream) iterators.set(iterator, stream);
      return result;
    },
    { step: 'initialize' },
  );
}

/** The calls the policy generated from `topology` does not allow, each with the permission refused. */
function refusedBy(topology: StackTopology, calls: readonly Call[], iterators: ReadonlyMap<string, string>): string[] {
  const template = { Resources: { Operator: { Type: 'AWS::IAM::Role', Properties: { Policies: [{ PolicyName: 'eo-dlq', PolicyDocument: operatorPolicy(topology) }] } } } } as unknown as Template;
  const policies = compileRolePolicies(template, (value) => value);
  const streamArn = (nameOrArn: string) => (nameOrArn.startsWith('arn:') ? nameOrArn : topology.streams.find((stream) => stream.name === nameOrArn)?.arn);
  const lookups = { region: LOCAL_REGION, accountId: ACCOUNT, streamArn, streamArnOfToken: (token: string) => streamArn(iterators.get(token) ?? '') };
  const principal = { roleLogicalId: 'Operator', roleName: 'operator', sessionName: 'on-call', accountId: ACCOUNT };
  return calls.flatMap((call) => {
    const permissions: Permission[] = requiredPermissions(call.service, call.operation, call.input, lookups);
    const decision = authorize(policies, { service: call.service, principal, permissions, context: { 'aws:SecureTransport': 'true' } });
    return decision.allowed ? [] : [`${call.operation}: ${decision.action} on ${decision.resource}`];
  });
}

/** list, inspect, a dry run and a redrive of the topology's one DLQ, each call recorded. */
async function operate(context: DlqContext, dlqUrl: string): Promise<void> {
  await listDlqs(context, { sweep: FAST_SWEEP });
  await inspectQueue({ ...context, queue: dlqUrl }, { sweep: FAST_SWEEP });
  await redriveQueue({ ...context, queue: dlqUrl }, { sweep: FAST_SWEEP, dryRun: true });
  const result = await redriveQueue({ ...context, queue: dlqUrl }, { sweep: FAST_SWEEP });
  expect(result).toMatchObject({ failed: 0, refused: 0 });
  expect(result.redriven).toBeGreaterThan(0);
}

test('a queue consumer\'s DLQ: wrappers, a message SQS moved, the dedup lookups and the window check', async () => {
  const consumer = await pageViewConsumer(clients, 'policy');
  await publishToSqs(clients.sqs, consumer.queue.url, [outgoingMessage(pageViewV2('docs'))]);
  await consumeQueue(clients.sqs, consumer.queue, consumer.before);
  await publishToSqs(clients.sqs, consumer.queue.url, [outgoingMessage(pageView('pricing', 'moved'))]);
  await letSqsMoveAll(clients.sqs, consumer.queue.url, 2);
  const consumerWindows = [{ consumer: 'page-view-counter', sourceArn: consumer.queue.arn, dedupTtlSeconds: 23 * DAY, dedupTable: consumer.idempotency }];
  const topology = topologyOf({ dlq: consumer.dlq, sources: [{ role: 'redrive', arn: consumer.queue.arn }], queues: [consumer.queue], consumerWindows });
  const { clients: recording, calls, iterators } = recordingClients(clients.lambda);

  await operate({ clients: recording, topology }, consumer.dlq.url);

  expect(calls.map((call) => call.operation)).toEqual(expect.arrayContaining(['GetQueueAttributes', 'ReceiveMessage', 'BatchGetItem', 'SendMessage', 'DeleteMessage', 'ChangeMessageVisibilityBatch']));
  expect(refusedBy(topology, calls, iterators)).toEqual([]);
});

test('a Kinesis consumer\'s DLQ: a pointer read back and put again', async () => {
  const [stream, dlq] = await Promise.all([createStream(clients.kinesis, uniqueName('orders'), 1), createQueue(clients.sqs, uniqueName('orders-dlq'))]);
  await publishToKinesis(clients.kinesis, stream.streamName, [{ body: '{"order":1}', partitionKey: 'o-1' }]);
  const [record] = await readKinesis(clients.kinesis, stream.streamName);
  const pointer = onFailureRecord({ kind: 'kinesis', condition: 'RetryAttemptsExhausted', functionArn: `arn:aws:lambda:${LOCAL_REGION}:${ACCOUNT}:function:order-projection`, streamArn: stream.streamArn, shardId: 'shardId-000000000000', records: [{ sequenceNumber: record?.kinesis.sequenceNumber ?? '', arrivalMs: Date.now() }], approximateInvokeCount: 3 });
  await clients.sqs.send(new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: JSON.stringify(pointer) }));
  const topology = topologyOf({ dlq, sources: [{ role: 'on-failure', arn: stream.streamArn }], streams: [{ name: stream.streamName, arn: stream.streamArn, retentionHours: 24 }] });
  const { clients: recording, calls, iterators } = recordingClients(clients.lambda);

  await operate({ clients: recording, topology }, dlq.url);

  expect(calls.map((call) => call.operation)).toEqual(expect.arrayContaining(['GetShardIterator', 'GetRecords', 'PutRecords']));
  expect(refusedBy(topology, calls, iterators)).toEqual([]);
});

test('a table stream consumer\'s DLQ: a pointer read back and handed to the consumer function', async () => {
  const [orders, dlq] = await Promise.all([pkTable(clients.dynamodb, 'orders', true), createQueue(clients.sqs, uniqueName('notifier-dlq'))]);
  await clients.dynamodb.send(new PutItemCommand({ TableName: orders.tableName, Item: marshall({ pk: 'order#1', status: 'SHIPPED', version: 1 }) }));
  const streamArn = orders.streamArn ?? '';
  const { record, shardId } = await firstRecordOf(streamArn);
  const range = { sequenceNumber: record?.dynamodb?.SequenceNumber ?? '', arrivalMs: (record?.dynamodb?.ApproximateCreationDateTime ?? 0) * 1000 };
  const pointer = onFailureRecord({ kind: 'dynamodb-stream', condition: 'RetryAttemptsExhausted', functionArn: `arn:aws:lambda:${LOCAL_REGION}:${ACCOUNT}:function:shipment-notifier`, streamArn, shardId, records: [range], approximateInvokeCount: 3 });
  await clients.sqs.send(new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: JSON.stringify(pointer) }));
  const topology = topologyOf({ dlq, sources: [{ role: 'on-failure', arn: streamArn }], tables: [{ name: orders.tableName, arn: `arn:aws:dynamodb:${LOCAL_REGION}:${ACCOUNT}:table/${orders.tableName}`, streamArn }], consumerFunctions: [{ functionName: 'shipment-notifier', consumer: 'shipment-notifier', sourceArn: streamArn }] });
  const took: BatchHandler = async () => ({ batchItemFailures: [] });
  const lambda = inProcessLambda({ 'shipment-notifier': took });
  const { clients: recording, calls, iterators } = recordingClients(lambda);

  await operate({ clients: recording, topology }, dlq.url);

  const invocations: Call[] = lambda.invocations.map((invocation) => ({ service: AwsService.LAMBDA, operation: 'Invoke', input: { FunctionName: invocation.functionName } }));
  expect(invocations).toHaveLength(1);
  expect(calls.map((call) => call.operation)).toEqual(expect.arrayContaining(['GetShardIterator', 'GetRecords']));
  expect(refusedBy(topology, [...calls, ...invocations], iterators)).toEqual([]);
});

test('a replay into a rebuilt generation and the compare of its table with the live one: the streams read, the function invoked, the tables scanned', async () => {
  const [stream, dlq, live, rebuilt] = await Promise.all([createStream(clients.kinesis, uniqueName('replay-orders'), 1), createQueue(clients.sqs, uniqueName('replay-dlq')), pkTable(clients.dynamodb, 'orders-g1'), pkTable(clients.dynamodb, 'orders-g2')]);
  await publishToKinesis(clients.kinesis, stream.streamName, [outgoingMessage(orderStatus('o-1', 'PAID', 2), 'o-1')]);
  const projection = createOrderProjection({ ordersTable: live.tableName, clients });
  expect((await projection(kinesisEvent(...(await readKinesis(clients.kinesis, stream.streamName))), lambdaContext())).batchItemFailures).toEqual([]);
  const tableRef = (name: string) => ({ name, arn: `arn:aws:dynamodb:${LOCAL_REGION}:${ACCOUNT}:table/${name}` });
  const generation = (functionName: string, number: number, table: string) => ({ functionName, consumer: number === 1 ? 'order-projection' : `order-projection@g${number}`, name: 'order-projection', generation: number, sourceArn: stream.streamArn, environment: { ORDERS_TABLE: table } });
  const topology = topologyOf({
    dlq,
    sources: [{ role: 'on-failure', arn: stream.streamArn }],
    streams: [{ name: stream.streamName, arn: stream.streamArn, retentionHours: 24 }],
    tables: [tableRef(live.tableName), tableRef(rebuilt.tableName)],
    consumerFunctions: [generation('orders-g1', 1, live.tableName), generation('orders-g2', 2, rebuilt.tableName)],
  });
  const lambda = inProcessLambda({ 'orders-g2': createOrderProjection({ ordersTable: rebuilt.tableName, generation: 2, clients }) });
  const { clients: recording, calls, iterators } = recordingClients(lambda);
  const context = { clients: recording, topology };

  const nowMs = Date.now();
  const summary = await runReplay(context, planReplay(topology, 'order-projection', { fromMs: nowMs - 3_600_000, toMs: nowMs }, { nowMs, generation: 2 }));
  expect(summary.totals).toMatchObject({ records: 1, applied: 1 });
  const pair = pairGenerations(topology, 'order-projection', 2);
  expect((await diffTables(recording.dynamodb, pair.tables[0] as (typeof pair.tables)[number])).same).toBe(true);

  const invocations: Call[] = lambda.invocations.map((invocation) => ({ service: AwsService.LAMBDA, operation: 'Invoke', input: { FunctionName: invocation.functionName } }));
  expect(invocations).toHaveLength(1);
  expect(calls.map((call) => call.operation)).toEqual(expect.arrayContaining(['ListShards', 'GetShardIterator', 'GetRecords', 'DescribeTable', 'Scan']));
  expect(refusedBy(topology, [...calls, ...invocations], iterators)).toEqual([]);
  // Nothing more: the compare scans the generations' tables only, the replay invokes the stream consumers only.
  const statements = new Map(operatorPolicy(topology).Statement.map((statement) => [statement.Sid, statement.Resource]));
  expect(statements.get('CompareGenerations')).toEqual([live.tableName, rebuilt.tableName].sort().map((name) => tableRef(name).arn));
  expect(statements.get('ReplayInvokeStreamConsumers')).toEqual(['orders-g1', 'orders-g2'].map((name) => `arn:aws:lambda:${LOCAL_REGION}:${ACCOUNT}:function:${name}`));
});

/** The first record of a table's stream, and its shard. */
async function firstRecordOf(streamArn: string): Promise<{ record?: DynamoDBRecord; shardId: string }> {
  const streams = tableStreamsClient();
  try {
    const [record] = await readTableStream(streams, streamArn);
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    return { record, shardId: StreamDescription?.Shards?.[0]?.ShardId ?? '' };
  } finally {
    streams.destroy();
  }
}

test('the recording sees a send the policy does not grant: a queue outside the stack', async () => {
  const [dlq, outside] = await Promise.all([createQueue(clients.sqs, uniqueName('dlq')), createQueue(clients.sqs, uniqueName('payments'))]);
  const topology = topologyOf({ dlq, sources: [], queues: [] });
  const call: Call = { service: AwsService.SQS, operation: 'SendMessage', input: { QueueUrl: outside.url } };
  expect(refusedBy(topology, [call], new Map())).toEqual([`SendMessage: sqs:SendMessage on ${outside.arn}`]);
});
