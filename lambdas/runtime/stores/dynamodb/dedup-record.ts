import type { TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { dedupKey, dedupNamespace } from '../../consumer/namespace';

/** 30 days: longer than the default SQS retention (4 d) + DLQ retention (14 d) + a redrive allowance. */
export const DEFAULT_DEDUP_TTL_SECONDS = 30 * 24 * 60 * 60;

/** Where and for how long a consumer keeps its dedup records. */
export interface DedupSettings {
  /** The idempotency table: key `id` (S), TTL attribute `expiration`. */
  readonly table: string;
  /** Part of every dedup key, so that two consumers of one event each apply it once. */
  readonly consumer: string;
  /**
   * The consumer's generation (`CONSUMER_GENERATION`): a rebuilt generation keeps its dedup
   * records apart from the live one's, so that a replay into it applies what the live one
   * applied already (see {@link dedupNamespace}).
   * @default 1
   */
  readonly generation?: number;
  /** @default DEFAULT_DEDUP_TTL_SECONDS */
  readonly ttlSeconds?: number;
}

/** An event ready to commit: its dedup identity and the fingerprint of its payload. */
export interface DedupIdentity {
  readonly eventId: string;
  readonly payloadHash: string;
}

/** The dedup record's key (shared by every store, so it lives beside the namespace). */
export { dedupKey } from '../../consumer/namespace';

/** Epoch seconds when a record written now expires. */
export function expirationFrom(now: Date, ttlSeconds: number = DEFAULT_DEDUP_TTL_SECONDS): number {
  return Math.floor(now.getTime() / 1000) + ttlSeconds;
}

/**
 * The conditional `Put` that claims an event: it fails with `ConditionalCheckFailed` when the
 * event was already committed, and then returns the old record so that a conflicting payload can
 * be flagged.
 */
export function dedupPutAction(settings: DedupSettings, event: DedupIdentity, expiration: number): TransactWriteItem {
  return {
    Put: {
      TableName: settings.table,
      Item: {
        id: { S: dedupKey(dedupNamespace(settings.consumer, settings.generation), event.eventId) },
        expiration: { N: String(expiration) },
        payloadHash: { S: event.payloadHash },
      },
      ConditionExpression: 'attribute_not_exists(id)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}
