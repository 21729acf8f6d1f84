/**
 * DynamoDB operations and the actions they need (Service Authorization Reference, "Actions,
 * resources, and condition keys for Amazon DynamoDB"; DynamoDB Developer Guide, "Using IAM with
 * DynamoDB transactions": the actions of a transaction are those of its items' operations,
 * `dynamodb:ConditionCheckItem` for a `ConditionCheck`). Batch operations need their own action
 * on every table they touch; a Query or Scan of an index is authorized on the index's ARN.
 */
import { tableArn } from './arns';
import { UnsupportedOperationError } from './errors';
import { distinct, entries, requiredString, type Operation, type PermissionLookups, type RequestInput } from './request-input';
import { AwsService, type Permission } from './types';

const SINGLE_TABLE = ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'DescribeTable', 'Query', 'Scan'];
const BATCH = ['BatchGetItem', 'BatchWriteItem'];

/** The action of each kind of transaction item. */
const TRANSACT_ITEM_ACTIONS: Readonly<Record<string, string>> = {
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  ConditionCheck: 'dynamodb:ConditionCheckItem',
  Get: 'dynamodb:GetItem',
};

/** The permissions of a DynamoDB request. */
export function dynamodbPermissions(name: string, input: RequestInput, lookups: PermissionLookups): Permission[] {
  const operation: Operation = { service: AwsService.DYNAMODB, name };
  const arnOf = (table: string): string => lookups.tableArn?.(table) ?? tableArn(lookups, table);
  if (SINGLE_TABLE.includes(name)) return [{ action: `dynamodb:${name}`, resource: singleTableResource(input, operation, arnOf) }];
  if (BATCH.includes(name)) return Object.keys(requestItems(input)).map((table) => ({ action: `dynamodb:${name}`, resource: arnOf(table) }));
  if (name === 'TransactWriteItems' || name === 'TransactGetItems') return transactionPermissions(input, operation, arnOf);
  if (name === 'ListTables') return [{ action: 'dynamodb:ListTables', resource: '*' }];
  throw new UnsupportedOperationError(AwsService.DYNAMODB, name);
}

function singleTableResource(input: RequestInput, operation: Operation, arnOf: (table: string) => string): string {
  const table = arnOf(requiredString(input, 'TableName', operation));
  const index = input.IndexName;
  return typeof index === 'string' && (operation.name === 'Query' || operation.name === 'Scan') ? `${table}/index/${index}` : table;
}

function requestItems(input: RequestInput): Record<string, unknown> {
  const items = input.RequestItems;
  return items !== null && typeof items === 'object' ? (items as Record<string, unknown>) : {};
}

/** One permission per item: the item's operation on the item's table. */
function transactionPermissions(input: RequestInput, operation: Operation, arnOf: (table: string) => string): Permission[] {
  const permissions = entries(input, 'TransactItems').flatMap((item) =>
    Object.entries(item).flatMap(([kind, detail]) => {
      const action = TRANSACT_ITEM_ACTIONS[kind];
      if (action === undefined) return [];
      return [{ action, resource: arnOf(requiredString((detail ?? {}) as RequestInput, 'TableName', operation)) }];
    }),
  );
  return distinct(permissions);
}
