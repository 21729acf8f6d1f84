/**
 * The DynamoDB fault proxy in front of DynamoDB Local: injected throttles and 5xx reach the AWS
 * SDK as DynamoDB's own errors, everything else is DynamoDB Local's real answer, and a seed
 * reproduces the decisions.
 */
import {
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type TransactWriteItemsCommandInput,
} from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { FailureKind } from '../../../lambdas/runtime';
import { classifyError } from '../../../lambdas/runtime/core/classify';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../../emulator/engines';
import { startDynamoFaultProxy, type DynamoFaultProxy, type DynamoFaultProxyOptions } from '../../../emulator/faults/dynamodb-proxy';
import { seededRandom } from '../../../emulator/faults/random';
import { createTable, engineEndpoints, testEndpoints, uniqueName } from '../../helpers/engines';

const proxies: DynamoFaultProxy[] = [];
const sdkClients: Array<{ destroy(): void }> = [];
let table: { tableName: string; streamArn: string | undefined };

beforeAll(async () => {
  const direct = client(testEndpoints().dynamodb);
  table = await createTable(direct, { name: uniqueName('faulted'), partitionKey: 'pk', stream: true });
});
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((proxy) => proxy.stop()));
});
afterAll(() => {
  for (const sdkClient of sdkClients.splice(0)) sdkClient.destroy();
});

async function proxy(options: Partial<DynamoFaultProxyOptions> = {}): Promise<DynamoFaultProxy> {
  const started = await startDynamoFaultProxy({ target: engineEndpoints().dynamodb, random: seededRandom(1), throttleRate: 0, serverErrorRate: 0, ...options });
  proxies.push(started);
  return started;
}

/** A DynamoDB client; `maxAttempts: 1` shows each injected answer without the SDK's own retries. */
function client(endpoint: string, maxAttempts?: number): DynamoDBClient {
  const created = new DynamoDBClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint, maxAttempts });
  sdkClients.push(created);
  return created;
}

async function rejectionOf(promise: Promise<unknown>): Promise<Error & { $metadata?: { httpStatusCode?: number } }> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

const key = (pk: string) => ({ pk: { S: pk } });

function countedView(pk: string, eventId: string): TransactWriteItemsCommandInput {
  return {
    TransactItems: [
      { Update: { TableName: table.tableName, Key: key(pk), UpdateExpression: 'ADD #views :one', ExpressionAttributeNames: { '#views': 'views' }, ExpressionAttributeValues: { ':one': { N: '1' } } } },
      { Put: { TableName: table.tableName, Item: key(`dedup#${eventId}`), ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } },
    ],
  };
}

