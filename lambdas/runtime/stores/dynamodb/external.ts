import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { Context } from 'aws-lambda';
import { withRetries, type RetryOptions } from '../../core/backoff';
import { DEFAULT_DEDUP_TTL_SECONDS } from './dedup-record';
import { dedupNamespace } from '../../consumer/namespace';
import { checkLockMs, DEFAULT_EFFECT_LOCK_MS, lockClock } from './effect-lock';
import { ConfigurationError, EffectInProgressError } from '../../core/errors';

/** An input to an external effect: what it needs, plus the key that makes it the same effect. */
export interface ExternalEffectInput {
  /** Usually the event's `eventId`, or an id derived from a business key; never an SQS `messageId`. */
  readonly idempotencyKey: string;
}

/** Where {@link idempotentEffect} keeps its idempotency records, and how long they and its in-progress lock last. */
export interface ExternalEffectOptions {
  /** The idempotency table (key `id`, TTL `expiration`), shared with the dedup records. */
  readonly table: string;
  readonly dynamodb: DynamoDBClient;
  /**
   * The consumer's name: the prefix of every idempotency record (`<consumer>#<hash>`). It must
   * not be the function's name, which CloudFormation generates and changes when it replaces the
   * function: the new function would no longer recognise the effects the old one made.
   */
  readonly consumer: string;
  /**
   * The consumer's generation (`CONSUMER_GENERATION`, see `consumerEnv`): from 2 on, the records'
   * prefix is `<consumer>@g<n>`, so that a rebuilt generation runs an effect the live one ran
   * already, as a rebuild must (`dedupNamespace`).
   * @default 1
   */
  readonly generation?: number;
  /**
   * How long a completed effect is remembered: the consumer's validated dedup TTL
   * (`DEDUP_TTL_SECONDS`, see `consumerEnv`).
   * @default DEFAULT_DEDUP_TTL_SECONDS
   */
  readonly expiresAfterSeconds?: number;
  /** Retries of the record writes that Powertools gave up on after the effect. @default RECORD_REPAIR_RETRY */
  readonly retry?: RetryOptions;
  /**
   * How long a call without a Lambda context (or with one whose clock reads no time left) holds
   * the effect's lock, in ms: a whole number in 1..900000. If that call's invocation dies mid-effect,
   * the next delivery runs the effect once the lock expires; an effect that outlasts its lock
   * may run twice, so set it above the effect's longest run. A call with a context holds the lock
   * until its invocation's deadline instead, except on Lambda Managed Instances
   * (`AWS_LAMBDA_MAX_CONCURRENCY` set), where a timeout does not stop the code: there every call
   * holds it for `lockMs`, and 15 minutes bounds nothing the code does.
   * @default DEFAULT_EFFECT_LOCK_MS (15 minutes, the longest a Lambda invocation can run on Lambda's default compute)
   */
  readonly lockMs?: number;
}

/**
 * Retries of a record write that Powertools gave up on. More than usual: when the record of an
 * effect that happened is not marked COMPLETED, the effect runs again once its lock expires.
 */
export const RECORD_REPAIR_RETRY = { maxAttempts: 5 } as const;

/** What one call of an {@link IdempotentEffect} came to: the effect ran now, or its record says it ran before. */
export interface EffectOutcome<TResult> {
  readonly status: 'applied' | 'duplicate';
  /** The effect's result: now, or as Powertools stored it then. */
  readonly result: TResult;
}

/**
 * An idempotent external effect. Pass the handler's Lambda context (`context.lambdaContext`) so
 * that the lock of a call whose invocation dies expires with that invocation; without it the lock
 * lasts `lockMs`. Calling it gives the effect's result; `outcome` gives the result and whether the
 * effect ran now, for a handler to return as its event's outcome (so duplicates are counted, and a
 * replay can say it sent nothing).
 */
