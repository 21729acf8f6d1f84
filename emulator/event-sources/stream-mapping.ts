/**
 * A Kinesis or DynamoDB Streams event source mapping, emulated: one poller per shard reads
 * batches in order from its checkpoint, with one batch in flight per shard, and applies
 * Lambda's rules: partial batch responses restart from the lowest failed sequence number,
 * function errors bisect the batch or retry it, records past their retries or their maximum age
 * go to the on-failure destination (metadata only) and the shard moves on.
 *
 * What the emulation does not cover:
 * - Scaling and throughput: no parallelization factor (one batch in flight per shard), no
 *   enhanced fan-out, no read throttling or 2 MB/s shard limits, no concurrency limits.
 * - No batching window (`maximumBatchingWindowSeconds`) and no 6 MB payload limit: a batch is
 *   whatever one poll reads, up to `batchSize`.
 * - No tumbling windows (`tumblingWindowInSeconds`, state between invocations).
 * - Filter criteria are ignored: every record is delivered.
 * - Checkpoints live in memory: a restarted mapping starts again from `startingPosition`.
 *   AT_TIMESTAMP is not supported.
 * - Resharding is approximated: a child shard starts (from TRIM_HORIZON) once its parent is
 *   read to its end; shards present at the first listing all start at `startingPosition`.
 * - Retries of a whole batch are invoked again from memory, after `retryDelayMs` instead of
 *   Lambda's own backoff; a partial response re-reads from the stream, as Lambda does. An
 *   unusable partial response (unknown identifier, bad shape) is handled as a function error,
 *   so it is bisected too.
 * - Timing is compressed when the caller passes shorter poll intervals or a tiny
 *   `maximumRecordAgeSeconds` (Lambda allows 60..604800 or -1); DynamoDB Local rounds creation
 *   times down to the minute, so record ages on its streams are overstated by up to 59 s.
 * - The `duplicate` fault invokes the batch twice and acts on the second response only; the
 *   `crashAfterInvoke` fault neither counts a retry nor bisects: the batch is simply read again.
 * - An on-failure destination can be an SQS queue (the range only) or an archive that keeps the
 *   batch whole, as Lambda's S3 destination does (`onFailureArchive`); not SNS or Kafka.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { NO_DELIVERY_FAULTS } from '../types';
import { Activity } from './activity';
import { onFailureRecord } from '../../aws/lambda/on-failure-record';
import { onFailureObject, onFailureObjectKey } from '../../aws/lambda/on-failure-object';
import { pause, retryUntilDone, warnOnConsole, type MappingLog } from './polling';
import { ShardPoller, type GiveUp, type ShardPollerContext, type ShardSettings, type StreamCounts } from './shard-poller';
import { readerFor, STREAM_MAPPING_DEFAULTS, validateStreamMappingConfig, type OnFailureArchive, type StreamMappingConfig, type StreamMappingStats } from './stream-mapping-config';
import type { ShardDescription, StreamPosition, StreamReader } from '../../aws/streams/stream-reader';

export type { OnFailureArchive, StreamMappingClients, StreamMappingConfig, StreamMappingStats } from './stream-mapping-config';

interface RunningShard {
  readonly poller: ShardPoller;
  readonly done: Promise<void>;
}

/**
 * Polls every shard of a Kinesis stream or DynamoDB table stream and invokes a function with
 * batches of its records, as Lambda does.
 *
 * @example
 * const mapping = new StreamMapping({ kind: 'kinesis', streamArn, region, functionArn, batchSize: 100,
 *   bisectBatchOnFunctionError: true, maximumRetryAttempts: 3, maximumRecordAgeSeconds: 3600,
 *   reportBatchItemFailures: true, startingPosition: 'TRIM_HORIZON', onFailureQueueUrl, invoke,
 *   clients: { kinesis, sqs } });
 * mapping.start();
 */
export class StreamMapping {
  private readonly config: StreamMappingConfig;
  private readonly reader: StreamReader;
  private readonly log: MappingLog;
  private readonly activity = new Activity();
  private readonly counts: StreamCounts = zeroCounts();
  private readonly shards = new Map<string, RunningShard>();
  private controller = new AbortController();
  private discovery: Promise<void> | undefined;

  constructor(config: StreamMappingConfig) {
    validateStreamMappingConfig(config);
    this.config = config;
    this.reader = readerFor(config);
    this.log = config.log ?? warnOnConsole;
  }

  /** Starts polling: lists the shards now and again, and polls each. Does nothing if running. */
  start(): void {
    if (this.discovery !== undefined) return;
    this.controller = new AbortController();
    this.discovery = this.discoverShards().catch((error: unknown) => this.log('shard discovery stopped on an unexpected error', error));
  }

  /** Stops polling and resolves once every batch in flight has finished (and been checkpointed). */
  async stop(): Promise<void> {
    this.controller.abort();
    await this.discovery;
    await Promise.all([...this.shards.values()].map((shard) => shard.done));
    this.discovery = undefined;
    this.shards.clear();
  }

