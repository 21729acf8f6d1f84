// DynamoDB Local alone: which of DynamoDB's request limits it enforces already (with AWS's own
// messages: it is AWS's jar) and the one the contract layer adds. These measurements decide
// which DynamoDB rules the layer has.
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  CreateTableCommand,
  PutItemCommand,
  TransactGetItemsCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type AttributeValue,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { destroyClients } from '../../../emulator/engines';
import { checkRequest } from '../../../emulator/contract';
import { createTable, engineClients, uniqueName } from '../../helpers/engines';
import { pollUntil } from '../../helpers/poll';

const clients = engineClients();
const { dynamodb } = clients;
afterAll(() => destroyClients(clients));

type Verdict = { readonly accepted: true } | { readonly accepted: false; readonly name: string; readonly message: string };

async function verdict(promise: Promise<unknown>): Promise<Verdict> {
  try {
    await promise;
    return { accepted: true };
  } catch (error) {
    const { name, message } = error as Error;
    return { accepted: false, name, message };
  }
}

const ITEM_LIMIT = 400 * 1024;
let table: string;
let composite: string;

beforeAll(async () => {
  table = (await createTable(dynamodb, { name: uniqueName('contract'), partitionKey: 'pk' })).tableName;
  composite = uniqueName('contract-composite');
  await dynamodb.send(
    new CreateTableCommand({
      TableName: composite,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'N' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
    }),
  );
  await pollUntil(async () => (await verdict(dynamodb.send(new PutItemCommand({ TableName: composite, Item: { pk: { S: 'probe' }, sk: { N: '0' } } })))).accepted || undefined, 'the composite table');
});

const update = (TableName: string, Key: Record<string, AttributeValue>): TransactWriteItem => ({
  Update: { TableName, Key, UpdateExpression: 'SET #n = :v', ExpressionAttributeNames: { '#n': 'n' }, ExpressionAttributeValues: { ':v': { S: 'x' } } },
});

describe('DynamoDB Local misses; the rule refuses', () => {
  test('a TransactWriteItems naming one item twice with keys equal only as numbers (1 and 1.0)', async () => {
    const TransactItems = [update(composite, { pk: { S: 'a' }, sk: { N: '1' } }), update(composite, { pk: { S: 'a' }, sk: { N: '1.0' } })];

    expect(await verdict(dynamodb.send(new TransactWriteItemsCommand({ TransactItems })))).toEqual({ accepted: true });
    expect(checkRequest('dynamodb', 'TransactWriteItems', { TransactItems })).toMatchObject({ ok: false, error: { code: 'ValidationException' } });
  });
});

