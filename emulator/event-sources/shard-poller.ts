/**
 * One shard of a stream mapping: reads batches in order from its checkpoint, one batch in flight,
 * and applies Lambda's stream rules to each outcome (partial response, bisect, bounded retries,
 * max record age, on-failure destination).
 */
import type { DeliveryFaults, InvokeResult, Invoker } from '../types';
import type { Activity } from './activity';
import { invocationOutcome, invokeSafely } from './invocation-outcome';
import type { OnFailureCondition } from '../../aws/lambda/on-failure-record';
import { engineBackoffMs, pause, type MappingLog } from './polling';
import { compareSequenceNumbers, itemIdentifier, type StreamPosition, type StreamReader, type StreamRecord } from '../../aws/streams/stream-reader';

/** The mapping settings a shard poller applies. */
export interface ShardSettings {
  readonly batchSize: number;
  readonly bisectBatchOnFunctionError: boolean;
  /** -1: retry forever. */
  readonly maximumRetryAttempts: number;
  /** -1: no limit. */
  readonly maximumRecordAgeSeconds: number;
  readonly reportBatchItemFailures: boolean;
  readonly pollIntervalMs: number;
  readonly retryDelayMs: number;
}

/** Counters that all shards of a mapping add to. */
export interface StreamCounts {
  batches: number;
  deliveries: number;
  duplicateDeliveries: number;
  crashes: number;
  retries: number;
  bisections: number;
  onFailureMessages: number;
  recordsSkipped: number;
  invocationErrors: number;
  invalidResponses: number;
  failedInvokeEvents: number;
}

/** A range of records that the mapping gives up on. */
export interface GiveUp {
  readonly shardId: string;
  readonly condition: OnFailureCondition;
  readonly records: readonly StreamRecord[];
  readonly approximateInvokeCount: number;
}

/** What a shard poller shares with its mapping. */
export interface ShardPollerContext {
  readonly reader: StreamReader;
  readonly settings: ShardSettings;
  readonly invoke: Invoker;
  readonly faults: DeliveryFaults;
  readonly counts: StreamCounts;
  readonly activity: Activity;
  /** Sends the on-failure message (if a destination is configured); resolves once sent. */
  readonly giveUp: (range: GiveUp) => Promise<void>;
  readonly signal: AbortSignal;
  readonly log: MappingLog;
}

/** Polls one shard until it is closed and read to its end, or the mapping stops. */
export class ShardPoller {
  private checkpoint: StreamPosition;
  /** An iterator that continues from `position`, kept from the last read. */
  private cursor: { readonly iterator: string; readonly position: StreamPosition } | undefined;
  /** Records read but not yet done, in order (bisected halves, retried batches). */
  private pending: StreamRecord[][] = [];
  /** Failed invocations whose batch started at this record. */
  private failures: { readonly sequenceNumber: string; readonly count: number } | undefined;
  private finished = false;

  constructor(readonly shardId: string, start: StreamPosition, private readonly context: ShardPollerContext) {
    this.checkpoint = start;
  }

  /** True once the shard is closed and every record of it is done. */
  get isFinished(): boolean {
    return this.finished;
  }

  /** True while records read from the shard wait to be processed. */
  get hasPending(): boolean {
    return this.pending.length > 0;
  }

  /** The loop: a batch at a time; a poll interval's rest after an empty read; backoff after engine errors. */
  async run(): Promise<void> {
    const { signal, settings, log } = this.context;
    for (let errors = 0; !signal.aborted && !this.finished; ) {
      try {
        const busy = await this.step();
        errors = 0;
        if (!busy) await pause(settings.pollIntervalMs, signal);
      } catch (error) {
        if (signal.aborted) return;
        errors += 1;
        log(`shard ${this.shardId} of ${this.context.reader.streamArn} failed; backing off and re-reading from its checkpoint`, error);
        this.rewind();
        await pause(engineBackoffMs(errors), signal);
      }
    }
  }

