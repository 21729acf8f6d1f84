/**
 * One TransactWriteItems and what its answer means: a cancellation by conditions returns its
 * reasons (the committer reads them by action position), one with a conflict or a throttle among
 * its reasons is transient, and the client request token is a hash of the actions.
 */
import { TransactionCanceledException, type DynamoDBClient, type TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { TransientError } from '../../../../../lambdas/runtime/core/errors';
import { commitTransaction, describeReasons, failedCondition, tokenFor } from '../../../../../lambdas/runtime/stores/dynamodb/transaction';
import { asClient, awsError, FakeClient, transactionCancelled } from '../../../../helpers/fakes';

describe('commitTransaction', () => {
  const actions: TransactWriteItem[] = [{ Put: { TableName: 't', Item: { id: { S: 'a' } } } }];

  test('a cancellation without reasons is transient', async () => {
    const dynamodb = new FakeClient(() => {
      throw transactionCancelled([]);
    });
    await expect(commitTransaction(asClient<DynamoDBClient>(dynamodb), actions)).rejects.toBeInstanceOf(TransientError);
  });

  test.each(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded'])('a cancellation with a %s reason is transient, even beside a failed condition', async (code) => {
    const dynamodb = new FakeClient(() => {
      throw transactionCancelled([{ Code: 'ConditionalCheckFailed' }, { Code: code }]);
    });
    const error = await commitTransaction(asClient<DynamoDBClient>(dynamodb), actions).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransientError);
    expect((error as Error).message).toContain(code);
    expect((error as Error).cause).toBeInstanceOf(TransactionCanceledException);
  });

  test('a cancellation by conditions returns its reasons', async () => {
    const reasons = [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }];
    const dynamodb = new FakeClient(() => {
      throw transactionCancelled(reasons);
    });
    await expect(commitTransaction(asClient<DynamoDBClient>(dynamodb), actions)).resolves.toEqual({ committed: false, reasons });
  });

  test('other errors pass through untouched', async () => {
    const throttled = awsError('ThrottlingException', 400);
    const dynamodb = new FakeClient(() => {
      throw throttled;
    });
    await expect(commitTransaction(asClient<DynamoDBClient>(dynamodb), actions)).rejects.toBe(throttled);
  });

  test('tokenFor is stable for equal actions of one commit and differs for other actions or another commit', () => {
    expect(tokenFor(actions, 'commit-1')).toBe(tokenFor(JSON.parse(JSON.stringify(actions)), 'commit-1'));
    expect(tokenFor(actions, 'commit-1')).not.toBe(tokenFor([{ Put: { TableName: 't', Item: { id: { S: 'b' } } } }], 'commit-1'));
    expect(tokenFor(actions, 'commit-1')).not.toBe(tokenFor(actions, 'commit-2'));
  });

  test('describeReasons and failedCondition read reasons by position', () => {
    const reasons = [{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }, {}];
    expect(describeReasons(reasons)).toBe('None, ConditionalCheckFailed, Unknown');
    expect(describeReasons([])).toBe('no reasons given');
    expect([0, 1, 2, 3].map((index) => failedCondition(reasons, index))).toEqual([false, true, false, false]);
  });
});