describe('DynamoDB Local already refuses these, with AWS’s messages (no rule needed)', () => {
  const flatItem = (bytes: number) => ({ pk: { S: 'a' }, d: { S: 'x'.repeat(bytes - 'pk'.length - 1 - 'd'.length) } });

  test('an item of 400 KB + 1 byte (names and values counted), while 400 KB exactly passes', async () => {
    expect(await verdict(dynamodb.send(new PutItemCommand({ TableName: table, Item: flatItem(ITEM_LIMIT) })))).toEqual({ accepted: true });
    expect(await verdict(dynamodb.send(new PutItemCommand({ TableName: table, Item: flatItem(ITEM_LIMIT + 1) })))).toEqual({
      accepted: false,
      name: 'ValidationException',
      message: 'Item size has exceeded the maximum allowed size',
    });
  });

  test('an update that grows an item past 400 KB', async () => {
    await dynamodb.send(new PutItemCommand({ TableName: table, Item: { pk: { S: 'grow' }, a: { S: 'x'.repeat(300 * 1024) } } }));
    const grow = new UpdateItemCommand({ TableName: table, Key: { pk: { S: 'grow' } }, UpdateExpression: 'SET b = :v', ExpressionAttributeValues: { ':v': { S: 'x'.repeat(150 * 1024) } } });
    expect(await verdict(dynamodb.send(grow))).toMatchObject({ accepted: false, message: 'Item size to update has exceeded the maximum allowed size' });
  });

  test('an expression of 4097 bytes, while 4096 passes', async () => {
    const condition = (bytes: number) => 'attribute_not_exists(pk)'.padEnd(bytes, ' ');
    const put = (bytes: number) => new PutItemCommand({ TableName: table, Item: { pk: { S: uniqueName('expr') } }, ConditionExpression: condition(bytes) });
    expect(await verdict(dynamodb.send(put(4_096)))).toEqual({ accepted: true });
    expect(await verdict(dynamodb.send(put(4_097)))).toMatchObject({
      accepted: false,
      message: 'Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; expression size: 4097',
    });
  });

  test('a TransactWriteItems of 101 actions, while 100 pass', async () => {
    const puts = (count: number) => Array.from({ length: count }, (_, i) => ({ Put: { TableName: table, Item: { pk: { S: uniqueName(`t${i}`) } } } }));
    expect(await verdict(dynamodb.send(new TransactWriteItemsCommand({ TransactItems: puts(100) })))).toEqual({ accepted: true });
    expect(await verdict(dynamodb.send(new TransactWriteItemsCommand({ TransactItems: puts(101) })))).toMatchObject({ accepted: false, name: 'ValidationException' });
  });

  test('a TransactWriteItems over 4 MB', async () => {
    const TransactItems = Array.from({ length: 11 }, () => ({ Put: { TableName: table, Item: { pk: { S: uniqueName('big') }, d: { S: 'x'.repeat(399 * 1024) } } } }));
    expect(await verdict(dynamodb.send(new TransactWriteItemsCommand({ TransactItems })))).toMatchObject({ accepted: false, message: expect.stringContaining('Transaction payload size cannot exceed 4MB') });
  });

  test.each<[string, TransactWriteItem[]]>([
    ['two identical Puts', [{ Put: { TableName: '', Item: { pk: { S: 'same' } } } }, { Put: { TableName: '', Item: { pk: { S: 'same' } } } }]],
    ['a Put and an Update of its key', [{ Put: { TableName: '', Item: { pk: { S: 'pu' }, a: { S: '1' } } } }, update('', { pk: { S: 'pu' } })]],
    ['an Update and a ConditionCheck', [update('', { pk: { S: 'uc' } }), { ConditionCheck: { TableName: '', Key: { pk: { S: 'uc' } }, ConditionExpression: 'attribute_not_exists(zz)' } }]],
  ])('a TransactWriteItems with %s on one item', async (_case, actions) => {
    const TransactItems = actions.map((action) => JSON.parse(JSON.stringify(action).replace(/"TableName":""/g, `"TableName":"${table}"`)) as TransactWriteItem);
    expect(await verdict(dynamodb.send(new TransactWriteItemsCommand({ TransactItems })))).toMatchObject({
      accepted: false,
      message: 'Transaction request cannot include multiple operations on one item',
    });
    expect(checkRequest('dynamodb', 'TransactWriteItems', { TransactItems }, { dynamodb: { keySchemas: { [table]: ['pk'] } } }).ok).toBe(false);
  });

  test('a BatchGetItem of 101 keys, while 100 pass', async () => {
    const keys = (count: number) => Array.from({ length: count }, (_, i) => ({ pk: { S: `k${i}` } }));
    expect(await verdict(dynamodb.send(new BatchGetItemCommand({ RequestItems: { [table]: { Keys: keys(100) } } })))).toEqual({ accepted: true });
    expect(await verdict(dynamodb.send(new BatchGetItemCommand({ RequestItems: { [table]: { Keys: keys(101) } } })))).toMatchObject({ accepted: false, name: 'ValidationException' });
  });

  test('a BatchWriteItem of 26 requests, while 25 pass', async () => {
    const writes = (count: number) => Array.from({ length: count }, (_, i) => ({ PutRequest: { Item: { pk: { S: `w${i}` } } } }));
    expect(await verdict(dynamodb.send(new BatchWriteItemCommand({ RequestItems: { [table]: writes(25) } })))).toEqual({ accepted: true });
    expect(await verdict(dynamodb.send(new BatchWriteItemCommand({ RequestItems: { [table]: writes(26) } })))).toMatchObject({ accepted: false, name: 'ValidationException' });
  });

  // The rule answers these before the engine, in the same words, for a function's call: such a
  // request names no resource, so IAM has nothing to decide (emulator/gateway/contract-layer.ts).
  test.each([
    ['a TransactWriteItems without TransactItems', 'TransactWriteItems', {}],
    ['a TransactWriteItems with no items', 'TransactWriteItems', { TransactItems: [] }],
    ['a TransactGetItems with no items', 'TransactGetItems', { TransactItems: [] }],
    ['a BatchWriteItem without RequestItems', 'BatchWriteItem', {}],
    ['a BatchWriteItem naming no table', 'BatchWriteItem', { RequestItems: {} }],
    ['a BatchGetItem without RequestItems', 'BatchGetItem', {}],
    ['a BatchGetItem naming no table', 'BatchGetItem', { RequestItems: {} }],
  ] as const)('%s, as the items rule does', async (_case, operation, input) => {
    const sent = {
      TransactWriteItems: () => dynamodb.send(new TransactWriteItemsCommand(input as never)),
      TransactGetItems: () => dynamodb.send(new TransactGetItemsCommand(input as never)),
      BatchWriteItem: () => dynamodb.send(new BatchWriteItemCommand(input as never)),
      BatchGetItem: () => dynamodb.send(new BatchGetItemCommand(input as never)),
    };
    const answer = await verdict(sent[operation]());
    expect(answer).toMatchObject({ accepted: false, name: 'ValidationException' });
    expect(checkRequest('dynamodb', operation, input)).toMatchObject({ ok: false, error: { code: 'ValidationException', message: (answer as { message: string }).message } });
  });
});
