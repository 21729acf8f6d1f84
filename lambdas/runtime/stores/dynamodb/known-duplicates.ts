import { BatchGetItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { dedupKey, type DedupSettings } from './dedup-record';
import { dedupNamespace } from '../../consumer/namespace';
import { DYNAMODB_LIMITS } from '../../../../aws/limits';
import { TransientError } from '../../core/errors';

/**
 * Finds which of these events (by id) were committed before, by reading their dedup records (one
 * strongly consistent `BatchGetItem` per 100 keys). Returns event id -> the stored payload hash.
 *
 * Why: a redelivered record (SQS `ApproximateReceiveCount` > 1) is often a duplicate, and one
 * duplicate cancels the whole transaction it rides in, which then commits again without it: two
 * requests, and the write units of both. A read of the redeliveries first keeps them out.
 *
 * It is an optimisation, never the arbiter: the conditional dedup put still decides. A record
 * that is found was written with its effects in one transaction, so the event was applied; a
 * record past its TTL but not yet deleted is found here as the put's condition would find it.
 * Any failure of the read (throttling, a key left unprocessed) only means less is known: those
 * events go to the transaction as usual.
 */
export async function findCommitted(dynamodb: DynamoDBClient, settings: DedupSettings, events: readonly string[]): Promise<Map<string, string | undefined>> {
  const found = new Map<string, string | undefined>();
  for (const chunk of keyChunks(events)) {
    const { items } = await readDedupRecords(dynamodb, settings, chunk).catch(() => ({ items: [] }));
    for (const item of items) found.set(eventIdOf(settings, item), item.payloadHash?.S);
  }
  return found;
}

/**
 * Which of these events have a dedup record, read so that "not found" means not applied: a read
 * that fails, or leaves keys unprocessed, throws (a {@link TransientError} for the latter), for a
 * caller that retries. Asked before a failure is dead-lettered, where a wrong "not found" pages
 * someone for an event that applied.
 */
export async function readCommitted(dynamodb: DynamoDBClient, settings: DedupSettings, events: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const chunk of keyChunks(events)) {
    const { items, unprocessed } = await readDedupRecords(dynamodb, settings, chunk);
    if (unprocessed > 0) throw new TransientError(`${unprocessed} dedup records were left unprocessed by BatchGetItem`);
    for (const item of items) found.add(eventIdOf(settings, item));
  }
  return found;
}

/** The distinct event ids, in chunks of at most one BatchGetItem's keys. */
function keyChunks(events: readonly string[]): string[][] {
  const eventIds = [...new Set(events)];
  const chunks: string[][] = [];
  for (let start = 0; start < eventIds.length; start += DYNAMODB_LIMITS.maxBatchGetKeys) chunks.push(eventIds.slice(start, start + DYNAMODB_LIMITS.maxBatchGetKeys));
  return chunks;
}

async function readDedupRecords(dynamodb: DynamoDBClient, settings: DedupSettings, eventIds: readonly string[]): Promise<{ items: Record<string, AttributeValue>[]; unprocessed: number }> {
  const { Responses, UnprocessedKeys } = await dynamodb.send(new BatchGetItemCommand({
    RequestItems: {
      [settings.table]: {
        Keys: eventIds.map((eventId) => ({ id: { S: dedupKey(dedupNamespace(settings.consumer, settings.generation), eventId) } })),
        ConsistentRead: true,
        ProjectionExpression: 'id, payloadHash',
      },
    },
  }));
  return { items: Responses?.[settings.table] ?? [], unprocessed: UnprocessedKeys?.[settings.table]?.Keys?.length ?? 0 };
}

function eventIdOf(settings: DedupSettings, item: Record<string, AttributeValue>): string {
  return (item.id?.S ?? '').slice(dedupNamespace(settings.consumer, settings.generation).length + 1);
}