test('at throttle rate 1 every item operation is throttled, and the runtime calls it transient', async () => {
  const throttling = await proxy({ throttleRate: 1 });
  const dynamodb = client(throttling.endpoint, 1);
  const commands = [
    new PutItemCommand({ TableName: table.tableName, Item: key('a') }),
    new GetItemCommand({ TableName: table.tableName, Key: key('a') }),
    new UpdateItemCommand({ TableName: table.tableName, Key: key('a'), UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': { N: '1' } } }),
    new TransactWriteItemsCommand(countedView('page#home', 'e1')),
  ];
  for (const command of commands) {
    const error = await rejectionOf(dynamodb.send(command as never));
    expect(error.name).toBe('ProvisionedThroughputExceededException');
    expect(error.$metadata?.httpStatusCode).toBe(400);
    expect(classifyError(error)).toBe(FailureKind.TRANSIENT);
  }
  expect(throttling.stats()).toEqual({ requests: 4, throttled: 4, serverErrors: 0 });
});

test('at server error rate 1 the SDK sees InternalServerError (500), also transient', async () => {
  const failing = await proxy({ serverErrorRate: 1 });
  const error = await rejectionOf(client(failing.endpoint, 1).send(new GetItemCommand({ TableName: table.tableName, Key: key('a') })));
  expect(error.name).toBe('InternalServerError');
  expect(error.$metadata?.httpStatusCode).toBe(500);
  expect(classifyError(error)).toBe(FailureKind.TRANSIENT);
});

test('at rate 0 requests pass: a transaction commits, and a duplicate is cancelled with its reasons intact', async () => {
  const dynamodb = client((await proxy()).endpoint, 1);
  await dynamodb.send(new TransactWriteItemsCommand(countedView('page#pricing', 'e2')));
  const duplicate = await rejectionOf(dynamodb.send(new TransactWriteItemsCommand(countedView('page#pricing', 'e2'))));
  expect(duplicate).toBeInstanceOf(TransactionCanceledException);
  expect((duplicate as TransactionCanceledException).CancellationReasons).toEqual([
    { Code: 'None' },
    { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed', Item: key('dedup#e2') },
  ]);
  const { Item } = await dynamodb.send(new GetItemCommand({ TableName: table.tableName, Key: key('page#pricing'), ConsistentRead: true }));
  expect(Item?.views).toEqual({ N: '1' });
});

test('control-plane and DynamoDB Streams requests are never faulted', async () => {
  const throttling = await proxy({ throttleRate: 0.5, serverErrorRate: 0.5 });
  const dynamodb = client(throttling.endpoint, 1);
  const streams = new DynamoDBStreamsClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: throttling.endpoint, maxAttempts: 1 });
  sdkClients.push(streams);
  const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: table.tableName }));
  expect(Table?.TableStatus).toBe('ACTIVE');
  await dynamodb.send(new ListTablesCommand({ Limit: 1 }));
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: table.streamArn }));
  expect(StreamDescription?.StreamArn).toBe(table.streamArn);
  expect(throttling.stats()).toEqual({ requests: 3, throttled: 0, serverErrors: 0 });
});

test('the SDK retries an injected 5xx itself: one call of a default client is 4 requests', async () => {
  const failing = await proxy({ serverErrorRate: 1 });
  await rejectionOf(client(failing.endpoint).send(new GetItemCommand({ TableName: table.tableName, Key: key('a') })));
  expect(failing.stats()).toEqual({ requests: 4, throttled: 0, serverErrors: 4 });
});

test('setRates ends an outage from the next request on', async () => {
  const throttling = await proxy({ throttleRate: 1 });
  const dynamodb = client(throttling.endpoint, 1);
  await rejectionOf(dynamodb.send(new PutItemCommand({ TableName: table.tableName, Item: key('after-outage') })));
  throttling.setRates(0, 0);
  await dynamodb.send(new PutItemCommand({ TableName: table.tableName, Item: key('after-outage') }));
  expect(throttling.stats()).toEqual({ requests: 2, throttled: 1, serverErrors: 0 });
});

test('the same seed makes the same decisions, request by request', async () => {
  const outcomes = async (): Promise<string[]> => {
    const dynamodb = client((await proxy({ random: seededRandom(42), throttleRate: 0.3, serverErrorRate: 0.2 })).endpoint, 1);
    const results: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      results.push(await dynamodb.send(new GetItemCommand({ TableName: table.tableName, Key: key('a') })).then(() => 'ok', (error: Error) => error.name));
    }
    return results;
  };
  const draws = seededRandom(42);
  const expected = Array.from({ length: 20 }, () => {
    const draw = draws();
    return draw < 0.3 ? 'ProvisionedThroughputExceededException' : draw < 0.5 ? 'InternalServerError' : 'ok';
  });
  expect(new Set(expected)).toEqual(new Set(['ok', 'ProvisionedThroughputExceededException', 'InternalServerError']));
  expect(await outcomes()).toEqual(expected);
  expect(await outcomes()).toEqual(expected);
});

test('an operation outside the data plane cannot be faulted', async () => {
  await expect(proxy({ operations: ['PutItem', 'DescribeTable'] })).rejects.toThrow(/given DescribeTable/);
});
