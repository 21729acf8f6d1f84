/**
 * The consumer runtime: everything a handler needs to apply each event exactly once under
 * at-least-once delivery. What this file does not name is internal.
 */
export { DEFAULT_BACKOFF, fullJitterDelay, MAX_LOCK_WAIT_MS, withRetries } from './backoff';
export type { BackoffOptions, RandomSource, RetryOptions, Sleep } from './backoff';
export { classifyError, classifyHttpStatus } from './classify';
export { createClients, sharedClients } from './clients';
export type { AwsClients } from './clients';
export { SDK_CLIENT_DEFAULTS, WRITE_ATTEMPTS_PER_DELIVERY } from './clients';
export type { SdkClientSettings } from './clients';
export { TransactionalCommitter } from './committer';
export type { CommitOutcome, CommitterOptions } from './committer';
export { booleanEnv, consumerEnv, positiveIntEnv, requireEnv } from './config';
export type { ConsumerEnv } from './config';
export { createConsumer } from './consumer';
export type { BatchEvent, BatchHandler, BatchResponse, ConsumerOptions } from './consumer';
export { DEFAULT_DEDUP_TTL_SECONDS, dedupKey } from './dedup-record';
export type { DedupSettings } from './dedup-record';
export { DlqAttribute, DlqSender, ATTRIBUTE_CONTEXT_FORMAT } from './dlq';
export { increment } from './effects';
export type { Effect, Increment, ItemKey, Update } from './effects';
export { ENVELOPE_LIMITS, decodeUtf8, parseEnvelope, validateEventId } from './envelope';
export type { Envelope } from './envelope';
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
export { canonicalJson, eventIdFor, payloadHash } from './event-id';
export { idempotentEffect, RECORD_REPAIR_RETRY } from './external';
export type { ExternalEffectInput, ExternalEffectOptions, IdempotentEffect } from './external';
export { DlqReason, FAILURE_FORMAT, FAILURE_FORMAT_VERSION, describeFailure, isFailureEnvelope } from './failure-context';
export type { FailureEnvelope } from './failure-context';
export { METRICS_NAMESPACE, MetricName, createObservability } from './observability';
export type { Observability } from './observability';
export { createEnvelope, outgoingMessage, publishToKinesis, publishToSqs } from './producer';
export type { EnvelopeInput, OutgoingMessage, PublishResult } from './producer';
export { SourceKind } from './records';
export type { OriginalRecord, SourceRecord } from './records';
export { dynamoStreamDecoder, envelopeDecoder, route } from './routes';
export type { ConsumedEvent, EventDecoder, HandlerContext, Route, Routes, StreamChange } from './routes';
export { directStrategy, transactionalStrategy } from './strategies';
export type { DirectResult, Effects, Outcome, Strategy, StrategyRun, TransactionalStrategyOptions } from './strategies';
export { DEFAULT_TIME_BUDGET, timeBudgetOf, UNLIMITED_TIME } from './time-budget';
export type { TimeBudget, TimeBudgetOptions } from './time-budget';
export { putIfNewer } from './upsert';
export type { VersionedPut } from './upsert';
export { DEFAULT_VISIBILITY_BACKOFF, VisibilityBackoff, queueUrlFromArn } from './visibility';
export type { VisibilityBackoffOptions } from './visibility';
