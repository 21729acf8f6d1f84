/**
 * The AWS limits the project depends on, each with where AWS states it: one place for the numbers,
 * read by the runtime (batch sizes, transaction budgets), the constructs (prop ranges), the DLQ
 * tooling and the emulator's contract rules, so that none of them can drift from the others.
 */

/** SQS (API Reference: SendMessage, SendMessageBatch, ReceiveMessage, ChangeMessageVisibility; Developer Guide: quotas). */
export const SQS_LIMITS = {
  /** Largest message and default `MaximumMessageSize` since 2025 (before: 262,144). */
  maxMessageBytes: 1_048_576,
  /** A batch's messages together may not pass this, whatever the queue's own limit. */
  maxBatchBytes: 1_048_576,
  maxBatchEntries: 10,
  maxBatchEntryIdLength: 80,
  maxAttributes: 10,
  /** A name must be shorter than 256 bytes (AWS's message says so; the guide says "up to 256 characters"). */
  maxAttributeNameBytes: 255,
  /** A data type must be shorter than 256 bytes. */
  maxAttributeTypeBytes: 255,
  maxVisibilityTimeoutSeconds: 43_200,
  minRetentionSeconds: 60,
  maxRetentionSeconds: 1_209_600,
  /** A redrive policy's `maxReceiveCount`. */
  maxReceiveCount: 1_000,
  maxDelaySeconds: 900,
  maxReceiveMessages: 10,
  maxWaitTimeSeconds: 20,
} as const;

/** DynamoDB (Developer Guide: "Quotas in DynamoDB", "Transaction conflict handling"; API Reference: BatchGetItem, BatchWriteItem). */
export const DYNAMODB_LIMITS = {
  maxTransactionActions: 100,
  /** A TransactWriteItems request's size. */
  maxTransactionBytes: 4_000_000,
  maxBatchGetKeys: 100,
  maxBatchWriteRequests: 25,
  /** An item's size: attribute names plus values. */
  maxItemBytes: 409_600,
  /** What one item takes per second, however the table is provisioned; a transactional write costs 2 per KB. */
  maxItemWriteUnitsPerSecond: 1_000,
} as const;

/** Lambda's limits on a function and its event source mappings (Developer Guide: quotas; CreateEventSourceMapping). */
export const LAMBDA_LIMITS = {
  maxTimeoutSeconds: 900,
  /** An SQS mapping's batch size; above 10 it needs a batching window. */
  maxSqsBatchSize: 10_000,
  maxSqsBatchSizeWithoutWindow: 10,
  /** A FIFO queue's mapping takes at most 10 messages per batch, and no batching window. */
  maxSqsFifoBatchSize: 10,
  maxStreamBatchSize: 10_000,
  maxBatchingWindowSeconds: 300,
  maxStreamRetryAttempts: 10_000,
  /**
   * A synchronous invocation's request payload: "6 MB" on the quotas page; Lambda's refusal names
   * the bytes, "Request must be smaller than 6291456 bytes for the InvokeFunction operation" (413,
   * `RequestEntityTooLargeException`). Whether a body of exactly 6,291,456 bytes passes is not
   * documented; the contract layer lets it pass.
   */
  maxSyncPayloadBytes: 6 * 1024 * 1024,
  /** Invoke's `ClientContext`: at most this many characters of base64 (API Reference: Invoke, ClientContext). */
  maxClientContextChars: 3583,
  /** A Kinesis or DynamoDB Streams mapping's batch size when the template sets none. */
  defaultStreamBatchSize: 100,
  /** An SQS mapping's `ScalingConfig.MaximumConcurrency` (API Reference: ScalingConfig). */
  minSqsMaximumConcurrency: 2,
  maxSqsMaximumConcurrency: 1_000,
  /**
   * An SQS mapping's provisioned mode (`ProvisionedPollerConfig`, API Reference; Developer Guide,
   * "Configuring scaling behavior for SQS event source mappings"): `MinimumPollers` 2..200 and
   * `MaximumPollers` from 2. The API Reference now gives SQS up to 10,000 maximum pollers, but
   * CloudFormation's schema and aws-cdk-lib's `EventSourceMapping` refuse more than 2,000: that is
   * what a stack can deploy. Exclusive with `ScalingConfig.MaximumConcurrency`.
   */
  minSqsMinimumPollers: 2,
  maxSqsMinimumPollers: 200,
  minSqsMaximumPollers: 2,
  maxSqsMaximumPollers: 2_000,
  /** What one provisioned SQS poller runs at most: 10 concurrent invocations (and about 1 MB/s, 10 polls a second). */
  sqsInvocationsPerPoller: 10,
  /**
   * A synchronous invocation's response: Lambda's `Function.ResponseSizeTooLarge` error says
   * "Response payload size exceeded maximum allowed payload size (6291556 bytes)", 100 bytes over 6 MiB.
   */
  maxSyncInvokeResponseBytes: 6_291_556,
} as const;

