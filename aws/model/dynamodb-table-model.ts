/**
 * DynamoDB's item writes on in-memory tables, as the API Reference documents them, for the
 * runtime's property test. Pure: a request in, a result out, the tables changed only on success.
 *
 * - TransactWriteItems: at most 100 actions; "you can't target the same item with multiple
 *   operations within the same transaction" (ValidationException); all or nothing: when a
 *   condition fails nothing is written, and the TransactionCanceledException carries one
 *   CancellationReason per action, in the order of the actions: `ConditionalCheckFailed` (with the
 *   item as it was, when the action asked for ReturnValuesOnConditionCheckFailure ALL_OLD) for
 *   each failed condition, `None` for the others.
 * - PutItem and UpdateItem: a failed condition writes nothing (ConditionalCheckFailedException).
 * - GetItem and BatchGetItem (strongly consistent reads, as the runtime asks): the items as the
 *   last successful write left them.
 * Expressions: ./dynamodb-expressions.ts.
 */
import type { AttributeValue, CancellationReason, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { DYNAMODB_LIMITS } from '../limits';
import { applyUpdate, meetsCondition, type ExpressionContext, type Item } from './dynamodb-expressions';

/** A request DynamoDB refuses before it reads anything (ValidationException). */
export class ModelValidationError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'ValidationException';
  }
}

export type TransactionOutcome = { readonly committed: true } | { readonly committed: false; readonly reasons: CancellationReason[] };

/** One write of a transaction, reduced to what the model needs. */
interface PlannedWrite {
  readonly table: string;
  readonly key: Item;
  readonly condition?: string;
  readonly context: ExpressionContext;
  readonly returnOld: boolean;
  readonly write: (current: Item | undefined) => Item | undefined;
}

export class DynamoDbTableModel {
  private readonly tables = new Map<string, Map<string, Item>>();

  /** @param keySchemas - each table's key attribute names, e.g. `{ idempotency: ['id'] }` */
  public constructor(private readonly keySchemas: Readonly<Record<string, readonly string[]>>) {
    for (const table of Object.keys(keySchemas)) this.tables.set(table, new Map());
  }

  public transactWrite(actions: readonly TransactWriteItem[]): TransactionOutcome {
    if (actions.length === 0 || actions.length > DYNAMODB_LIMITS.maxTransactionActions) throw new ModelValidationError(`a transaction holds 1 to ${DYNAMODB_LIMITS.maxTransactionActions} actions (given ${actions.length})`);
    const writes = actions.map((action) => this.plan(action));
    this.refuseRepeatedItems(writes);
    const reasons = writes.map((write) => this.check(write));
    if (reasons.some((reason) => reason.Code !== 'None')) return { committed: false, reasons };
    for (const write of writes) this.store(write.table, write.key, write.write(this.read(write.table, write.key)));
    return { committed: true };
  }

  /** A conditional single write: false when its condition failed (nothing written). */
  public writeItem(action: TransactWriteItem): boolean {
    const write = this.plan(action);
    if (this.check(write).Code !== 'None') return false;
    this.store(write.table, write.key, write.write(this.read(write.table, write.key)));
    return true;
  }

  public getItem(table: string, key: Item): Item | undefined {
    const item = this.read(table, this.keyOf(table, key));
    return item === undefined ? undefined : { ...item };
  }

  /** Every item of a table, for checks after a run. */
  public scan(table: string): Item[] {
    return [...(this.tableNamed(table).values())].map((item) => ({ ...item }));
  }

  private plan(action: TransactWriteItem): PlannedWrite {
    if (action.Put) {
      const { TableName = '', Item: item = {}, ConditionExpression, ExpressionAttributeNames, ExpressionAttributeValues, ReturnValuesOnConditionCheckFailure } = action.Put;
      const key = this.keyOf(TableName, item);
      return { table: TableName, key, condition: ConditionExpression, context: { names: ExpressionAttributeNames, values: ExpressionAttributeValues }, returnOld: ReturnValuesOnConditionCheckFailure === 'ALL_OLD', write: () => ({ ...item }) };
    }
    if (action.Update) {
      const { TableName = '', Key = {}, UpdateExpression = '', ConditionExpression, ExpressionAttributeNames, ExpressionAttributeValues, ReturnValuesOnConditionCheckFailure } = action.Update;
      const key = this.keyOf(TableName, Key);
      const context = { names: ExpressionAttributeNames, values: ExpressionAttributeValues };
      return { table: TableName, key, condition: ConditionExpression, context, returnOld: ReturnValuesOnConditionCheckFailure === 'ALL_OLD', write: (current) => applyUpdate(UpdateExpression, current, key, context) };
    }
    if (action.Delete) {
      const { TableName = '', Key = {}, ConditionExpression, ExpressionAttributeNames, ExpressionAttributeValues } = action.Delete;
      return { table: TableName, key: this.keyOf(TableName, Key), condition: ConditionExpression, context: { names: ExpressionAttributeNames, values: ExpressionAttributeValues }, returnOld: false, write: () => undefined };
    }
    throw new ModelValidationError(`unsupported transaction action ${Object.keys(action).join(', ')}`);
  }

  private refuseRepeatedItems(writes: readonly PlannedWrite[]): void {
    const seen = new Set<string>();
    for (const write of writes) {
      const id = `${write.table}\u0000${keyText(write.key)}`;
      if (seen.has(id)) throw new ModelValidationError('Transaction request cannot include multiple operations on one item');
      seen.add(id);
    }
  }

  private check(write: PlannedWrite): CancellationReason {
    const current = this.read(write.table, write.key);
    if (write.condition === undefined || meetsCondition(write.condition, current, write.context)) return { Code: 'None' };
    return { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed', ...(write.returnOld && current !== undefined && { Item: { ...current } }) };
  }

  private keyOf(table: string, item: Item): Item {
    const schema = this.keySchemas[table];
    if (schema === undefined) throw new ModelValidationError(`Requested resource not found: table ${table}`);
    const key: Item = {};
    for (const name of schema) {
      const value = item[name];
      if (value === undefined) throw new ModelValidationError(`the key of table ${table} needs ${name}`);
      key[name] = value;
    }
    return key;
  }

  private read(table: string, key: Item): Item | undefined {
    return this.tableNamed(table).get(keyText(key));
  }

  private store(table: string, key: Item, item: Item | undefined): void {
    if (item === undefined) this.tableNamed(table).delete(keyText(key));
    else this.tableNamed(table).set(keyText(key), item);
  }

  private tableNamed(table: string): Map<string, Item> {
    const items = this.tables.get(table);
    if (items === undefined) throw new ModelValidationError(`Requested resource not found: table ${table}`);
    return items;
  }
}

function keyText(key: Item): string {
  return JSON.stringify(Object.keys(key).sort().map((name) => [name, key[name] as AttributeValue]));
}
