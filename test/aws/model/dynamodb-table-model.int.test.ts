/**
 * The DynamoDB table model held to AWS's own engine: generated sequences of transactions (dedup
 * puts, ADDs, versioned puts, an item touched twice) run on DynamoDB Local, through local mode's
 * contract layer, and on the model, and each must come out the same (committed, cancelled with the
 * same reasons in the same order, or refused), leaving the same items. The model-based test of the
 * runtime trusts this model, so the model is checked against the engine, not against itself.
 *
 * Through the contract layer, because DynamoDB Local alone accepts a transaction that names one
 * item twice (it cancelled `[Put e0, Put e0]` with ConditionalCheckFailed on the second action,
 * found by this test), where AWS refuses it with a ValidationException ("Transaction request cannot
 * include multiple operations on one item"), as the layer and the model do.
 */
import { DynamoDBClient, ScanCommand, TransactWriteItemsCommand, TransactionCanceledException, type TransactWriteItem } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { DynamoDbTableModel, ModelValidationError } from '../../../aws/model/dynamodb-table-model';
import type { Item } from '../../../aws/model/dynamodb-expressions';
import { destroyClients, type LocalClients } from '../../../emulator/engines';
import { createTable, testClients, uniqueName } from '../../helpers/engines';

type Action = { readonly kind: 'dedup'; readonly id: number } | { readonly kind: 'add'; readonly item: number; readonly amount: number } | { readonly kind: 'versioned'; readonly item: number; readonly version: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant('dedup' as const), id: fc.nat(3) }),
  fc.record({ kind: fc.constant('add' as const), item: fc.nat(2), amount: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('versioned' as const), item: fc.nat(2), version: fc.integer({ min: 1, max: 4 }) }),
);

let clients: LocalClients;
let dynamodb: DynamoDBClient;
let idem: string;
let items: string;
let runs = 0;

beforeAll(async () => {
  clients = testClients();
  dynamodb = clients.dynamodb;
  idem = (await createTable(dynamodb, { name: uniqueName('model-idem'), partitionKey: 'id' })).tableName;
  items = (await createTable(dynamodb, { name: uniqueName('model-items'), partitionKey: 'pk' })).tableName;
});

afterAll(() => destroyClients(clients));

/** The transaction action, on `tables` (the model's names or the engine's), keys made unique to the run by `prefix`. */
function toWrite(step: Action, prefix: string, tables: { idem: string; items: string }): TransactWriteItem {
  if (step.kind === 'dedup') return { Put: { TableName: tables.idem, Item: { id: { S: `${prefix}e${step.id}` } }, ConditionExpression: 'attribute_not_exists(id)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } };
  if (step.kind === 'add') return { Update: { TableName: tables.items, Key: { pk: { S: `${prefix}c${step.item}` } }, UpdateExpression: 'ADD #a0 :v0', ExpressionAttributeNames: { '#a0': 'n' }, ExpressionAttributeValues: { ':v0': { N: String(step.amount) } } } };
  return { Put: { TableName: tables.items, Item: { pk: { S: `${prefix}v${step.item}` }, version: { N: String(step.version) } }, ConditionExpression: 'attribute_not_exists(#k) OR #v < :v', ExpressionAttributeNames: { '#k': 'pk', '#v': 'version' }, ExpressionAttributeValues: { ':v': { N: String(step.version) } } } };
}

async function onEngine(actions: TransactWriteItem[]): Promise<string> {
  try {
    await dynamodb.send(new TransactWriteItemsCommand({ TransactItems: actions }));
    return 'committed';
  } catch (error) {
    if (error instanceof TransactionCanceledException) return `cancelled ${JSON.stringify(error.CancellationReasons?.map((reason) => [reason.Code, reason.Item ?? null]))}`;
    if ((error as Error).name === 'ValidationException') return 'refused';
    throw error;
  }
}

function onModel(model: DynamoDbTableModel, actions: TransactWriteItem[]): string {
  try {
    const outcome = model.transactWrite(actions);
    return outcome.committed ? 'committed' : `cancelled ${JSON.stringify(outcome.reasons.map((reason) => [reason.Code, reason.Item ?? null]))}`;
  } catch (error) {
    if (error instanceof ModelValidationError) return 'refused';
    throw error;
  }
}

async function engineItems(table: string, prefix: string): Promise<Item[]> {
  const { Items = [] } = await dynamodb.send(new ScanCommand({ TableName: table, ConsistentRead: true }));
  return Items.filter((item) => (item.id?.S ?? item.pk?.S ?? '').startsWith(prefix));
}

const sorted = (list: Item[]) => list.map((item) => JSON.stringify(Object.entries(item).sort())).sort();

test('transactions come out the same on DynamoDB Local and on the model', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.array(action, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 6 }), async (transactions) => {
      const prefix = `r${(runs += 1)}-`;
      const model = new DynamoDbTableModel({ idem: ['id'], items: ['pk'] });
      for (const transaction of transactions) {
        const engine = await onEngine(transaction.map((step) => toWrite(step, prefix, { idem, items })));
        expect(onModel(model, transaction.map((step) => toWrite(step, prefix, { idem: 'idem', items: 'items' })))).toBe(engine);
      }
      expect(sorted(model.scan('idem'))).toEqual(sorted(await engineItems(idem, prefix)));
      expect(sorted(model.scan('items'))).toEqual(sorted(await engineItems(items, prefix)));
    }),
    { numRuns: 40 },
  );
});
