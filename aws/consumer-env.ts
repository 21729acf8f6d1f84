/**
 * The environment contract between the constructs and the runtime: the variables the constructs
 * set on every consumer function, and which the runtime reads. Written once, here, so that the two
 * sides cannot disagree.
 */

/**
 * The environment variables the consumer constructs set on their functions. Props may not set
 * them: the runtime reads them, and each one must agree with the infrastructure it describes.
 */
export const CONSUMER_ENV = {
  /** The consumer's name: the prefix of its dedup keys. */
  consumerName: 'CONSUMER_NAME',
  /**
   * The consumer's generation, from 2 (unset: 1): the dedup keys of a rebuilt generation are
   * `<name>@g<n>#<eventId>`, apart from the live generation's.
   */
  generation: 'CONSUMER_GENERATION',
  /** The URL of the consumer's dead-letter queue. */
  dlqUrl: 'DLQ_URL',
  /** The TTL, in seconds, of the dedup records the consumer writes. */
  dedupTtlSeconds: 'DEDUP_TTL_SECONDS',
  /** Powertools' service name (logs, metrics). */
  serviceName: 'POWERTOOLS_SERVICE_NAME',
  /** Powertools' metrics namespace. */
  metricsNamespace: 'POWERTOOLS_METRICS_NAMESPACE',
  /** Node.js flags: source maps on, so stack excerpts in DLQ messages point at the source. */
  nodeOptions: 'NODE_OPTIONS',
  /** SQS only: the receive count at which the consumer sends a failing message to its DLQ. */
  maxAttempts: 'MAX_ATTEMPTS',
  /** SQS only: the source queue's `maxReceiveCount`, after which its redrive policy moves a message with no context. */
  maxReceiveCount: 'MAX_RECEIVE_COUNT',
  /** SQS only: the source queue's URL, for `ChangeMessageVisibility`. */
  sourceQueueUrl: 'SOURCE_QUEUE_URL',
  /** The shape events arrive in (`EnvelopeFormat`, aws/envelope-formats.ts); unset: our own envelope. */
  envelope: 'EVENT_ENVELOPE',
  /** EventBridge only: the dotted path of the dedup key in the event, when `detail` is not our envelope. */
  eventIdPath: 'EVENT_ID_PATH',
} as const;

/**
 * The variable that names a consumer's dedup table, by the convention the README, the quick start,
 * the scaffold and the example app follow (set through the construct's `tables`, so not one of
 * {@link CONSUMER_ENV}). `eo dlq inspect` reads a DLQ message's dedup record `<consumer>#<eventId>`
 * in the table it names to tell whether the event was applied already.
 */
export const DEDUP_TABLE_VARIABLE = 'IDEMPOTENCY_TABLE';

/**
 * The variables that `SqlEffectDatabase.connect` sets on a consumer
 * whose effects live in PostgreSQL, reached through the RDS Data API (docs/patterns/sql-dedup.md).
 */
export const SQL_ENV = {
  /** The Aurora cluster's ARN, the Data API's `resourceArn`. */
  resourceArn: 'DATA_API_RESOURCE_ARN',
  /** The ARN of the secret the Data API signs in with, its `secretArn`. */
  secretArn: 'DATA_API_SECRET_ARN',
  /** The database of the effects and the dedup rows. */
  database: 'DATA_API_DATABASE',
  /** The dedup table, `name` or `schema.name`. */
  dedupTable: 'SQL_DEDUP_TABLE',
  /**
   * The tables the consumer's handlers write their effects to, comma-separated (`connect`'s
   * `effectTables`); unset when none are declared. The runtime never reads it: the tools do, so that
   * `eo replay --generation` refuses a generation that writes to the live generation's tables.
   */
  effectTables: 'SQL_EFFECT_TABLES',
} as const;
