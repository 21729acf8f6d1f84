/**
 * The DynamoDB table model against the API Reference (aws/model/dynamodb-table-model.ts): all or
 * nothing, cancellation reasons in action order, one action per item, 100 actions, and the
 * expression subset the runtime writes. The same transactions run against DynamoDB Local in the
 * integration tests; these pin the model the property test trusts.
 */
import { ExpressionError } from '../../../aws/model/dynamodb-expressions';
import { DynamoDbTableModel, ModelValidationError } from '../../../aws/model/dynamodb-table-model';

const dedupPut = (id: string) => ({ Put: { TableName: 'idem', Item: { id: { S: id }, payloadHash: { S: `hash-${id}` } }, ConditionExpression: 'attribute_not_exists(id)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const } });
const add = (pk: string, amount = 1) => ({ Update: { TableName: 'counters', Key: { pk: { S: pk } }, UpdateExpression: 'ADD #a0 :v0', ExpressionAttributeNames: { '#a0': 'views' }, ExpressionAttributeValues: { ':v0': { N: String(amount) } } } });

function tables(): DynamoDbTableModel {
  return new DynamoDbTableModel({ idem: ['id'], counters: ['pk'] });
}

test('a transaction commits every action, or none: a failed condition cancels it with one reason per action, in order', () => {
  const model = tables();
  expect(model.transactWrite([dedupPut('e1'), add('page')])).toEqual({ committed: true });
  const outcome = model.transactWrite([dedupPut('e2'), dedupPut('e1'), add('page')]);
  expect(outcome).toEqual({ committed: false, reasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed', Item: { id: { S: 'e1' }, payloadHash: { S: 'hash-e1' } } }, { Code: 'None' }] });
  expect(model.getItem('idem', { id: { S: 'e2' } })).toBeUndefined();
  expect(model.getItem('counters', { pk: { S: 'page' } })).toEqual({ pk: { S: 'page' }, views: { N: '1' } });
});

test('ADD starts a missing number at 0 and sums', () => {
  const model = tables();
  model.transactWrite([add('page', 2)]);
  model.transactWrite([add('page', 3)]);
  expect(model.getItem('counters', { pk: { S: 'page' } })?.views).toEqual({ N: '5' });
});

test('refuses two actions on one item, and more than 100 actions', () => {
  expect(() => tables().transactWrite([add('page'), add('page')])).toThrow(ModelValidationError);
  expect(() => tables().transactWrite(Array.from({ length: 101 }, (_, index) => add(`p${index}`)))).toThrow(ModelValidationError);
});

test('a versioned put writes only over an older version', () => {
  const model = tables();
  const put = (version: number) => ({ Put: { TableName: 'counters', Item: { pk: { S: 'o1' }, version: { N: String(version) } }, ConditionExpression: 'attribute_not_exists(#k) OR #v < :v', ExpressionAttributeNames: { '#k': 'pk', '#v': 'version' }, ExpressionAttributeValues: { ':v': { N: String(version) } } } });
  expect(model.writeItem(put(2))).toBe(true);
  expect(model.writeItem(put(1))).toBe(false);
  expect(model.writeItem(put(3))).toBe(true);
  expect(model.getItem('counters', { pk: { S: 'o1' } })?.version).toEqual({ N: '3' });
});

test('refuses what it does not understand rather than accept it', () => {
  const unknown = { Update: { TableName: 'counters', Key: { pk: { S: 'p' } }, UpdateExpression: 'REMOVE views' } };
  expect(() => tables().transactWrite([unknown])).toThrow(ExpressionError);
  expect(() => tables().transactWrite([{ ...add('p'), Update: { ...add('p').Update, ExpressionAttributeValues: {} } }])).toThrow(ExpressionError);
  expect(() => tables().transactWrite([{ Put: { TableName: 'missing', Item: { id: { S: 'x' } } } }])).toThrow(ModelValidationError);
});
