// The fact the conflict model exists for: DynamoDB Local serialises transactions, so concurrent
// TransactWriteItems on one item never conflict there, where DynamoDB would cancel some with
// TransactionConflict. And the model, fed the same overlapping requests, does cancel them.
import { TransactionCanceledException, TransactWriteItemsCommand, type TransactWriteItemsCommandInput } from '@aws-sdk/client-dynamodb';
import { destroyClients } from '../../../emulator/engines';
import { TransactionConflictTracker } from '../../../emulator/contract';
import { createTable, engineClients, uniqueName } from '../../helpers/engines';

const clients = engineClients();
const { dynamodb } = clients;
afterAll(() => destroyClients(clients));

const WRITERS = 8;
const ROUNDS = 15;

function increment(table: string, pk: string): TransactWriteItemsCommandInput {
  return {
    TransactItems: [
      { Update: { TableName: table, Key: { pk: { S: pk } }, UpdateExpression: 'ADD #n :one', ExpressionAttributeNames: { '#n': 'n' }, ExpressionAttributeValues: { ':one': { N: '1' } } } },
      { Put: { TableName: table, Item: { pk: { S: uniqueName('dedup') } }, ConditionExpression: 'attribute_not_exists(pk)' } },
    ],
  };
}

async function conflictsOf(send: () => Promise<unknown>): Promise<number> {
  try {
    await send();
    return 0;
  } catch (error) {
    const reasons = error instanceof TransactionCanceledException ? (error.CancellationReasons ?? []) : [];
    if (reasons.some((reason) => reason.Code === 'TransactionConflict')) return 1;
    throw error;
  }
}

test(`DynamoDB Local alone: ${WRITERS} concurrent writers, ${WRITERS * ROUNDS} transactions on one item, 0 conflicts`, async () => {
  const { tableName } = await createTable(dynamodb, { name: uniqueName('conflicts'), partitionKey: 'pk' });
  const writer = async (): Promise<number> => {
    let conflicts = 0;
    for (let round = 0; round < ROUNDS; round++) conflicts += await conflictsOf(() => dynamodb.send(new TransactWriteItemsCommand(increment(tableName, 'hot'))));
    return conflicts;
  };

  const conflicts = (await Promise.all(Array.from({ length: WRITERS }, writer))).reduce((sum, count) => sum + count, 0);

  expect(conflicts).toBe(0);
});

test('the model, holding each transaction while DynamoDB Local runs it, cancels the overlapping ones', async () => {
  const { tableName } = await createTable(dynamodb, { name: uniqueName('conflicts'), partitionKey: 'pk' });
  const tracker = new TransactionConflictTracker({ keySchemas: { [tableName]: ['pk'] } });
  const throughTracker = async (): Promise<'applied' | 'cancelled'> => {
    const input = increment(tableName, 'hot');
    const decision = tracker.begin('TransactWriteItems', input as unknown as Record<string, unknown>);
    if (!decision.ok) return 'cancelled';
    try {
      await dynamodb.send(new TransactWriteItemsCommand(input));
      return 'applied';
    } finally {
      tracker.end(decision.ticket);
    }
  };

  const outcomes = await Promise.all(Array.from({ length: WRITERS }, throughTracker));

  expect(outcomes.filter((outcome) => outcome === 'applied')).toHaveLength(1);
  expect(tracker.stats()).toMatchObject({ admitted: 1, transactionsCancelled: WRITERS - 1 });
  expect(tracker.inFlightItems()).toBe(0);
});
