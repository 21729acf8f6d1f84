/**
 * The versioned natural-key upsert. DynamoDB is a fake whose `send` records the PutItem command
 * and answers as scripted (success, or the SDK's ConditionalCheckFailedException): what is under
 * test is the command we build and how we read the answer, not the condition's evaluation.
 */
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { putIfNewer } from '../../../../../lambdas/runtime/stores/dynamodb/upsert';
import { asClient, awsError, FakeClient } from '../../../../helpers/fakes';

describe('putIfNewer', () => {
  test('writes the whole item unless the stored one is at the same or a newer version', async () => {
    const dynamodb = new FakeClient();
    const outcome = await putIfNewer(asClient<DynamoDBClient>(dynamodb), { table: 'orders', item: { pk: 'order#1', status: 'PAID', version: 2, note: undefined } });

    expect(outcome).toEqual({ status: 'applied' });
    const { input } = dynamodb.commands[0];
    expect(dynamodb.commands[0].name).toBe('PutItemCommand');
    expect(unmarshall(input.Item as never)).toEqual({ pk: 'order#1', status: 'PAID', version: 2 });
    expect(input).toMatchObject({
      TableName: 'orders',
      ConditionExpression: 'attribute_not_exists(#k) OR #v < :v',
      ExpressionAttributeNames: { '#k': 'pk', '#v': 'version' },
      ExpressionAttributeValues: { ':v': { N: '2' } },
    });
  });

  test('uses the given key and version attribute names', async () => {
    const dynamodb = new FakeClient();
    await putIfNewer(asClient<DynamoDBClient>(dynamodb), { table: 't', item: { id: 'x', rev: 7 }, keyAttribute: 'id', versionAttribute: 'rev' });
    expect(dynamodb.commands[0].input).toMatchObject({ ExpressionAttributeNames: { '#k': 'id', '#v': 'rev' }, ExpressionAttributeValues: { ':v': { N: '7' } } });
  });

  test('a failed guard means "already newer": skipped, not failed', async () => {
    const dynamodb = new FakeClient(() => {
      throw new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: { httpStatusCode: 400 } });
    });
    await expect(putIfNewer(asClient<DynamoDBClient>(dynamodb), { table: 't', item: { pk: 'a', version: 1 } })).resolves.toEqual({ status: 'skipped', reason: 'stored version is 1 or newer' });
  });

  test('other errors propagate, for the strategy to classify and retry', async () => {
    const throttled = awsError('ProvisionedThroughputExceededException', 400);
    const dynamodb = new FakeClient(() => {
      throw throttled;
    });
    await expect(putIfNewer(asClient<DynamoDBClient>(dynamodb), { table: 't', item: { pk: 'a', version: 1 } })).rejects.toBe(throttled);
  });

  test.each([
    ['missing', { pk: 'a' }],
    ['a string', { pk: 'a', version: '2' }],
    ['NaN', { pk: 'a', version: Number.NaN }],
  ])('refuses an item whose version is %s, without writing', async (_label, item) => {
    const dynamodb = new FakeClient();
    await expect(putIfNewer(asClient<DynamoDBClient>(dynamodb), { table: 't', item })).rejects.toThrow(/item\.version must be a number/);
    expect(dynamodb.commands).toEqual([]);
  });
});