export type IdempotentEffect<TInput extends ExternalEffectInput, TResult> = ((input: TInput, lambdaContext?: Context) => Promise<TResult>) & {
  readonly outcome: (input: TInput, lambdaContext?: Context) => Promise<EffectOutcome<TResult>>;
};

/** What became of the wrapped effect in one call, so that a failure around it can be told from a failure of it. */
interface EffectAttempt<TResult> {
  state: 'not-run' | 'done' | 'failed';
  result?: TResult;
  error?: unknown;
}

type PowertoolsStore = DynamoDBPersistenceLayer;

/**
 * Wraps an effect DynamoDB cannot hold (an email, an HTTP call, an SNS publish) in the Powertools
 * idempotency utility, keyed on the consumer and `input.idempotencyKey`.
 *
 * Around Powertools:
 * - a lock held by another invocation becomes an {@link EffectInProgressError} that says when it
 *   expires (Powertools stores that expiry but does not report it), so that the retries wait it
 *   out instead of failing the record;
 * - when the effect succeeded but Powertools could not mark its record COMPLETED (or failed and
 *   Powertools could not delete the record), the write is retried here, so that a throttled
 *   table does not turn into a second effect or a lock that blocks the record;
 * - every call's lock expires: at its invocation's deadline when it is given the Lambda context,
 *   after `lockMs` ({@link DEFAULT_EFFECT_LOCK_MS} by default) when not, and always after `lockMs`
 *   on Lambda Managed Instances, where the code outlives the deadline. Powertools alone would
 *   store no expiry without a context (the lock would last the record's TTL), and would read the
 *   context an earlier call registered on the shared config, of an invocation that may be over.
 *
 * Its crash window, stated plainly: Powertools writes its record outside the effect. If the
 * function dies after the effect and before the record is marked COMPLETED, the effect runs again
 * once the in-progress lock expires. Pass the key downstream as the receiver's idempotency key so
 * that the receiver can close that window.
 *
 * @example
 * ```ts
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { idempotentEffect, type ConsumedEvent, type HandlerContext } from 'effectively-once/runtime';
 * declare function sendEmail(input: { idempotencyKey: string; to: string }): Promise<void>;
 * const notify = idempotentEffect(sendEmail, { table: 'idempotency', dynamodb: new DynamoDBClient({}), consumer: 'notifier' });
 * // a route's handler: keyed on the event, holding the lock until the invocation's deadline
 * export async function onShipped(event: ConsumedEvent<{ email: string }>, context: HandlerContext): Promise<void> {
 *   await notify({ idempotencyKey: event.eventId, to: event.payload.email }, context.lambdaContext);
 * }
 * ```
 */
export function idempotentEffect<TInput extends ExternalEffectInput, TResult>(
  effect: (input: TInput) => Promise<TResult>,
  options: ExternalEffectOptions,
): IdempotentEffect<TInput, TResult> {
  checkOptions(options);
  const store = new DynamoDBPersistenceLayer({ tableName: options.table, awsSdkV3Client: options.dynamodb });
  const tracked = async (input: TInput, attempt: EffectAttempt<TResult>): Promise<TResult> => runTracked(effect, input, attempt);
  const retry = { ...RECORD_REPAIR_RETRY, ...options.retry };
  const outcome = async (input: TInput, lambdaContext?: Context): Promise<EffectOutcome<TResult>> => {
    const wrapped = makeIdempotent(tracked, { persistenceStore: store, config: configFor(options, lambdaContext), keyPrefix: dedupNamespace(options.consumer, options.generation) });
    const attempt: EffectAttempt<TResult> = { state: 'not-run' };
    let result: TResult;
    try {
      result = await wrapped(input, attempt);
    } catch (error) {
      result = await recover(error, { store, input, attempt, retry });
    }
    // Powertools answered from a COMPLETED record without running the effect: it ran before.
    return { status: attempt.state === 'done' ? 'applied' : 'duplicate', result };
  };
  return Object.assign(async (input: TInput, lambdaContext?: Context) => (await outcome(input, lambdaContext)).result, { outcome });
}

