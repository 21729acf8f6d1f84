/** Fresh tables for each strategy's run, and the counts read back from them. */
import { CreateTableCommand, DeleteTableCommand, DescribeTableCommand, ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { unshardedValue } from '../../lambdas/runtime';

export interface BenchTables {
  readonly countersTable: string;
  readonly idempotencyTable: string;
}

const ACTIVE_DEADLINE_MS = 30_000;

/** Creates an idempotency table (key `id`) and a counters table (key `pk`), both on demand. */
export async function createBenchTables(dynamodb: DynamoDBClient, prefix: string): Promise<BenchTables> {
  const suffix = randomBytes(4).toString('hex');
  const [idempotencyTable, countersTable] = await Promise.all([
    createTable(dynamodb, `${prefix}-idempotency-${suffix}`, 'id'),
    createTable(dynamodb, `${prefix}-counters-${suffix}`, 'pk'),
  ]);
  return { countersTable, idempotencyTable };
}

export async function deleteBenchTables(dynamodb: DynamoDBClient, tables: BenchTables): Promise<void> {
  await Promise.all([tables.countersTable, tables.idempotencyTable].map((TableName) => dynamodb.send(new DeleteTableCommand({ TableName }))));
}

async function createTable(dynamodb: DynamoDBClient, name: string, key: string): Promise<string> {
  await dynamodb.send(new CreateTableCommand({
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [{ AttributeName: key, AttributeType: 'S' }],
    KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
  }));
  const deadline = Date.now() + ACTIVE_DEADLINE_MS;
  for (;;) {
    const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: name }));
    if (Table?.TableStatus === 'ACTIVE') return name;
    if (Date.now() > deadline) throw new Error(`table ${name} did not become ACTIVE within ${ACTIVE_DEADLINE_MS} ms`);
    await sleep(50);
  }
}

/** Every counter's `views`, by key, read with consistent scans; a sharded counter's shard items summed into it. */
export async function readCounters(dynamodb: DynamoDBClient, table: string): Promise<Map<string, number>> {
  const counters = new Map<string, number>();
  let ExclusiveStartKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await dynamodb.send(new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey }));
    for (const item of page.Items ?? []) {
      const counter = unshardedValue(String(item.pk?.S));
      counters.set(counter, (counters.get(counter) ?? 0) + Number(item.views?.N ?? 0));
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return counters;
}

/**
 * How far the counts are from the expected ones: counter items that differ, and page views counted
 * too many (negative: too few), summed over the per-page counters.
 */
export function compareCounts(expected: ReadonlyMap<string, number>, actual: ReadonlyMap<string, number>): { readonly mismatches: number; readonly extraViews: number } {
  let mismatches = 0;
  let extraViews = 0;
  for (const key of new Set([...expected.keys(), ...actual.keys()])) {
    const difference = (actual.get(key) ?? 0) - (expected.get(key) ?? 0);
    if (difference !== 0) mismatches += 1;
    if (key.startsWith('page#')) extraViews += difference;
  }
  return { mismatches, extraViews };
}
