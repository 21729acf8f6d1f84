/**
 * One-call handlers: a consumer built from the environment its construct set, so that a handler
 * file holds its schema and its effects and nothing else. At the first invocation (never at
 * import, so that a test can import the file without the environment) they read what every
 * consumer reads: `CONSUMER_NAME`, `CONSUMER_GENERATION`, `DLQ_URL` (a `DlqSender` with the failure context),
 * `MAX_ATTEMPTS`, `MAX_RECEIVE_COUNT`, `DEDUP_TTL_SECONDS`, `SOURCE_QUEUE_URL` (a
 * `VisibilityBackoff` for an SQS source) and the envelope settings, and share one set of SDK
 * clients (`sharedClients`). Anything else a handler needs (a table's name) it reads through
 * `env.require`, which names a missing variable.
 *
 * `sqlHandler` also reads what `SqlEffectDatabase.connect` sets: the Data API's cluster, secret
 * and database, and the dedup table.
 *
 * What they build is `createConsumer` with the strategy named; a consumer that needs another
 * setting (a decoder, retries, observability) is built with `createConsumer` directly.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DEDUP_TABLE_VARIABLE, SQL_ENV } from '../../../aws/consumer-env';
import type { Context } from 'aws-lambda';
import { sharedClients, type AwsClients } from './clients';
import { consumerEnv, requireEnv, type ConsumerEnv } from '../consumer/config';
import { createConsumer, type BatchEvent, type BatchHandler, type BatchResponse } from '../consumer/consumer';
import { ConfigurationError } from '../core/errors';
import { batchRecords, batchSourceKind } from '../decoding/event-source';
import { DlqSender } from '../failures/dlq';
import { SourceKind } from '../decoding/records';
import type { Routes } from '../decoding/routes';
import { directStrategy, type DirectResult } from '../consumer/direct-strategy';
import { transactionalStrategy, type Effects } from '../stores/dynamodb/transactional-strategy';
import { type Strategy } from '../consumer/strategy';
import { VisibilityBackoff } from '../failures/visibility';
import { DataApiSession } from '../stores/postgres/data-api-session';
import type { SqlEffects } from '../stores/postgres/effects';
import type { SqlSession } from '../stores/postgres/session';
import { sqlStrategy, type SqlIsolation } from '../stores/postgres/sql-strategy';
import { dataApiClient } from './clients';

type Env = Readonly<Record<string, string | undefined>>;


/** What a handler's routes may read when they are built, at the first invocation. */
export interface HandlerEnv {
  /** A variable the construct set (a table's name, a topic's ARN). @throws ConfigurationError naming it when it is not set */
  require(name: string): string;
  /** What every consumer reads: its name, DLQ, attempts, dedup TTL, source queue. */
  readonly settings: ConsumerEnv;
  /** The SDK clients the consumer uses, shared by the execution environment. */
  readonly clients: AwsClients;
}

/** What a one-call handler needs beyond its environment. */
export interface HandlerFromEnvOptions<TResult> {
  /** The consumer's name when `CONSUMER_NAME` is not set (a test); the constructs set it. */
  readonly name: string;
  /**
   * The source the consumer decodes. A batch of another source fails its invocation with a
   * `ConfigurationError` (nothing dead-lettered).
   * @default - the batch's own: the `eventSource` its records carry (`aws:sqs`, `aws:kinesis`, `aws:dynamodb`)
   */
  readonly source?: SourceKind;
  /** The routes, built once, at the first invocation, from the environment. */
  readonly routes: (env: HandlerEnv) => Routes<TResult>;
  /** @default process.env */
  readonly env?: Env;
  /** @default sharedClients() */
  readonly clients?: AwsClients;
}

/**
 * A consumer whose handlers return effects, committed with their dedup records in DynamoDB
 * transactions (`transactionalStrategy`) on the table in `IDEMPOTENCY_TABLE` (the construct's
 * `idempotency` prop sets it).
 *
 * @example
 * ```ts
 * import { increment, route, transactionalHandler } from 'effectively-once/runtime';
 * import { z } from 'zod'; // or any Standard Schema validator
 * const pageView = z.object({ pageId: z.string() });
 * export const handler = transactionalHandler({
 *   name: 'page-view-counter',
 *   routes: (env) => ({ 'page.viewed': route(pageView, (event) => [increment(env.require('COUNTERS_TABLE'), { pk: `page#${event.payload.pageId}` }, 'views')]) }),
 * });
 * ```
 */
export function transactionalHandler(options: HandlerFromEnvOptions<Effects> & { readonly mode?: 'batch' | 'per-record' }): BatchHandler {
  return lazily(options, (env, dynamodb) =>
    transactionalStrategy({ dynamodb, mode: options.mode, dedup: { table: env.require(DEDUP_TABLE_VARIABLE), consumer: env.settings.consumerName, generation: env.settings.generation, ttlSeconds: env.settings.dedupTtlSeconds } }),
  );
}

/**
 * A consumer whose handlers do the work themselves (`directStrategy`): a natural-key upsert, a
 * versioned write, an external effect through `idempotentEffect`. `concurrency` as
 * `directStrategy` takes it.
 */
export function directHandler(options: HandlerFromEnvOptions<DirectResult> & { readonly concurrency?: number }): BatchHandler {
  return lazily(options, () => directStrategy({ concurrency: options.concurrency }));
}