/**
 * An SQS source's visibility timeout must cover this many function timeouts, plus the batching
 * window, so that Lambda can retry a throttled invocation before the batch reappears (Lambda
 * Developer Guide, "Creating and configuring an Amazon SQS event source mapping": at least six times
 * the function timeout). The constructs enforce it; local mode holds its batches by it.
 */
export const SQS_VISIBILITY_TIMEOUT_FACTOR = 6;

/** Kinesis (API Reference: PutRecord, PutRecords). */
export const KINESIS_LIMITS = {
  /** The model's constraint on `Data` that kinesalite copies (1 MiB); a stream's own limit may be set higher since 2025. */
  maxDataBytes: 1_048_576,
  /** A stream's default maximum record size, data plus partition key (`MaxRecordSizeInKiB` 1024). */
  defaultMaxRecordKiB: 1_024,
  minPartitionKeyLength: 1,
  maxPartitionKeyLength: 256,
  minRecords: 1,
  /** PutRecords takes at most this many records; the producer sends in batches of it. */
  maxRecords: 500,
  /**
   * A PutRecords request's data plus partition keys, as "Records size exceeds 5 MB limit" names it.
   * The API Reference of 2025 (SDK 3.1143) says 10 MiB; kinesalite refuses bodies over 7 MiB of
   * base64 (about 5.25 MiB of data) with a bare 413 anyway. Override with `KinesisFacts`.
   */
  maxPutRecordsBytes: 5 * 1_048_576,
} as const;

/** SNS (API Reference: Publish; Developer Guide: "Amazon SNS message attributes"). */
export const SNS_LIMITS = {
  /** A topic's default `MaximumMessageSize`; a topic may raise it to 1 MiB. Body plus attributes. */
  defaultMaxMessageBytes: 262_144,
  /** "Length of message attribute name must be less than 256 bytes." */
  maxAttributeNameBytes: 255,
  /** "less than 100 characters long". */
  maxSubjectLength: 99,
} as const;

/**
 * The RDS Data API ("Amazon RDS Data API limitations" and "Troubleshooting Amazon RDS Data API",
 * Aurora User Guide; API Reference: BeginTransaction, BatchExecuteStatement; "Controlling Data API
 * timeout behavior").
 */
export const DATA_API_LIMITS = {
  /** A response: "If the call returns more than 1 MiB of response data, the call is terminated." */
  maxResponseBytes: 1_048_576,
  /** One row of a result set: "64 KB per row" ("Packet for query is too large"). */
  maxRowBytes: 65_536,
  /** An HTTP request, headers and JSON included (stated for BatchExecuteStatement). */
  maxRequestBytes: 4_194_304,
  /** A call is cancelled, and answered with a timeout, when its statement runs longer. */
  statementTimeoutSeconds: 45,
  /** A transaction "times out if no calls use its transaction ID in three minutes", and is rolled back. */
  transactionIdleSeconds: 180,
  /** A transaction is rolled back after 24 hours whatever its calls. */
  maxTransactionSeconds: 86_400,
} as const;
