/**
 * What the benchmark's handlers share: where they write, the page-view payload, and the effect
 * applied with plain `UpdateItem`s (for the strategies that do not commit transactions).
 */
import { UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { en } from 'zod/locales';
import * as z from 'zod/mini';
import { onShard, requireEnv, type Effect } from '../../../lambdas/runtime';

// zod/mini, as the example handlers use it (it tree-shakes), with its English issue messages.
z.config(en());

/** The tables and client a strategy's handler writes with. */
export interface BenchWiring {
  readonly countersTable: string;
  readonly idempotencyTable: string;
  readonly dynamodb: DynamoDBClient;
}

/** Reads `COUNTERS_TABLE` and `IDEMPOTENCY_TABLE`, as the deployed page-view counter does. */
export function tablesFromEnv(env: NodeJS.ProcessEnv = process.env): Omit<BenchWiring, 'dynamodb'> {
  return { countersTable: requireEnv('COUNTERS_TABLE', env), idempotencyTable: requireEnv('IDEMPOTENCY_TABLE', env) };
}

/** The page-view payload (schema 1), as the page-view counter validates it. */
export const pageViewPayload = z.object({ pageId: z.string().check(z.minLength(1), z.maxLength(512)) });

/** Applies each increment with its own `UpdateItem ADD` (a sharded one on the shard the event id picks): no transaction, no dedup. */
export async function applyIncrements(dynamodb: DynamoDBClient, effects: readonly Effect[], eventId = ''): Promise<void> {
  for (const planned of effects) {
    if (planned.kind !== 'increment') throw new TypeError(`only increments are applied here (given ${planned.kind})`);
    const effect = onShard(planned, eventId);
    await dynamodb.send(new UpdateItemCommand({
      TableName: effect.table,
      Key: marshall(effect.key),
      UpdateExpression: 'ADD #a :v',
      ExpressionAttributeNames: { '#a': effect.attribute },
      ExpressionAttributeValues: { ':v': { N: String(effect.amount) } },
    }));
  }
}
