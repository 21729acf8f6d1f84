import { BatchGetItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { dedupKey, type DedupIdentity, type DedupSettings } from './dedup-record';
import { DYNAMODB_LIMITS } from '../../aws/limits';


/**
 * Finds which of these events were committed before, by reading their dedup records (one
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
export async function findCommitted(dynamodb: DynamoDBClient, settings: DedupSettings, events: readonly DedupIdentity[]): Promise<Map<string, string | undefined>> {
  const found = new Map<string, string | undefined>();
  const eventIds = [...new Set(events.map((event) => event.eventId))];
  for (let start = 0; start < eventIds.length; start += DYNAMODB_LIMITS.maxBatchGetKeys) {
    const items = await readDedupRecords(dynamodb, settings, eventIds.slice(start, start + DYNAMODB_LIMITS.maxBatchGetKeys));
    for (const item of items) found.set(eventIdOf(settings, item), item.payloadHash?.S);
  }
  return found;
}

async function readDedupRecords(dynamodb: DynamoDBClient, settings: DedupSettings, eventIds: readonly string[]): Promise<Record<string, AttributeValue>[]> {
  try {
    const { Responses } = await dynamodb.send(new BatchGetItemCommand({
      RequestItems: {
        [settings.table]: {
          Keys: eventIds.map((eventId) => ({ id: { S: dedupKey(settings.consumer, eventId) } })),
          ConsistentRead: true,
          ProjectionExpression: 'id, payloadHash',
        },
      },
    }));
    return Responses?.[settings.table] ?? [];
  } catch {
    return [];
  }
}

function eventIdOf(settings: DedupSettings, item: Record<string, AttributeValue>): string {
  return (item.id?.S ?? '').slice(settings.consumer.length + 1);
}
