/**
 * page-view-counter (SQS, batch commit): counts each `page.viewed` event once per page and once
 * per UTC day, however often it is delivered.
 */
import { en } from 'zod/locales';
import * as z from 'zod/mini';
import {
  ConfigurationError,
  consumerEnv,
  createConsumer,
  DlqSender,
  increment,
  MAX_SHARDS,
  positiveIntEnv,
  requireEnv,
  route,
  SchemaViolationError,
  sharedClients,
  SourceKind,
  transactionalStrategy,
  VisibilityBackoff,
  type AwsClients,
  type BatchHandler,
  type Effect,
  type RetryOptions,
  type VisibilityBackoffOptions,
} from '../../lambdas/runtime';

// zod/mini rather than zod: it tree-shakes (about 20 KiB in the bundle instead of 440), and its
// schemas are Standard Schemas like zod's. It carries no issue messages of its own; these are the
// English ones that the DLQ failure context reports.
z.config(en());

export const CONSUMER_NAME = 'page-view-counter';
export const PAGE_VIEWED = 'page.viewed';

const pageId = z.string().check(z.minLength(1), z.maxLength(512));
/** Schema 1: `{ pageId }`. */
const pageViewV1 = z.object({ schemaVersion: z.optional(z.literal(1)), pageId });
/** Schema 2, a later producer's: `{ schemaVersion: 2, page: { id } }`. */
const pageViewV2 = z.object({ schemaVersion: z.literal(2), page: z.object({ id: pageId }) });
const pageViewPayload = z.union([pageViewV1, pageViewV2]);
export type PageViewPayload = z.infer<typeof pageViewPayload>;

export interface PageViewCounterConfig {
  readonly countersTable: string;
  readonly idempotencyTable: string;
  readonly consumerName?: string;
  /** The consumer's generation (`CONSUMER_GENERATION`): its dedup records' namespace. @default 1 */
  readonly generation?: number;
  readonly dlqUrl?: string;
  readonly sourceQueueUrl?: string;
  readonly maxAttempts?: number;
  readonly maxReceiveCount?: number;
  /** Until the fix that understands schema 2 is deployed, such events are permanent failures. @default false */
  readonly acceptSchemaV2?: boolean;
  readonly dedupTtlSeconds?: number;
  /**
   * Shard items per counter (1 to 1000), so that concurrent invocations add to different items
   * (docs/patterns/sharded-counters.md). Only ever raise it: a reader sums the shards it knows of.
   * @default 1
   */
  readonly counterShards?: number;
  /** @default 'batch' */
  readonly mode?: 'batch' | 'per-record';
  readonly clients: AwsClients;
  readonly retry?: RetryOptions;
  readonly visibility?: Omit<VisibilityBackoffOptions, 'queueUrl'>;
}

/**
 * The effects of one page view: `ADD views 1` on `page#<pageId>` and on `day#<UTC date>`, each
 * counter spread over `shards` shard items (read them back with `readCounter`).
 */
export function pageViewEffects(countersTable: string, viewedPageId: string, occurredAt: string, shards = 1): Effect[] {
  const day = new Date(occurredAt).toISOString().slice(0, 10);
  return [increment(countersTable, { pk: `page#${viewedPageId}` }, 'views', 1, { shards }), increment(countersTable, { pk: `day#${day}` }, 'views', 1, { shards })];
}

function pageIdOf(payload: PageViewPayload, acceptSchemaV2: boolean): string {
  if (!('page' in payload)) return payload.pageId;
  if (!acceptSchemaV2) {
    throw new SchemaViolationError(PAGE_VIEWED, ['schemaVersion: 2 is not accepted yet (deploy the consumer with ACCEPT_SCHEMA_V2=true)']);
  }
  return payload.page.id;
}

/** Builds the handler from explicit settings (tests, local mode). */
export function createPageViewCounter(config: PageViewCounterConfig): BatchHandler {
  const name = config.consumerName ?? CONSUMER_NAME;
  const { sqs, dynamodb } = config.clients;
  const shards = checkedShards(config.counterShards ?? 1, 'counterShards');
  return createConsumer({
    name,
    generation: config.generation,
    source: SourceKind.SQS,
    routes: {
      [PAGE_VIEWED]: route(pageViewPayload, (event) => pageViewEffects(config.countersTable, pageIdOf(event.payload, config.acceptSchemaV2 ?? false), event.occurredAt, shards)),
    },
    strategy: transactionalStrategy({
      dynamodb,
      mode: config.mode ?? 'batch',
      dedup: { table: config.idempotencyTable, consumer: name, generation: config.generation, ttlSeconds: config.dedupTtlSeconds },
      retry: config.retry,
    }),
    dlq: config.dlqUrl ? new DlqSender(sqs, config.dlqUrl, config.retry) : undefined,
    maxAttempts: config.maxAttempts,
    maxReceiveCount: config.maxReceiveCount,
    visibility: new VisibilityBackoff(sqs, { ...config.visibility, queueUrl: config.sourceQueueUrl }),
  });
}

/** A shard count the runtime accepts, checked before any event arrives rather than failing each one. */
function checkedShards(shards: number, setting: string): number {
  if (!Number.isInteger(shards) || shards < 1 || shards > MAX_SHARDS) throw new ConfigurationError(`${setting} must be a whole number from 1 to ${MAX_SHARDS} (given ${shards})`);
  return shards;
}

/** Reads `COUNTERS_TABLE`, `IDEMPOTENCY_TABLE`, `ACCEPT_SCHEMA_V2`, `COUNTER_SHARDS` and the common consumer settings. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): PageViewCounterConfig {
  const common = consumerEnv(CONSUMER_NAME, env);
  return {
    ...common,
    countersTable: requireEnv('COUNTERS_TABLE', env),
    idempotencyTable: requireEnv('IDEMPOTENCY_TABLE', env),
    acceptSchemaV2: acceptsSchemaV2(env),
    counterShards: checkedShards(positiveIntEnv('COUNTER_SHARDS', env) ?? 1, 'environment variable COUNTER_SHARDS'),
    clients: sharedClients(),
  };
}

/** `ACCEPT_SCHEMA_V2`: `true` once the fix that understands schema 2 is deployed; unset or `false` before. */
function acceptsSchemaV2(env: NodeJS.ProcessEnv): boolean {
  const value = env.ACCEPT_SCHEMA_V2 ?? '';
  if (value !== '' && value !== 'true' && value !== 'false') {
    throw new ConfigurationError(`environment variable ACCEPT_SCHEMA_V2 must be "true" or "false" (given "${value}")`);
  }
  return value === 'true';
}

let fromEnv: BatchHandler | undefined;

/** The Lambda entry point; configured from the environment on first use. */
export const handler: BatchHandler = (event, context) => {
  fromEnv ??= createPageViewCounter(configFromEnv());
  return fromEnv(event, context);
};
