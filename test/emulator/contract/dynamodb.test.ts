import { canonicalNumber, checkRequest, itemIdentity, type CheckResult } from '../../../emulator/contract';

const schemas = { counters: ['pk'], events: ['pk', 'sk'] };
const transact = (TransactItems: unknown[]): CheckResult =>
  checkRequest('dynamodb', 'TransactWriteItems', { TransactItems }, { dynamodb: { keySchemas: schemas } });
const update = (TableName: string, Key: Record<string, unknown>) => ({
  Update: { TableName, Key, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': { N: '1' } } },
});

describe('DynamoDB numbers and keys', () => {
  test.each([
    ['1', '1.0'],
    ['1', '+1'],
    ['1', '10E-1'],
    ['100', '1e2'],
    ['0.5', '.5'],
    ['007', '7'],
    ['0', '-0.000'],
    ['-12.50', '-1.25e1'],
  ])('%s and %s are one number', (a, b) => {
    expect(canonicalNumber(a)).toBe(canonicalNumber(b));
  });

  test.each([['1', '2'], ['1', '-1'], ['0.1', '0.01']])('%s and %s are two numbers', (a, b) => {
    expect(canonicalNumber(a)).not.toBe(canonicalNumber(b));
  });

  test('a key is one item whatever the order of its attributes', () => {
    expect(itemIdentity('events', { pk: { S: 'a' }, sk: { N: '1' } })).toBe(itemIdentity('events', { sk: { N: '1.0' }, pk: { S: 'a' } }));
  });

  test('the same key in two tables, or of two types, is two items', () => {
    expect(itemIdentity('a', { pk: { S: '1' } })).not.toBe(itemIdentity('b', { pk: { S: '1' } }));
    expect(itemIdentity('a', { pk: { S: '1' } })).not.toBe(itemIdentity('a', { pk: { N: '1' } }));
  });
});

describe('TransactWriteItems: one action per item', () => {
  test('accepts actions on distinct items', () => {
    expect(transact([update('counters', { pk: { S: 'a' } }), update('counters', { pk: { S: 'b' } }), update('events', { pk: { S: 'a' }, sk: { N: '1' } })]).ok).toBe(true);
  });

  test.each([
    ['two updates, keys equal as numbers', [update('events', { pk: { S: 'a' }, sk: { N: '1' } }), update('events', { sk: { N: '1.00' }, pk: { S: 'a' } })]],
    ['a Put and a ConditionCheck', [{ Put: { TableName: 'counters', Item: { pk: { S: 'a' }, n: { N: '1' } } } }, { ConditionCheck: { TableName: 'counters', Key: { pk: { S: 'a' } }, ConditionExpression: 'attribute_exists(pk)' } }]],
    ['an Update and a Delete', [update('counters', { pk: { S: 'a' } }), { Delete: { TableName: 'counters', Key: { pk: { S: 'a' } } } }]],
  ])('refuses %s with DynamoDB’s ValidationException', (_case, actions) => {
    const result = transact(actions);
    expect(result).toEqual({
      ok: false,
      error: expect.objectContaining({
        code: 'ValidationException',
        jsonType: 'com.amazon.coral.validate#ValidationException',
        message: 'Transaction request cannot include multiple operations on one item',
        messageKey: 'Message',
        status: 400,
      }),
    });
  });

  test('cannot tell a Put’s item without the table’s key schema, and lets the engine judge', () => {
    const actions = [{ Put: { TableName: 'unknown', Item: { id: { S: 'a' } } } }, { Put: { TableName: 'unknown', Item: { id: { S: 'a' } } } }];
    expect(checkRequest('dynamodb', 'TransactWriteItems', { TransactItems: actions }).ok).toBe(true);
  });

  test('other DynamoDB operations have no rule here (DynamoDB Local enforces theirs)', () => {
    expect(checkRequest('dynamodb', 'PutItem', {}).ok).toBe(true);
  });
});

describe('a transaction or batch names at least one item', () => {
  test.each([
    ['TransactWriteItems', {}, "Value null at 'transactItems' failed to satisfy constraint: Member must not be null"],
    ['TransactWriteItems', { TransactItems: [] }, "Value [] at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1"],
    ['TransactGetItems', { TransactItems: [] }, "Value null at 'transactItems' failed to satisfy constraint: Member must not be null"],
    ['BatchWriteItem', { RequestItems: {} }, 'BatchWriteItem cannot have a null or no requests set'],
    ['BatchGetItem', {}, 'BatchGetItem must have some requests set'],
  ])('%s %j is refused with ValidationException, as DynamoDB words it', (operation, input, message) => {
    expect(checkRequest('dynamodb', operation, input)).toMatchObject({ ok: false, error: { rule: 'dynamodb.items.required', code: 'ValidationException', status: 400, message } });
  });

  test('one item is enough', () => {
    expect(checkRequest('dynamodb', 'TransactGetItems', { TransactItems: [{ Get: { TableName: 't', Key: { pk: { S: 'a' } } } }] }).ok).toBe(true);
    expect(checkRequest('dynamodb', 'BatchWriteItem', { RequestItems: { t: [{ DeleteRequest: { Key: { pk: { S: 'a' } } } }] } }).ok).toBe(true);
  });
});
