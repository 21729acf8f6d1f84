/**
 * The settings of a stream mapping, checked as Lambda's API checks them, and the reader they
 * call for.
 */
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryFaults, Invoker } from '../types';
import { checkRange } from './config-checks';
import { dynamoDbStreamReader } from '../../aws/streams/dynamodb-stream-reader';
import { MappingConfigError } from './errors';
import { kinesisReader } from '../../aws/streams/kinesis-reader';
import type { MappingLog } from './polling';
import type { StreamKind, StreamReader } from '../../aws/streams/stream-reader';

/** Defaults of {@link StreamMappingConfig}. */
export const STREAM_MAPPING_DEFAULTS = {
  /** Lambda polls a shard that had nothing new about once a second. */
  pollIntervalMs: 1_000,
  /** Pause before a failed batch is invoked again. */
  retryDelayMs: 100,
  /** How often the shard list is read again, to pick up new shards. */
  shardRefreshMs: 1_000,
} as const;

/** The clients a stream mapping needs: the stream's service, and SQS for an on-failure destination. */
export interface StreamMappingClients {
  /** Required for `kind: 'kinesis'`. */
  readonly kinesis?: KinesisClient;
  /** Required for `kind: 'dynamodb-stream'`. */
  readonly dynamodbStreams?: DynamoDBStreamsClient;
  /** Required with `onFailureQueueUrl`. */
  readonly sqs?: SQSClient;
}

/**
 * An S3 on-failure destination: each batch given up on is written whole, as one object in Lambda's
 * format (`aws/lambda/on-failure-object.ts`). How the object is stored (and announced) is the
 * caller's: the mapping only composes it.
 */
export interface OnFailureArchive {
  /** The mapping's UUID, which Lambda puts in each object's key. */
  readonly mappingUuid: string;
  /** Stores one object; resolves once it is stored. */
  write(key: string, body: string): Promise<void>;
}

/** Settings of a {@link StreamMapping}: the template's mapping, plus local wiring. */
export interface StreamMappingConfig {
  readonly kind: StreamKind;
  /** Kinesis only. @default - the name in `streamArn` */
  readonly streamName?: string;
  readonly streamArn: string;
  readonly region: string;
  /** Named in on-failure messages. */
  readonly functionArn: string;
  /** Records per invocation: 1..10000. */
  readonly batchSize: number;
  readonly bisectBatchOnFunctionError: boolean;
  /** Retries of a failed batch: -1 (forever) or 0..10000. */
  readonly maximumRetryAttempts: number;
  /** Records older than this are given up on without invoking: -1 (no limit) or 0..604800. */
  readonly maximumRecordAgeSeconds: number;
  readonly reportBatchItemFailures: boolean;
  readonly startingPosition: 'TRIM_HORIZON' | 'LATEST';
  /** Where on-failure messages go. @default - records given up on are only skipped */
  readonly onFailureQueueUrl?: string;
  /** Where batches given up on are kept whole, instead of a queue. @default - none */
  readonly onFailureArchive?: OnFailureArchive;
  /** Rest after a poll that found nothing new. @default 1000 (`STREAM_MAPPING_DEFAULTS.pollIntervalMs`) */
  readonly pollIntervalMs?: number;
  /** @default 100 (`STREAM_MAPPING_DEFAULTS.retryDelayMs`) */
  readonly retryDelayMs?: number;
  /** @default 1000 (`STREAM_MAPPING_DEFAULTS.shardRefreshMs`) */
  readonly shardRefreshMs?: number;
  readonly invoke: Invoker;
  /** @default - no faults */
  readonly faults?: DeliveryFaults;
  readonly clients: StreamMappingClients;
  /** Where transient engine errors are reported. @default - a warning on stderr */
  readonly log?: MappingLog;
}

/** What a {@link StreamMapping} has done so far, over all shards. */
export interface StreamMappingStats {
  /** Batches invoked (a retry or a bisected half is a batch; a duplicated batch counts once). */
  readonly batches: number;
  /** Records handed to the function, duplicates and retries included. */
  readonly deliveries: number;
  /** Records handed to the function a second time by the `duplicate` fault. */
  readonly duplicateDeliveries: number;
  /** Batches whose response the `crashAfterInvoke` fault dropped. */
  readonly crashes: number;
  /** Failed batches (or the rest of a partially failed one) scheduled to be invoked again. */
  readonly retries: number;
  readonly bisections: number;
  /** On-failure messages sent, or objects written to an archive. */
  readonly onFailureMessages: number;
  /** Records given up on (retries exhausted or too old), with or without a destination. */
  readonly recordsSkipped: number;
  /** Invocations that errored, timed out or crashed. */
  readonly invocationErrors: number;
  /** Partial batch responses that failed their whole batch (unknown identifier, bad shape). */
  readonly invalidResponses: number;
  /**
   * Records whose invocation failed (an error, a crash, an unusable response) or that a partial
   * batch response named: what Lambda counts as `FailedInvokeEventCount`.
   */
  readonly failedInvokeEvents: number;
}

/** The reader for the configured stream; throws if its client is missing. */
export function readerFor(config: StreamMappingConfig): StreamReader {
  const { clients, streamArn, region } = config;
  if (config.kind === 'kinesis') {
    if (clients.kinesis === undefined) throw new MappingConfigError('clients', clients, 'clients.kinesis is required for a Kinesis mapping');
    return kinesisReader({ kinesis: clients.kinesis, streamArn, streamName: config.streamName, region });
  }
  if (clients.dynamodbStreams === undefined) {
    throw new MappingConfigError('clients', clients, 'clients.dynamodbStreams is required for a DynamoDB Streams mapping');
  }
  return dynamoDbStreamReader({ streams: clients.dynamodbStreams, streamArn, region });
}

/**
 * Throws a {@link MappingConfigError} for a setting Lambda would refuse. One exception: a
 * maximum record age below Lambda's 60 s minimum is allowed, so that tests can compress time.
 */
export function validateStreamMappingConfig(config: StreamMappingConfig): void {
  checkRange('batchSize', config.batchSize, { min: 1, max: 10_000 });
  checkRange('maximumRetryAttempts', config.maximumRetryAttempts, { min: 0, max: 10_000, unlimited: true });
  checkRange('maximumRecordAgeSeconds', config.maximumRecordAgeSeconds, { min: 0, max: 604_800, unlimited: true });
  for (const setting of ['pollIntervalMs', 'retryDelayMs', 'shardRefreshMs'] as const) {
    const value = config[setting];
    if (value !== undefined) checkRange(setting, value, { min: 0, max: 3_600_000 });
  }
  if (config.onFailureQueueUrl !== undefined && config.clients.sqs === undefined) {
    throw new MappingConfigError('clients', config.clients, 'clients.sqs is required with an onFailureQueueUrl');
  }
  if (config.onFailureQueueUrl !== undefined && config.onFailureArchive !== undefined) {
    throw new MappingConfigError('onFailureArchive', config.onFailureQueueUrl, 'a mapping has one on-failure destination: an onFailureQueueUrl or an onFailureArchive, not both');
  }
}