  /** True when no shard has a batch in flight or records waiting to be processed. */
  isIdle(): boolean {
    return this.activity.idle && ![...this.shards.values()].some((shard) => shard.poller.hasPending);
  }

  /** When records were last read or a batch last finished (epoch ms). */
  get lastActivityAt(): number {
    return this.activity.lastActivityAt;
  }

  /** A snapshot of the counters. */
  get stats(): StreamMappingStats {
    return { ...this.counts };
  }

  /** The shards being polled (or polled to their end). */
  get shardIds(): string[] {
    return [...this.shards.keys()];
  }

  private async discoverShards(): Promise<void> {
    const { signal } = this.controller;
    const refreshMs = this.config.shardRefreshMs ?? STREAM_MAPPING_DEFAULTS.shardRefreshMs;
    let initial = true;
    while (!signal.aborted) {
      try {
        this.startNewShards(await this.reader.listShards(signal), initial);
        initial = false;
      } catch (error) {
        if (!signal.aborted) this.log(`listing the shards of ${this.config.streamArn} failed`, error);
      }
      await pause(refreshMs, signal);
    }
  }

  /** Starts a poller for each new shard whose parent (if still listed) has been read to its end. */
  private startNewShards(listed: readonly ShardDescription[], initial: boolean): void {
    const listedIds = new Set(listed.map((shard) => shard.shardId));
    for (const shard of listed) {
      if (this.shards.has(shard.shardId)) continue;
      const parent = shard.parentShardId;
      const parentDone = parent === undefined || !listedIds.has(parent) || this.shards.get(parent)?.poller.isFinished === true;
      if (!parentDone) continue;
      const start: StreamPosition = { type: initial && parent === undefined ? this.config.startingPosition : 'TRIM_HORIZON' };
      const poller = new ShardPoller(shard.shardId, start, this.pollerContext());
      const done = poller.run().catch((error: unknown) => this.log(`the poller of shard ${shard.shardId} stopped on an unexpected error`, error));
      this.shards.set(shard.shardId, { poller, done });
    }
  }

  private pollerContext(): ShardPollerContext {
    return {
      reader: this.reader,
      settings: this.settings(),
      invoke: this.config.invoke,
      faults: this.config.faults ?? NO_DELIVERY_FAULTS,
      counts: this.counts,
      activity: this.activity,
      giveUp: (range) => this.sendOnFailure(range),
      signal: this.controller.signal,
      log: this.log,
    };
  }

  private settings(): ShardSettings {
    const { config } = this;
    return {
      batchSize: config.batchSize,
      bisectBatchOnFunctionError: config.bisectBatchOnFunctionError,
      maximumRetryAttempts: config.maximumRetryAttempts,
      maximumRecordAgeSeconds: config.maximumRecordAgeSeconds,
      reportBatchItemFailures: config.reportBatchItemFailures,
      pollIntervalMs: config.pollIntervalMs ?? STREAM_MAPPING_DEFAULTS.pollIntervalMs,
      retryDelayMs: config.retryDelayMs ?? STREAM_MAPPING_DEFAULTS.retryDelayMs,
    };
  }

  /** Sends one on-failure message (or object) for the range, retrying until it is sent or the mapping stops. */
  private async sendOnFailure(range: GiveUp): Promise<void> {
    const { onFailureQueueUrl: queueUrl, onFailureArchive: archive, clients, kind, functionArn, streamArn } = this.config;
    if (archive !== undefined) return this.archiveOnFailure(archive, range);
    if (queueUrl === undefined || clients.sqs === undefined) return;
    const sqs = clients.sqs;
    const body = JSON.stringify(onFailureRecord({ kind, functionArn, streamArn, ...range }));
    const send = (): Promise<unknown> => sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
    await retryUntilDone(`sending an on-failure message to ${queueUrl}`, send, this.controller.signal, this.log);
    this.counts.onFailureMessages += 1;
  }

  /** Writes the batch whole: the on-failure record with the invocation event as its `payload`. */
  private async archiveOnFailure(archive: OnFailureArchive, range: GiveUp): Promise<void> {
    const { kind, functionArn, streamArn } = this.config;
    const now = new Date();
    const event = { Records: range.records.map((record) => record.lambdaRecord) };
    const body = JSON.stringify(onFailureObject({ kind, functionArn, streamArn, now, ...range, event }));
    const key = onFailureObjectKey({ mappingUuid: archive.mappingUuid, shardId: range.shardId, at: now });
    await retryUntilDone(`writing an on-failure object ${key}`, () => archive.write(key, body), this.controller.signal, this.log);
    this.counts.onFailureMessages += 1;
  }
}

function zeroCounts(): StreamCounts {
  return { batches: 0, deliveries: 0, duplicateDeliveries: 0, crashes: 0, retries: 0, bisections: 0, onFailureMessages: 0, recordsSkipped: 0, invocationErrors: 0, invalidResponses: 0, failedInvokeEvents: 0 };
}