/** What {@link sqlHandler} takes beyond the other one-call handlers' options. */
export interface SqlHandlerOptions extends HandlerFromEnvOptions<SqlEffects> {
  /** The transactions' isolation level. @default 'read committed' */
  readonly isolation?: SqlIsolation;
  /**
   * How the strategy reaches the database.
   * @default - a `DataApiSession` on the cluster, secret and database in `DATA_API_RESOURCE_ARN`,
   *   `DATA_API_SECRET_ARN` and `DATA_API_DATABASE` (`SqlEffectDatabase.connect` sets them), with a
   *   client of one attempt ({@link dataApiClient})
   */
  readonly session?: (env: HandlerEnv) => SqlSession;
}

/**
 * A consumer whose handlers return SQL effects, committed with their dedup rows in one PostgreSQL
 * transaction per run of events (`sqlStrategy`), through the RDS Data API, on the dedup table in
 * `SQL_DEDUP_TABLE`: what a function that `SqlEffectDatabase.connect` wired needs, and nothing
 * else (docs/patterns/sql-dedup.md).
 *
 * @example
 * ```ts
 * import { route, sqlHandler, sqlIncrement } from 'effectively-once/runtime';
 * import { z } from 'zod'; // or any Standard Schema validator
 * const entry = z.object({ account: z.string(), amount: z.number().int() });
 * export const handler = sqlHandler({
 *   name: 'ledger',
 *   routes: () => ({ 'ledger.entry': route(entry, (event) => [sqlIncrement('balances', { account: event.payload.account }, 'amount', event.payload.amount)]) }),
 * });
 * ```
 */
export function sqlHandler(options: SqlHandlerOptions): BatchHandler {
  return lazily(options, (env) =>
    sqlStrategy({
      session: options.session?.(env) ?? dataApiSessionOf(env),
      isolation: options.isolation,
      dedup: { table: env.require(SQL_ENV.dedupTable), consumer: env.settings.consumerName, generation: env.settings.generation, ttlSeconds: env.settings.dedupTtlSeconds },
    }),
  );
}

function dataApiSessionOf(env: HandlerEnv): DataApiSession {
  return new DataApiSession({ client: dataApiClient(), resourceArn: env.require(SQL_ENV.resourceArn), secretArn: env.require(SQL_ENV.secretArn), database: env.require(SQL_ENV.database) });
}

/**
 * The consumer, built at the first invocation from the environment, then reused: the routes and
 * the strategy once, and a consumer per source kind it is handed (one, on AWS: a function's
 * mappings are of its construct's source).
 */
function lazily<TResult>(options: HandlerFromEnvOptions<TResult>, strategyOf: (env: HandlerEnv, dynamodb: DynamoDBClient) => Strategy<TResult>): BatchHandler {
  let parts: ConsumerParts<TResult> | undefined;
  const consumers = new Map<SourceKind, BatchHandler>();
  // Async, so that a setting missing from the environment rejects the invocation rather than throwing at the caller.
  return async (event: BatchEvent, context?: Context): Promise<BatchResponse> => {
    parts ??= partsOf(options, strategyOf);
    const kind = options.source ?? sourceOf(event);
    if (kind === undefined) return { batchItemFailures: [] };
    let consumer = consumers.get(kind);
    if (consumer === undefined) consumers.set(kind, (consumer = consumerOf(parts, kind)));
    return consumer(event, context);
  };
}

/**
 * The source the batch's records name.
 * @returns undefined for an empty batch
 * @throws ConfigurationError for records that name none: the handler's `source` must say
 */
function sourceOf(event: BatchEvent): SourceKind | undefined {
  const records = batchRecords(event);
  const kind = batchSourceKind(records);
  if (kind === undefined && records.length > 0) throw new ConfigurationError("the batch's records carry no eventSource (Lambda sets it on every record): name the handler's source");
  return kind;
}

/** What every source's consumer of one handler shares. */
interface ConsumerParts<TResult> {
  readonly settings: ConsumerEnv;
  readonly clients: AwsClients;
  readonly routes: Routes<TResult>;
  readonly strategy: Strategy<TResult>;
}

function partsOf<TResult>(options: HandlerFromEnvOptions<TResult>, strategyOf: (env: HandlerEnv, dynamodb: DynamoDBClient) => Strategy<TResult>): ConsumerParts<TResult> {
  const source = options.env ?? process.env;
  const clients = options.clients ?? sharedClients();
  const settings = consumerEnv(options.name, source);
  const env: HandlerEnv = { require: (name) => requireEnv(name, source), settings, clients };
  return { settings, clients, routes: options.routes(env), strategy: strategyOf(env, clients.dynamodb) };
}

function consumerOf<TResult>({ settings, clients, routes, strategy }: ConsumerParts<TResult>, kind: SourceKind): BatchHandler {
  return createConsumer({
    name: settings.consumerName,
    generation: settings.generation,
    source: kind,
    routes,
    strategy,
    dlq: settings.dlqUrl ? new DlqSender(clients.sqs, settings.dlqUrl) : undefined,
    maxAttempts: settings.maxAttempts,
    maxReceiveCount: settings.maxReceiveCount,
    visibility: kind === SourceKind.SQS && settings.sourceQueueUrl ? new VisibilityBackoff(clients.sqs, { queueUrl: settings.sourceQueueUrl }) : undefined,
    envelope: settings.envelope,
  });
}
