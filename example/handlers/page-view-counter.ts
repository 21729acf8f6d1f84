/**
 * page-view-counter (SQS, batch commit): counts each `page.viewed` event once per page and once
 * per UTC day, however often it is delivered.
 */
import { z } from 'zod';
import {
  ConfigurationError,
  consumerEnv,
  createConsumer,
  DlqSender,
  increment,
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

export const CONSUMER_NAME = 'page-view-counter';
export const PAGE_VIEWED = 'page.viewed';

const pageId = z.string().min(1).max(512);
/** Schema 1: `{ pageId }`. */
const pageViewV1 = z.object({ schemaVersion: z.literal(1).optional(), pageId });
/** Schema 2, a later producer's: `{ schemaVersion: 2, page: { id } }`. */
const pageViewV2 = z.object({ schemaVersion: z.literal(2), page: z.object({ id: pageId }) });
const pageViewPayload = z.union([pageViewV1, pageViewV2]);
export type PageViewPayload = z.infer<typeof pageViewPayload>;

export interface PageViewCounterConfig {
  readonly countersTable: string;
  readonly idempotencyTable: string;
  readonly consumerName?: string;
  readonly dlqUrl?: string;
  readonly sourceQueueUrl?: string;
  readonly maxAttempts?: number;
  /** Until the fix that understands schema 2 is deployed, such events are permanent failures. @default false */
  readonly acceptSchemaV2?: boolean;
  readonly dedupTtlSeconds?: number;
  /** @default 'batch' */
  readonly mode?: 'batch' | 'per-record';
  readonly clients: AwsClients;
  readonly retry?: RetryOptions;
  readonly visibility?: Omit<VisibilityBackoffOptions, 'queueUrl'>;
}

/** The effects of one page view: `ADD views 1` on `page#<pageId>` and on `day#<UTC date>`. */
export function pageViewEffects(countersTable: string, viewedPageId: string, occurredAt: string): Effect[] {
  const day = new Date(occurredAt).toISOString().slice(0, 10);
  return [increment(countersTable, { pk: `page#${viewedPageId}` }, 'views'), increment(countersTable, { pk: `day#${day}` }, 'views')];
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
  return createConsumer({
    name,
    source: SourceKind.SQS,
    routes: {
      [PAGE_VIEWED]: route(pageViewPayload, (event) => pageViewEffects(config.countersTable, pageIdOf(event.payload, config.acceptSchemaV2 ?? false), event.occurredAt)),
    },
    strategy: transactionalStrategy({
      dynamodb,
      mode: config.mode ?? 'batch',
      dedup: { table: config.idempotencyTable, consumer: name, ttlSeconds: config.dedupTtlSeconds },
      retry: config.retry,
    }),
    dlq: config.dlqUrl ? new DlqSender(sqs, config.dlqUrl, config.retry) : undefined,
    maxAttempts: config.maxAttempts,
    visibility: new VisibilityBackoff(sqs, { ...config.visibility, queueUrl: config.sourceQueueUrl }),
  });
}

/** Reads `COUNTERS_TABLE`, `IDEMPOTENCY_TABLE`, `ACCEPT_SCHEMA_V2` and the common consumer settings. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): PageViewCounterConfig {
  const common = consumerEnv(CONSUMER_NAME, env);
  return {
    ...common,
    countersTable: requireEnv('COUNTERS_TABLE', env),
    idempotencyTable: requireEnv('IDEMPOTENCY_TABLE', env),
    acceptSchemaV2: acceptsSchemaV2(env),
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
