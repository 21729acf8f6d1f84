/**
 * A fresh batch on DynamoDB Local costs what it must, no more: the example's page-view counter
 * (batch mode, 256 counter shards) given 100 page views with no duplicate and no redelivery makes
 * no read, commits all its transactions in one round (every one in flight at once), and spends
 * write units within 1.1x of the floor. The floor: each event's dedup record plus each counter
 * item its views touch, each written once, at 2 WRU (a transactional write of an item under 1 KB).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { createPageViewCounter, pageViewEffects } from '../../../../../example/handlers/page-view-counter';
import { readCounter, type Envelope } from '../../../../../lambdas/runtime';
import { destroyClients, type LocalClients } from '../../../../../emulator/engines';
import { capacityOf } from '../../../../../tools/bench/capacity';
import { meterRequests, type RequestMeter } from '../../../../../tools/bench/metering';
import { generateWorkload } from '../../../../../tools/bench/workload';
import { testClients } from '../../../../helpers/engines';
import { idempotencyTable, pkTable } from '../../../../helpers/fixtures';

const SHARDS = 256;
/** A transactional write of an item under 1 KB. */
const WRU_PER_ITEM = 2;
const READS = ['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand'];

let clients: LocalClients;
beforeAll(() => {
  clients = testClients();
});
afterAll(() => destroyClients(clients));

/** The most transactions the client had on the wire at once, counted per attempt. */
function trackInFlight(dynamodb: DynamoDBClient): () => number {
  let inFlight = 0;
  let most = 0;
  dynamodb.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
      most = Math.max(most, (inFlight += 1));
      try {
        return await next(args);
      } finally {
        inFlight -= 1;
      }
    },
    { step: 'finalizeRequest', priority: 'low', name: 'inFlightTransactions' },
  );
  return () => most;
}

/** Each view's dedup record plus each counter item (logical, before sharding) the batch touches: what a batch must write. */
function floorWriteUnits(batch: SQSEvent): number {
  const items = new Set<string>();
  for (const record of batch.Records) {
    const envelope = JSON.parse(record.body) as Envelope<{ pageId: string }>;
    for (const effect of pageViewEffects('counters', envelope.payload.pageId, envelope.occurredAt, SHARDS)) items.add(String(effect.key.pk));
  }
  return WRU_PER_ITEM * (batch.Records.length + items.size);
}

interface Run {
  readonly meter: RequestMeter;
  readonly mostInFlight: () => number;
  readonly counters: string;
}

async function runBatch(batch: SQSEvent): Promise<Run> {
  const own = testClients();
  const dynamodb = own.dynamodb;
  const [idempotency, { tableName: counters }] = await Promise.all([idempotencyTable(dynamodb), pkTable(dynamodb, 'counters')]);
  const mostInFlight = trackInFlight(dynamodb);
  const meter = meterRequests(dynamodb);
  const handler = createPageViewCounter({ countersTable: counters, idempotencyTable: idempotency, counterShards: SHARDS, mode: 'batch', clients: { ...clients, dynamodb }, retry: { sleep: async () => undefined } });
  try {
    expect((await handler(batch)).batchItemFailures).toEqual([]);
  } finally {
    destroyClients(own);
  }
  return { meter, mostInFlight, counters };
}

describe.each([
  ['the bench batch: Zipf over 300 pages, 5 days', { pages: 300, days: 5 }],
  ['a hot batch: Zipf over 20 pages, 1 day', { pages: 20, days: 1 }],
])('100 fresh page views, %s', (_description, shape) => {
  const [batch] = generateWorkload({ events: 100, seed: 27, duplicateRate: 0, ...shape }).batches as [SQSEvent];

  test('no read, one round of concurrent transactions, write units within 1.1x of the floor, every view counted', async () => {
    const { meter, mostInFlight, counters } = await runBatch(batch);
    const calls = meter.calls;
    const transactions = calls.filter((call) => call.command === 'TransactWriteItemsCommand');
    const floor = floorWriteUnits(batch);
    const { writeUnits } = capacityOf(calls);
    expect(calls.filter((call) => READS.includes(call.command))).toEqual([]);
    expect(calls.every((call) => call.command === 'TransactWriteItemsCommand' && call.outcome === 'ok')).toBe(true);
    expect(transactions.length).toBeGreaterThan(1);
    expect(mostInFlight()).toBe(transactions.length);
    expect(writeUnits).toBeLessThanOrEqual(1.1 * floor);

    const days = new Set(batch.Records.map((record) => (JSON.parse(record.body) as Envelope).occurredAt.slice(0, 10)));
    const counted = await Promise.all([...days].map((day) => readCounter(clients.dynamodb, { table: counters, key: { pk: `day#${day}` }, attribute: 'views', shards: SHARDS, consistent: true })));
    expect(counted.reduce((sum, views) => sum + views, 0)).toBe(100);
  });
});
