import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { Context } from 'aws-lambda';
import { DEFAULT_DEDUP_TTL_SECONDS } from './dedupRecord';

/** An input to an external effect: what it needs, plus the key that makes it the same effect. */
export interface ExternalEffectInput {
  /** Usually the event's `eventId`, or an id derived from a business key; never an SQS `messageId`. */
  readonly idempotencyKey: string;
}

export interface ExternalEffectOptions {
  /** The idempotency table (key `id`, TTL `expiration`), shared with the dedup records. */
  readonly table: string;
  readonly dynamodb: DynamoDBClient;
  /** How long a completed effect is remembered. @default DEFAULT_DEDUP_TTL_SECONDS */
  readonly expiresAfterSeconds?: number;
}

/** An idempotent external effect; pass the Lambda context so that an in-progress lock expires with the invocation. */
export type IdempotentEffect<TInput extends ExternalEffectInput, TResult> = (input: TInput, lambdaContext?: Context) => Promise<TResult>;

/**
 * Wraps an effect DynamoDB cannot hold (an email, an HTTP call, an SNS publish) in the Powertools
 * idempotency utility, keyed on `input.idempotencyKey`.
 *
 * Its crash window, stated plainly: Powertools writes its record outside the effect. If the
 * function dies after the effect and before the record is marked COMPLETED, the effect runs again
 * once the in-progress lock expires. Pass the key downstream as the receiver's idempotency key so
 * that the receiver can close that window.
 */
export function idempotentEffect<TInput extends ExternalEffectInput, TResult>(
  effect: (input: TInput) => Promise<TResult>,
  options: ExternalEffectOptions,
): IdempotentEffect<TInput, TResult> {
  const config = new IdempotencyConfig({
    eventKeyJmesPath: 'idempotencyKey',
    expiresAfterSeconds: options.expiresAfterSeconds ?? DEFAULT_DEDUP_TTL_SECONDS,
    throwOnNoIdempotencyKey: true,
  });
  const persistenceStore = new DynamoDBPersistenceLayer({ tableName: options.table, awsSdkV3Client: options.dynamodb });
  const wrapped = makeIdempotent(effect, { persistenceStore, config });
  return async (input, lambdaContext) => {
    if (lambdaContext) config.registerLambdaContext(lambdaContext);
    return wrapped(input);
  };
}
