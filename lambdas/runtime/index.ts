/**
 * `effectively-once/runtime`: what a Lambda handler needs to apply each event exactly once under
 * at-least-once delivery. This file is the runtime's whole public surface; every other module is
 * internal and may change without notice.
 *
 * A handler builds a consumer (`createConsumer`) from routes (`route`: an event type, the schema of
 * its payload, what to do with it) and a strategy: `transactionalStrategy` commits effects
 * (`increment`, updates) with their dedup record in one DynamoDB transaction; `sqlStrategy` commits
 * SQL effects (`sql`, `sqlInsert`, `sqlIncrement`, `upsertIfNewer`) with their dedup row in one
 * PostgreSQL transaction; `directStrategy` runs handlers that are idempotent by themselves (`putIfNewer`,
 * `idempotentEffect`).
 *
 * @module effectively-once/runtime
 */

// The consumer: one Lambda handler for an SQS, Kinesis or DynamoDB Streams batch.
export { createConsumer } from './consumer/consumer';
export { isReplayInvocation, REPLAY_CLIENT_CONTEXT, replayCounts } from './consumer/replay-mode';
export type { ReplayCounts } from './consumer/replay-mode';
export type { BatchEvent, BatchHandler, BatchResponse, ConsumerOptions } from './consumer/consumer';
export { SourceKind } from './decoding/records';
export type { SourceRecord } from './decoding/records';

// Routes: event types, their payload schemas (any Standard Schema validator), their handlers.
export { dynamoStreamDecoder, envelopeDecoder, route } from './decoding/routes';
export type { ConsumedEvent, EventDecoder, HandlerContext, PayloadSchema, Route, Routes, StreamChange } from './decoding/routes';
// DynamoDB numbers: a JavaScript number when one holds them exactly, else a NumberValue (its text) on request.
export { NumberValue, StreamNumbers } from './decoding/stream-image';
export type { DynamoStreamDecoderOptions } from './decoding/stream-image';
export { parseEnvelope } from './events/envelope';
export type { Envelope } from './events/envelope';

// Envelopes: events that arrive wrapped by SNS or EventBridge, or as CloudEvents (docs/envelopes.md).
export { EnvelopeFormat } from '../../aws/envelope-formats';
export { decoderFor, envelopeFromEnv } from './decoding/envelope-decoders';
export type { EnvelopeOptions } from './decoding/envelope-decoders';
export { snsNotificationDecoder } from './decoding/sns-notification';
export type { SnsNotification } from './decoding/sns-notification';
export { eventBridgeDecoder } from './decoding/eventbridge-event';
export type { EventBridgeDecoderOptions, EventBridgeEvent } from './decoding/eventbridge-event';
export { cloudEventDecoder } from './decoding/cloudevent';
export type { CloudEvent } from './decoding/cloudevent';

// Strategies and the effects they apply.
export type { Outcome, Strategy, StrategyRun } from './consumer/strategy';
export { DEFAULT_DIRECT_CONCURRENCY, directStrategy } from './consumer/direct-strategy';
export type { DirectResult, DirectStrategyOptions } from './consumer/direct-strategy';
export { transactionalStrategy } from './stores/dynamodb/transactional-strategy';
export type { Effects, TransactionalStrategyOptions } from './stores/dynamodb/transactional-strategy';
export type { DedupSettings } from './stores/dynamodb/dedup-record';
export { increment, onShard } from './stores/dynamodb/effects';
export type { Effect, Increment, IncrementOptions, ItemKey, Update } from './stores/dynamodb/effects';
// Sharded counters: increments spread over shard items, read back as one sum.
export { counterKeys, MAX_SHARDS, SHARD_SEPARATOR, unshardedValue } from './stores/dynamodb/sharding';
export type { Sharding } from './stores/dynamodb/sharding';
export { readCounter } from './stores/dynamodb/counter-read';
export type { CounterRead } from './stores/dynamodb/counter-read';
export { putIfNewer } from './stores/dynamodb/upsert';
export type { VersionedPut } from './stores/dynamodb/upsert';
export { idempotentEffect } from './stores/dynamodb/external';
export { DEFAULT_EFFECT_LOCK_MS } from './stores/dynamodb/effect-lock';
export type { EffectOutcome, ExternalEffectInput, ExternalEffectOptions, IdempotentEffect } from './stores/dynamodb/external';

