/**
 * The DynamoDB rules DynamoDB Local does not already enforce (each measured by a test in
 * test/emulator/contract/dynamodb.int.test.ts). DynamoDB Local refuses on its own, with AWS's
 * messages: items over 400 KB, expressions over 4 KB, more than 100 transaction actions, a
 * transaction over 4 MB, more than 100 BatchGetItem keys and more than 25 BatchWriteItem
 * requests. What it misses: one item named twice in a TransactWriteItems when the two keys are
 * equal only as numbers (`1` and `1.0`) or as bytes, which DynamoDB refuses (Developer Guide,
 * "TransactWriteItems API": no two actions may target the same item).
 *
 * One rule it does enforce is here all the same: a transaction or batch must name at least one
 * item (API Reference: `TransactItems` and `RequestItems` are required, with at least 1 member).
 * Such a request names nothing IAM can decide, so for a function's call the contract layer asks
 * this rule for DynamoDB's own answer before it refuses (emulator/gateway/contract-layer.ts).
 */
import { fail, OK, type CheckResult } from './aws-error';
import { accessOf, type KeySchemas } from './dynamodb-access';
import { dynamoValidationError } from './dynamodb-errors';

export const DYNAMODB_RULES = {
  oneActionPerItem: 'dynamodb.transact-write.one-action-per-item',
  itemsRequired: 'dynamodb.items.required',
} as const;

const MUST_NOT_BE_NULL = "Value null at 'transactItems' failed to satisfy constraint: Member must not be null";

/**
 * What DynamoDB answers for a transaction or batch without items, by operation: its member, and
 * its messages for a missing and for an empty list, as DynamoDB Local (AWS's jar) words them
 * (measured in test/emulator/contract/dynamodb.int.test.ts; a TransactGetItems' empty list reads
 * as null there).
 */
const ITEMS_REQUIRED: Readonly<Record<string, { readonly member: string; readonly missing: string; readonly empty: string }>> = {
  TransactWriteItems: { member: 'TransactItems', missing: MUST_NOT_BE_NULL, empty: "Value [] at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1" },
  TransactGetItems: { member: 'TransactItems', missing: MUST_NOT_BE_NULL, empty: MUST_NOT_BE_NULL },
  BatchWriteItem: { member: 'RequestItems', missing: 'BatchWriteItem cannot have a null or no requests set', empty: 'BatchWriteItem cannot have a null or no requests set' },
  BatchGetItem: { member: 'RequestItems', missing: 'BatchGetItem must have some requests set', empty: 'BatchGetItem must have some requests set' },
};

/** A transaction or batch names at least one item, else DynamoDB's `ValidationException`. */
export function checkItemsGiven(operation: string, input: Readonly<Record<string, unknown>>): CheckResult {
  const rule = ITEMS_REQUIRED[operation];
  if (rule === undefined) return OK;
  const value = input[rule.member];
  if (value === undefined || value === null) return fail(dynamoValidationError(DYNAMODB_RULES.itemsRequired, rule.missing));
  const empty = Array.isArray(value) ? value.length === 0 : typeof value === 'object' && Object.keys(value).length === 0;
  return empty ? fail(dynamoValidationError(DYNAMODB_RULES.itemsRequired, rule.empty)) : OK;
}

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