  /** Processes one batch; false when there was nothing new to read. */
  private async step(): Promise<boolean> {
    const batch = this.pending.shift() ?? (await this.readBatch());
    if (batch === undefined) return false;
    await this.context.activity.run(() => this.process(batch));
    return true;
  }

  private async readBatch(): Promise<StreamRecord[] | undefined> {
    const { reader, settings, signal } = this.context;
    let iterator: string | undefined = await this.iteratorAtCheckpoint();
    const records: StreamRecord[] = [];
    while (iterator !== undefined && records.length < settings.batchSize) {
      const limit = Math.min(reader.maxRecordsPerRead, settings.batchSize - records.length);
      const read = await reader.read(this.shardId, iterator, limit, signal);
      records.push(...read.records);
      iterator = read.nextIterator;
      if (read.records.length < limit) break;
    }
    return this.afterRead(records, iterator);
  }

  private afterRead(records: StreamRecord[], next: string | undefined): StreamRecord[] | undefined {
    const first = records[0];
    const last = records[records.length - 1];
    if (first === undefined || last === undefined) {
      this.finished = next === undefined;
      this.cursor = next === undefined ? undefined : { iterator: next, position: this.checkpoint };
      return undefined;
    }
    // Pin a TRIM_HORIZON or LATEST start to the first record, so that a re-read finds it again.
    if (this.checkpoint.type === 'TRIM_HORIZON' || this.checkpoint.type === 'LATEST') this.checkpoint = at(first);
    this.cursor = next === undefined ? undefined : { iterator: next, position: after(last) };
    this.context.activity.touch();
    return records;
  }

  private async iteratorAtCheckpoint(): Promise<string> {
    if (this.cursor !== undefined && samePosition(this.cursor.position, this.checkpoint)) return this.cursor.iterator;
    return this.context.reader.iterator(this.shardId, this.checkpoint, this.context.signal);
  }

  private async process(batch: StreamRecord[]): Promise<void> {
    const expired = this.expiredCount(batch);
    if (expired > 0) return this.expire(batch, expired);
    const { faults, reader, settings, counts } = this.context;
    const decision = faults.decide({ source: reader.kind, size: batch.length });
    const result = await this.invokeBatch(batch, decision.duplicate === true);
    if (decision.crashAfterInvoke) {
      counts.crashes += 1;
      counts.failedInvokeEvents += batch.length;
      this.rewind();
      return;
    }
    const outcome = invocationOutcome(result, batch.map(itemIdentifier), settings.reportBatchItemFailures);
    if (outcome.kind === 'succeeded') return this.commit(batch);
    counts.failedInvokeEvents += outcome.kind === 'partial' ? outcome.failed.size : batch.length;
    if (outcome.kind === 'partial') return this.retryFrom(batch, batch.findIndex((record) => outcome.failed.has(itemIdentifier(record))));
    if (outcome.reason === 'invalid-response') counts.invalidResponses += 1;
    return this.onBatchError(batch);
  }

  /** How many records at the start of the batch are older than the maximum record age. */
  private expiredCount(batch: readonly StreamRecord[]): number {
    const maxAgeSeconds = this.context.settings.maximumRecordAgeSeconds;
    if (maxAgeSeconds === -1) return 0;
    const oldest = Date.now() - maxAgeSeconds * 1000;
    const fresh = batch.findIndex((record) => record.arrivalMs >= oldest);
    return fresh === -1 ? batch.length : fresh;
  }

  private async expire(batch: StreamRecord[], expired: number): Promise<void> {
    const rest = batch.slice(expired);
    await this.giveUp(batch.slice(0, expired), 'RecordAgeExceeded');
    if (rest.length > 0) this.pending.unshift(rest);
  }

