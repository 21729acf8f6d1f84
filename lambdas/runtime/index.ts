/**
 * `effectively-once/runtime`: what a Lambda handler needs to apply each event exactly once under
 * at-least-once delivery. This file is the runtime's whole public surface; every other module is
 * internal and may change without notice.
 *
 * A handler builds a consumer (`createConsumer`) from routes (`route`: an event type, the schema of
 * its payload, what to do with it) and a strategy: `transactionalStrategy` commits effects
 * (`increment`, updates) with their dedup record in one DynamoDB transaction; `directStrategy` runs
 * handlers that are idempotent by themselves (`putIfNewer`, `idempotentEffect`).
 *
 * @module effectively-once/runtime
 */

// The consumer: one Lambda handler for an SQS, Kinesis or DynamoDB Streams batch.
export { createConsumer } from './consumer';
export { isReplayInvocation, REPLAY_CLIENT_CONTEXT, replayCounts } from './replay-mode';
export type { ReplayCounts } from './replay-mode';
export type { BatchEvent, BatchHandler, BatchResponse, ConsumerOptions } from './consumer';
export { SourceKind } from './records';
export type { SourceRecord } from './records';

// Routes: event types, their payload schemas (any Standard Schema validator), their handlers.
export { dynamoStreamDecoder, envelopeDecoder, route } from './routes';
export type { ConsumedEvent, EventDecoder, HandlerContext, PayloadSchema, Route, Routes, StreamChange } from './routes';
// DynamoDB numbers: a JavaScript number when one holds them exactly, else a NumberValue (its text) on request.
export { NumberValue, StreamNumbers } from './stream-image';
export type { DynamoStreamDecoderOptions } from './stream-image';
export { parseEnvelope } from './envelope';
export type { Envelope } from './envelope';

// Envelopes: events that arrive wrapped by SNS or EventBridge, or as CloudEvents (docs/envelopes.md).
export { EnvelopeFormat } from '../../aws/envelope-formats';
export { decoderFor, envelopeFromEnv } from './envelope-decoders';
export type { EnvelopeOptions } from './envelope-decoders';
export { snsNotificationDecoder } from './sns-notification';
export type { SnsNotification } from './sns-notification';
export { eventBridgeDecoder } from './eventbridge-event';
export type { EventBridgeDecoderOptions, EventBridgeEvent } from './eventbridge-event';
export { cloudEventDecoder } from './cloudevent';
export type { CloudEvent } from './cloudevent';

// Strategies and the effects they apply.
export { DEFAULT_DIRECT_CONCURRENCY, directStrategy, transactionalStrategy } from './strategies';
export type { DirectResult, DirectStrategyOptions, Effects, Outcome, Strategy, StrategyRun, TransactionalStrategyOptions } from './strategies';
export type { DedupSettings } from './dedup-record';
export { increment, onShard } from './effects';
export type { Effect, Increment, IncrementOptions, ItemKey, Update } from './effects';
// Sharded counters: increments spread over shard items, read back as one sum.
export { counterKeys, MAX_SHARDS, SHARD_SEPARATOR, unshardedValue } from './sharding';
export type { Sharding } from './sharding';
export { readCounter } from './counter-read';
export type { CounterRead } from './counter-read';
export { putIfNewer } from './upsert';
export type { VersionedPut } from './upsert';
export { idempotentEffect } from './external';
export { DEFAULT_EFFECT_LOCK_MS } from './effect-lock';
export type { EffectOutcome, ExternalEffectInput, ExternalEffectOptions, IdempotentEffect } from './external';

// Where failures go, how redeliveries spread, how long an invocation may work.
export { DlqSender } from './dlq';
export { DEFAULT_VISIBILITY_BACKOFF, VisibilityBackoff } from './visibility';
export type { VisibilityBackoffOptions } from './visibility';
export { DEFAULT_TIME_BUDGET } from './time-budget';
export type { TimeBudgetOptions } from './time-budget';
export type { RetryOptions } from './backoff';

// The environment the constructs set, and the AWS clients.
export { consumerEnv, positiveIntEnv, requireEnv } from './config';
export { directHandler, transactionalHandler } from './handler-from-env';
export type { HandlerEnv, HandlerFromEnvOptions } from './handler-from-env';
export type { ConsumerEnv } from './config';
export { createClients, SDK_CLIENT_DEFAULTS, sharedClients } from './clients';
export type { AwsClients, SdkClientSettings } from './clients';
export { createObservability } from './observability';
export type { Observability } from './observability';

// Producing events: envelopes whose ids derive from the business key, published with retries.
export { createEnvelope, outgoingMessage, publishToKinesis, publishToSqs } from './producer';
export { publishToSns } from './sns-producer';
export type { EnvelopeInput, OutgoingMessage, PublishResult } from './producer';
export { eventIdFor } from './event-id';

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
  TransientError,
  UndecodableRecordError,
  UnknownEventTypeError,
  UnsupportedSourceError,
} from './errors';
