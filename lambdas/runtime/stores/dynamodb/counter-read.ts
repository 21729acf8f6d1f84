import { BatchGetItemCommand, type AttributeValue, type BatchGetItemCommandOutput, type DynamoDBClient, type KeysAndAttributes } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { DYNAMODB_LIMITS } from '../../../../aws/limits';
import { fullJitterDelay, realSleep, type Sleep } from '../../core/backoff';
import type { ItemKey } from './effects';
import { TransientError } from '../../core/errors';
import { counterKeys, type Sharding } from './sharding';

/** What {@link readCounter} reads. */
export interface CounterRead extends Partial<Sharding> {
  readonly table: string;
  /** The counter's key, unsharded: `{ pk: 'day#2026-12-01' }`. */
  readonly key: ItemKey;
  readonly attribute: string;
  /** Strongly consistent reads (twice the read units). @default false */
  readonly consistent?: boolean;
}

/** Rounds of `UnprocessedKeys` a read retries before it gives up. */
const UNPROCESSED_ROUNDS = 5;

/**
 * The value of a counter that {@link increment} may have sharded: the sum of `attribute` over the
 * unsharded item and its `shards` shard items (absent items count 0), with the `shards` the
 * writers use. One `BatchGetItem` per 100 keys; keys left unprocessed (throttling) are asked again
 * with full-jitter backoff.
 *
 * @example
 * ```ts
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { readCounter } from 'effectively-once/runtime';
 * const views = await readCounter(new DynamoDBClient({}), { table: 'counters', key: { pk: 'day#2026-12-01' }, attribute: 'views', shards: 32 });
 * ```
 * @throws RangeError for a sharding that does not fit the key; TransientError when keys stay unprocessed
 */
export async function readCounter(dynamodb: DynamoDBClient, read: CounterRead, sleep: Sleep = realSleep): Promise<number> {
  const keys = counterKeys(read.key, { shards: read.shards ?? 1, shardAttribute: read.shardAttribute });
  let total = 0;
  for (let start = 0; start < keys.length; start += DYNAMODB_LIMITS.maxBatchGetKeys) {
    const items = await readAll(dynamodb, read, keys.slice(start, start + DYNAMODB_LIMITS.maxBatchGetKeys), sleep);
    for (const item of items) total += Number(item[read.attribute]?.N ?? 0);
  }
  return total;
}

async function readAll(dynamodb: DynamoDBClient, read: CounterRead, keys: readonly ItemKey[], sleep: Sleep): Promise<Record<string, AttributeValue>[]> {
  const items: Record<string, AttributeValue>[] = [];
  let request: KeysAndAttributes | undefined = {
    Keys: keys.map((key) => marshall(key)),
    ConsistentRead: read.consistent ?? false,
    ProjectionExpression: '#a',
    ExpressionAttributeNames: { '#a': read.attribute },
  };
  for (let round = 0; request !== undefined; round += 1) {
    if (round >= UNPROCESSED_ROUNDS) throw new TransientError(`reading counter ${JSON.stringify(read.key)} of ${read.table}: ${request.Keys?.length ?? 0} keys stayed unprocessed after ${UNPROCESSED_ROUNDS} requests`);
    if (round > 0) await sleep(fullJitterDelay(round - 1));
    const answer: BatchGetItemCommandOutput = await dynamodb.send(new BatchGetItemCommand({ RequestItems: { [read.table]: request } }));
    items.push(...(answer.Responses?.[read.table] ?? []));
    const unprocessed = answer.UnprocessedKeys?.[read.table];
    request = unprocessed?.Keys?.length ? unprocessed : undefined;
  }
  return items;
}