  private async invokeBatch(batch: readonly StreamRecord[], duplicate: boolean): Promise<InvokeResult> {
    this.context.counts.batches += 1;
    const first = await this.invokeOnce(batch);
    if (!duplicate) return first;
    this.context.counts.duplicateDeliveries += batch.length;
    return this.invokeOnce(batch);
  }

  private async invokeOnce(batch: readonly StreamRecord[]): Promise<InvokeResult> {
    const { counts, invoke } = this.context;
    counts.deliveries += batch.length;
    // A copy per delivery: a function that mutates its event must not change the next delivery.
    const result = await invokeSafely(invoke, { Records: structuredClone(batch.map((record) => record.lambdaRecord)) });
    if (!result.ok) counts.invocationErrors += 1;
    return result;
  }

  /** A partial response: the records before `index` are done; re-read from the failed one. */
  private async retryFrom(batch: StreamRecord[], index: number): Promise<void> {
    if (index > 0) this.commit(batch.slice(0, index));
    const rest = batch.slice(index);
    if (this.failedAgain(rest)) return this.giveUp(rest, 'RetryAttemptsExhausted');
    this.context.counts.retries += 1;
    this.rewind();
    await pause(this.context.settings.retryDelayMs, this.context.signal);
  }

  /** The whole batch failed: bisect it (no retry used), or retry it until the retries run out. */
  private async onBatchError(batch: StreamRecord[]): Promise<void> {
    if (this.context.settings.bisectBatchOnFunctionError && batch.length > 1) {
      this.context.counts.bisections += 1;
      const middle = Math.ceil(batch.length / 2);
      this.pending.unshift(batch.slice(0, middle), batch.slice(middle));
      return;
    }
    if (this.failedAgain(batch)) return this.giveUp(batch, 'RetryAttemptsExhausted');
    this.context.counts.retries += 1;
    this.pending.unshift(batch);
    await pause(this.context.settings.retryDelayMs, this.context.signal);
  }

  /** Counts a failed invocation of the batch starting at `batch[0]`; true if its retries are exhausted. */
  private failedAgain(batch: readonly StreamRecord[]): boolean {
    const start = batch[0]?.sequenceNumber ?? '';
    const count = this.failures?.sequenceNumber === start ? this.failures.count + 1 : 1;
    this.failures = { sequenceNumber: start, count };
    const maxRetries = this.context.settings.maximumRetryAttempts;
    return maxRetries !== -1 && count > maxRetries;
  }

  private async giveUp(records: readonly StreamRecord[], condition: OnFailureCondition): Promise<void> {
    const start = records[0]?.sequenceNumber;
    const approximateInvokeCount = this.failures?.sequenceNumber === start ? this.failures.count : 0;
    await this.context.giveUp({ shardId: this.shardId, condition, records, approximateInvokeCount });
    this.context.counts.recordsSkipped += records.length;
    this.commit(records);
  }

  /** Moves the checkpoint past the last of `records`. */
  private commit(records: readonly StreamRecord[]): void {
    const last = records[records.length - 1];
    if (last === undefined) return;
    this.checkpoint = after(last);
    if (this.failures !== undefined && compareSequenceNumbers(this.failures.sequenceNumber, last.sequenceNumber) <= 0) {
      this.failures = undefined;
    }
  }

  /** Forgets what was read past the checkpoint, so that the next batch is read from it again. */
  private rewind(): void {
    this.pending = [];
    this.cursor = undefined;
  }
}

function at(record: StreamRecord): StreamPosition {
  return { type: 'AT_SEQUENCE_NUMBER', sequenceNumber: record.sequenceNumber };
}

function after(record: StreamRecord): StreamPosition {
  return { type: 'AFTER_SEQUENCE_NUMBER', sequenceNumber: record.sequenceNumber };
}

function samePosition(a: StreamPosition, b: StreamPosition): boolean {
  if (a.type !== b.type) return false;
  return !('sequenceNumber' in a) || !('sequenceNumber' in b) || a.sequenceNumber === b.sequenceNumber;
}