/**
 * One call's Powertools config. Each call gets its own because the lock's clock lives in it: on a
 * config shared by every call, a call without a context would read the context an earlier call
 * registered, and overlapping calls each other's. The store keeps the settings of the first
 * config it sees; these are the same for every call.
 */
function configFor(options: ExternalEffectOptions, lambdaContext: Context | undefined): IdempotencyConfig {
  return new IdempotencyConfig({
    eventKeyJmesPath: 'idempotencyKey',
    expiresAfterSeconds: options.expiresAfterSeconds ?? DEFAULT_DEDUP_TTL_SECONDS,
    throwOnNoIdempotencyKey: true,
    lambdaContext: lockClock(lambdaContext, options.lockMs ?? DEFAULT_EFFECT_LOCK_MS),
  });
}

async function runTracked<TInput, TResult>(effect: (input: TInput) => Promise<TResult>, input: TInput, attempt: EffectAttempt<TResult>): Promise<TResult> {
  try {
    attempt.result = await effect(input);
    attempt.state = 'done';
    return attempt.result;
  } catch (error) {
    attempt.state = 'failed';
    attempt.error = error;
    throw error;
  }
}

interface Recovery<TInput, TResult> {
  readonly store: PowertoolsStore;
  readonly input: TInput;
  readonly attempt: EffectAttempt<TResult>;
  readonly retry: RetryOptions;
}

/** Completes what Powertools left half done, or tells the caller when a lock expires; rethrows the rest. */
async function recover<TInput extends ExternalEffectInput, TResult>(error: unknown, recovery: Recovery<TInput, TResult>): Promise<TResult> {
  const { store, input, attempt, retry } = recovery;
  if (attempt.state === 'done') {
    await withRetries(() => store.saveSuccess(input as never, attempt.result as never), retry);
    return attempt.result as TResult;
  }
  if (attempt.state === 'failed') {
    if (isPowertoolsError(error, 'IdempotencyPersistenceLayerError')) await withRetries(() => store.deleteRecord(input as never), retry).catch(() => undefined);
    throw attempt.error;
  }
  if (isPowertoolsError(error, 'IdempotencyAlreadyInProgressError')) throw await lockError(store, input, error);
  throw error;
}

/** The in-progress lock as an error that names its expiry, read back from the record Powertools keeps. */
async function lockError(store: PowertoolsStore, input: ExternalEffectInput, error: unknown): Promise<EffectInProgressError> {
  try {
    const record = await store.getRecord(input as never);
    const expiresAt = record.inProgressExpiryTimestamp;
    // A record completed or released meanwhile: the next try goes through at once.
    const retryAt = record.getStatus() !== 'INPROGRESS' ? new Date() : expiresAt ? new Date(expiresAt) : undefined;
    return new EffectInProgressError(input.idempotencyKey, retryAt, { cause: error });
  } catch (readError) {
    const released = isPowertoolsError(readError, 'IdempotencyItemNotFoundError');
    return new EffectInProgressError(input.idempotencyKey, released ? new Date() : undefined, { cause: error });
  }
}

function isPowertoolsError(error: unknown, name: string): boolean {
  return error instanceof Error && error.name === name;
}

function checkOptions(options: ExternalEffectOptions): void {
  if (!options.consumer) throw new ConfigurationError('idempotentEffect needs the consumer\'s name (options.consumer): it prefixes every idempotency record');
  const ttl = options.expiresAfterSeconds;
  if (ttl !== undefined && !(Number.isInteger(ttl) && ttl > 0)) throw new ConfigurationError(`idempotentEffect: expiresAfterSeconds must be a whole number of seconds > 0 (given ${ttl})`);
  checkLockMs(options.lockMs);
  const generation = options.generation;
  if (generation !== undefined && !(Number.isInteger(generation) && generation >= 1)) throw new ConfigurationError(`idempotentEffect: generation must be a whole number from 1 (given ${generation})`);
}