// SQL: the dedup row in the same PostgreSQL transaction as the effect (docs/patterns/sql-dedup.md).
export { DEFAULT_SQL_DEDUP_TTL_SECONDS, dedupTableDdl, sqlStrategy } from './stores/postgres/sql-strategy';
export type { SqlDedupSettings, SqlIsolation, SqlStrategyOptions } from './stores/postgres/sql-strategy';
export { IDENTIFIER_PATTERN, joinSql, sql, SqlIdentifier, sqlIdentifier } from './stores/postgres/sql';
export type { SqlField, SqlParameter, SqlStatement, SqlTypeHint, SqlValue } from './stores/postgres/sql';
export { sqlIncrement, sqlInsert, upsertIfNewer } from './stores/postgres/effects';
export type { SqlEffect, SqlEffects, SqlIncrement, SqlRowWrite } from './stores/postgres/effects';
export { LOCK_WAIT } from './stores/postgres/batch-commit';
export { sqlStateOf } from './stores/postgres/session';
export type { SqlResult, SqlSession, SqlTransaction } from './stores/postgres/session';
export {
  classifySqlFailure,
  DataApiRefusedError,
  DatabaseResumingError,
  isPermanentSqlState,
  PERMANENT_SQLSTATE_CLASSES,
  RESUMING_BACKOFF,
  SCHEMA_NOT_READY_SQLSTATES,
  SqlSchemaMissingError,
  SqlStatementError,
  SqlTransactionLostError,
  SqlTransientError,
} from './stores/postgres/errors';
export { DataApiSession } from './stores/postgres/data-api-session';
export type { DataApiSessionOptions } from './stores/postgres/data-api-session';
export { DATA_API_ERRORS, dataApiFailure, DataApiStatementError, sqlStateInMessage } from './stores/postgres/data-api-errors';
export type { DataApiErrorKind, DataApiErrorRule } from './stores/postgres/data-api-errors';

// Where failures go, how redeliveries spread, how long an invocation may work.
export { DlqSender } from './failures/dlq';
export { DEFAULT_VISIBILITY_BACKOFF, VisibilityBackoff } from './failures/visibility';
export type { VisibilityBackoffOptions } from './failures/visibility';
export { DEFAULT_TIME_BUDGET } from './core/time-budget';
export type { TimeBudgetOptions } from './core/time-budget';
export type { RetryOptions, SlowRetryHint } from './core/backoff';

// The environment the constructs set, and the AWS clients.
export { consumerEnv, positiveIntEnv, requireEnv } from './consumer/config';
export { directHandler, sqlHandler, transactionalHandler } from './one-call/handler-from-env';
export type { HandlerEnv, HandlerFromEnvOptions, SqlHandlerOptions } from './one-call/handler-from-env';
export type { ConsumerEnv } from './consumer/config';
export { createClients, DATA_API_REQUEST_TIMEOUT_MS, dataApiClient, SDK_CLIENT_DEFAULTS, sharedClients } from './one-call/clients';
export type { AwsClients, SdkClientSettings } from './one-call/clients';
export { createObservability } from './core/observability';
export type { Observability } from './core/observability';

// Producing events: envelopes whose ids derive from the business key, published with retries.
export { createEnvelope, outgoingMessage, publishToKinesis, publishToSqs } from './producing/producer';
export { publishToSns } from './producing/sns-producer';
export type { EnvelopeInput, OutgoingMessage, PublishResult } from './producing/producer';
export { eventIdFor } from './events/event-id';

// Errors: what a handler may throw, and what the runtime reports.
export {
  ConfigurationError,
  DlqSendError,
  EffectInProgressError,
  EffectivelyOnceError,
  EnvelopeProblem,
  FailureKind,
  InvalidEffectError,
  InvalidEnvelopeError,
  NotAttemptedError,
  OutOfTimeError,
  PermanentError,
  PublishError,
  PublishRejectedError,
  RetriesExhaustedError,
  SchemaViolationError,
  StateRefusalError,
  TransientError,
  UndecodableRecordError,
  UnknownEventTypeError,
  UnsupportedSourceError,
} from './core/errors';
