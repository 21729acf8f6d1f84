import { createHash } from 'node:crypto';
import {
  TransactWriteItemsCommand,
  TransactionCanceledException,
  type CancellationReason,
  type DynamoDBClient,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { TRANSIENT_CANCELLATION_CODES } from '../../core/classify';
import { TransientError } from '../../core/errors';
import { DYNAMODB_LIMITS } from '../../../../aws/limits';

/** `TransactWriteItems` limits. */
export const TRANSACTION_LIMITS = {
  maxActions: DYNAMODB_LIMITS.maxTransactionActions,
  /** 95% of the service's 4 MB: the estimate of a request's size leaves room for its envelope. */
  maxBytes: Math.floor(DYNAMODB_LIMITS.maxTransactionBytes * 0.95),
} as const;

export type TransactionResult =
  | { readonly committed: true }
  | { readonly committed: false; readonly reasons: readonly CancellationReason[] };

/**
 * Commits one transaction. A cancellation caused by failed conditions is returned with its
 * reasons (same order as the actions); a cancellation any of whose reasons a retry can clear
 * (conflict, throttling) is thrown as a {@link TransientError}.
 *
 * The `ClientRequestToken` is a hash of the actions and of `attempt`, which names one commit (its
 * retries share it): a retry of this very request is idempotent for 10 minutes, and no other
 * request collides with it. Without `attempt`, a redelivered batch whose transaction came out the
 * same (the same events on the same counter shards) would share the first delivery's token, and
 * DynamoDB would answer it with success and write nothing: exactly once all the same, but counted
 * as applied instead of as duplicates (the metrics, a replay's summary).
 */
export async function commitTransaction(dynamodb: DynamoDBClient, actions: readonly TransactWriteItem[], attempt = ''): Promise<TransactionResult> {
  const command = new TransactWriteItemsCommand({ TransactItems: [...actions], ClientRequestToken: tokenFor(actions, attempt) });
  try {
    await dynamodb.send(command);
    return { committed: true };
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    const reasons = error.CancellationReasons ?? [];
    if (reasons.length === 0 || reasons.some((reason) => TRANSIENT_CANCELLATION_CODES.has(reason.Code ?? ''))) {
      throw new TransientError(`transaction cancelled: ${describeReasons(reasons)}`, { cause: error });
    }
    return { committed: false, reasons };
  }
}

/** A 36-character token derived from the request's contents and the commit it belongs to. */
export function tokenFor(actions: readonly TransactWriteItem[], attempt = ''): string {
  return createHash('sha256').update(attempt).update('\0').update(JSON.stringify(actions)).digest('base64url').slice(0, 36);
}

/** The reason codes, e.g. `ConditionalCheckFailed, None`. */
export function describeReasons(reasons: readonly CancellationReason[]): string {
  return reasons.map((reason) => reason.Code ?? 'Unknown').join(', ') || 'no reasons given';
}

/** True when the action at `index` failed its condition. */
export function failedCondition(reasons: readonly CancellationReason[], index: number): boolean {
  return reasons[index]?.Code === 'ConditionalCheckFailed';
}

/**
 * The positions of the actions that another request's hold on their item cancelled
 * (`TransactionConflict`), when `commitTransaction` failed so; none for any other failure.
 */
export function conflictingActions(error: unknown): number[] {
  const cause = error instanceof TransientError ? error.cause : error;
  if (!(cause instanceof TransactionCanceledException)) return [];
  return (cause.CancellationReasons ?? []).flatMap((reason, position) => (reason.Code === 'TransactionConflict' ? [position] : []));
}
