/**
 * A batch's increments of one item, merged into one `ADD`, store on DynamoDB Local what the same
 * increments store one batch at a time (issue 39, item 1's question for the DynamoDB path). Before,
 * the merge summed JavaScript numbers: 0.1 and 0.2 in one batch stored 0.30000000000000004, and in
 * two batches 0.3 (DynamoDB adds decimals exactly), so that the total depended on the batching.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { z } from 'zod';
import { createConsumer, createEnvelope, increment, route, SourceKind, transactionalStrategy, type BatchHandler } from '../../../../../lambdas/runtime';
import { exactDecimalSum } from '../../../../../lambdas/runtime/stores/dynamodb/decimal-sum';
import { destroyClients, type LocalClients } from '../../../../../emulator/engines';
import { sqsEvent, sqsRecord } from '../../../../helpers/events';
import { testClients } from '../../../../helpers/engines';
import { recordingObservability } from '../../../../helpers/fakes';
import { idempotencyTable, pkTable } from '../../../../helpers/fixtures';

let clients: LocalClients;
beforeAll(() => {
  clients = testClients();
});
afterAll(() => destroyClients(clients));

/** A consumer that adds each payment's amount to one total, in batch mode (one transaction, one `ADD` per item). */
async function totalConsumer(): Promise<{ handler: BatchHandler; total: () => Promise<string | undefined> }> {
  const [idempotency, totals] = await Promise.all([idempotencyTable(clients.dynamodb), pkTable(clients.dynamodb, 'totals')]);
  const handler = createConsumer({
    name: 'totals',
    source: SourceKind.SQS,
    routes: { 'payment.received': route(z.object({ amount: z.number() }), (event) => [increment(totals.tableName, { pk: 'total' }, 'sum', event.payload.amount)]) },
    strategy: transactionalStrategy({ dynamodb: clients.dynamodb, mode: 'batch', dedup: { table: idempotency, consumer: 'totals' }, retry: { sleep: async () => undefined, maxAttempts: 3 } }),
    observability: recordingObservability(),
  });
  const total = async () => {
    const { Item } = await clients.dynamodb.send(new GetItemCommand({ TableName: totals.tableName, Key: { pk: { S: 'total' } }, ConsistentRead: true }));
    // The number's text as DynamoDB keeps it, not a JavaScript number that would round it again.
    return Item?.sum?.N;
  };
  return { handler, total };
}

/**
 * A double whose sums with the others stay within DynamoDB's 38 significant digits (and its range,
 * which starts at 1E-130): at most 1e6 and, unless 0, at least 1e-6, so that a sum spans at most
 * some 29 digits. Outside them DynamoDB refuses the number however it is batched.
 */
function inDynamoDbPrecision(amount: number): boolean {
  return amount === 0 || Math.abs(amount) >= 1e-6;
}

let sequence = 0;
function payment(amount: number) {
  sequence += 1;
  return sqsRecord(createEnvelope({ type: 'payment.received', businessKey: `payment-${sequence}`, source: 'test', payload: { amount }, occurredAt: '2026-12-07T10:00:00.000Z' }));
}

/** Delivers the amounts in batches of the given sizes, one after another, and returns the stored total. */
async function totalAfter(amounts: readonly number[], batchSizes: readonly number[]): Promise<string | undefined> {
  const { handler, total } = await totalConsumer();
  const records = amounts.map(payment);
  let start = 0;
  for (const size of batchSizes) {
    const batch = records.slice(start, start + size);
    start += size;
    if (batch.length > 0) expect((await handler(sqsEvent(...batch))).batchItemFailures).toEqual([]);
  }
  return total();
}

test('0.1 and 0.2 in one batch store 0.3, as two batches do', async () => {
  expect(await totalAfter([0.1, 0.2], [1, 1])).toBe('0.3');
  expect(await totalAfter([0.1, 0.2], [2])).toBe('0.3');
});

test('integers past 2^53 in one batch store their exact sum, as one batch each does', async () => {
  const amounts = [Number.MAX_SAFE_INTEGER, 2, 2];
  expect(await totalAfter(amounts, [1, 1, 1])).toBe('9007199254740995');
  expect(await totalAfter(amounts, [3])).toBe('9007199254740995');
});

test('any amounts, any batch boundaries: the total one batch at a time, and the exact decimal sum', async () => {
  const amount = fc.oneof(fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.integer({ min: -99_999, max: 99_999 }).map((cents) => cents / 100), fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }).filter(inDynamoDbPrecision));
  const workload = fc.array(amount, { minLength: 1, maxLength: 12 }).chain((amounts) => fc.tuple(fc.constant(amounts), fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 12 })));
  await fc.assert(
    fc.asyncProperty(workload, async ([amounts, sizes]) => {
      const batched = await totalAfter(amounts, [...sizes, amounts.length]);
      const oneAtATime = await totalAfter(amounts, amounts.map(() => 1));
      expect(batched).toBe(oneAtATime);
      expect(Number(batched)).toBe(Number(exactDecimalSum(amounts)));
    }),
    { numRuns: 15, seed: 39 },
  );
}, 120_000);
