/**
 * The DynamoDB rules DynamoDB Local does not already enforce (each measured by a test in
 * test/emulator/contract/dynamodb.int.test.ts). DynamoDB Local refuses on its own, with AWS's
 * messages: items over 400 KB, expressions over 4 KB, more than 100 transaction actions, a
 * transaction over 4 MB, more than 100 BatchGetItem keys and more than 25 BatchWriteItem
 * requests. What it misses: one item named twice in a TransactWriteItems when the two keys are
 * equal only as numbers (`1` and `1.0`) or as bytes, which DynamoDB refuses (Developer Guide,
 * "TransactWriteItems API": no two actions may target the same item).
 */
import { fail, OK, type CheckResult } from './aws-error';
import { accessOf, type KeySchemas } from './dynamodb-access';
import { dynamoValidationError } from './dynamodb-errors';

export const DYNAMODB_RULES = {
  oneActionPerItem: 'dynamodb.transact-write.one-action-per-item',
} as const;

/** A TransactWriteItems may not touch one item twice (keys compared as DynamoDB compares them). */
export function checkOneActionPerItem(input: Readonly<Record<string, unknown>>, keySchemas: KeySchemas = {}): CheckResult {
  const seen = new Set<string>();
  for (const item of accessOf('TransactWriteItems', input, keySchemas).items) {
    if (item === undefined) continue;
    if (seen.has(item)) {
      return fail(dynamoValidationError(DYNAMODB_RULES.oneActionPerItem, 'Transaction request cannot include multiple operations on one item'));
    }
    seen.add(item);
  }
  return OK;
}
