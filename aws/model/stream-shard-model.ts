/**
 * A reference model of one Kinesis or DynamoDB Streams shard read by a Lambda event source mapping:
 * which records each invocation gets, and where the mapping goes on from after the function's
 * answer. Small and pure, for property tests of the runtime. Sources:
 *
 * - Lambda Developer Guide, "Configuring partial batch response with Kinesis Data Streams and
 *   Lambda" (and the same page for DynamoDB): without failures Lambda checkpoints past the batch;
 *   "if the batchItemFailures array contains multiple items, Lambda uses the record with the lowest
 *   sequence number as the checkpoint. Lambda then retries all records starting from that
 *   checkpoint". An empty or null `itemIdentifier`, or a wrong key name, fails the whole batch.
 *   "If your invocation fails and BisectBatchOnFunctionError is turned on, the batch is bisected
 *   regardless of your ReportBatchItemFailures setting. When a partial batch success response is
 *   received and both BisectBatchOnFunctionError and ReportBatchItemFailures are turned on, the
 *   batch is bisected at the returned sequence number and Lambda retries only the remaining records."
 * - Lambda Developer Guide, "Using Lambda with Kinesis Data Streams" (error handling): a failed
 *   batch is retried until it succeeds, `MaximumRetryAttempts` retries are used up or its records
 *   are older than `MaximumRecordAgeInSeconds`; then the batch's metadata (shard, first and last
 *   sequence number, size) goes to the on-failure destination, and the mapping moves past it.
 *   The destination gets no payload.
 *
 * Where the pages are silent, the model's reading: a retry of the records from a checkpoint is one
 * attempt of that checkpoint, counted until the checkpoint moves; halves of a bisected batch carry
 * the count of the batch they came from.
 */

export interface ShardRecord {
  readonly sequenceNumber: string;
  readonly partitionKey: string;
  readonly data: string;
  /** Model time (ms) when the record entered the stream. */
  readonly arrivedAt: number;
}

export interface ShardSettings {
  readonly batchSize: number;
  readonly bisectBatchOnFunctionError: boolean;
  /** -1: retry until the record expires. */
  readonly maximumRetryAttempts: number;
  /** -1: no limit. */
  readonly maximumRecordAgeMs: number;
}

/** What the on-failure destination receives: metadata, no records. */
export interface OnFailurePointer {
  readonly condition: 'RetryAttemptsExhausted' | 'RecordAgeExceeded';
  readonly startSequenceNumber: string;
  readonly endSequenceNumber: string;
  readonly batchSize: number;
}

/** The function's answer: its partial batch response, or a failure (an error, a timeout, a crash). */
export type StreamAnswer = { readonly batchItemFailures: readonly { readonly itemIdentifier: string }[] } | 'failed';

/** A run of records still to do, by position, and the failed attempts it has had. */
interface PendingRange {
  readonly start: number;
  readonly end: number;
  readonly attempts: number;
}

export class StreamShardModel {
  /** Position of the first record not yet done. */
  private checkpoint = 0;
  /** Ranges to try before reading on from the checkpoint (a retry, bisected halves), first first. */
  private pending: PendingRange[] = [];
  public readonly onFailure: OnFailurePointer[] = [];

  public constructor(
    private readonly records: readonly ShardRecord[],
    private readonly settings: ShardSettings,
  ) {}

  /** The next batch at `now`; records past their age go to the destination first. Undefined once the shard is done. */
  public nextBatch(now: number): ShardRecord[] | undefined {
    const range = this.nextRange();
    if (range === undefined) return undefined;
    const fresh = this.firstFresh(range, now);
    if (fresh > range.start) {
      this.giveUp({ ...range, end: fresh }, 'RecordAgeExceeded');
      if (fresh < range.end) this.pending.unshift({ ...range, start: fresh });
      return this.nextBatch(now);
    }
    this.pending.unshift(range);
    return this.records.slice(range.start, range.end);
  }

  /**
   * Applies the answer for the batch `nextBatch` last returned. Returns whether the answer was a
   * valid partial batch response (false for a failure, whose batch is retried as a whole).
   */
  public settle(answer: StreamAnswer): boolean {
    const range = this.pending.shift();
    if (range === undefined) throw new Error('settle without a batch');
    const reported = answer === 'failed' ? 'invalid' : this.lowestReported(range, answer);
    if (reported === undefined) {
      this.checkpoint = Math.max(this.checkpoint, range.end);
      return true;
    }
    if (reported === 'invalid') {
      this.retry({ ...range, attempts: range.attempts + 1 }, this.settings.bisectBatchOnFunctionError);
      return false;
    }
    this.checkpoint = reported;
    // Bisect on: only the rest of this batch is retried; off: the records from the checkpoint, read anew.
    const end = this.settings.bisectBatchOnFunctionError ? range.end : Math.min(this.records.length, reported + this.settings.batchSize);
    this.retry({ start: reported, end, attempts: (reported > range.start ? 0 : range.attempts) + 1 }, false);
    return true;
  }

  public get drained(): boolean {
    return this.pending.length === 0 && this.checkpoint >= this.records.length;
  }

  private nextRange(): PendingRange | undefined {
    const pending = this.pending.shift();
    if (pending !== undefined) return pending;
    if (this.checkpoint >= this.records.length) return undefined;
    return { start: this.checkpoint, end: Math.min(this.records.length, this.checkpoint + this.settings.batchSize), attempts: 0 };
  }

  private firstFresh(range: PendingRange, now: number): number {
    const maxAge = this.settings.maximumRecordAgeMs;
    let position = range.start;
    while (maxAge !== -1 && position < range.end && now - (this.records[position] as ShardRecord).arrivedAt > maxAge) position += 1;
    return position;
  }

  /** The position of the lowest reported record, undefined for none; `invalid` for an identifier not in the batch. */
  private lowestReported(range: PendingRange, answer: Exclude<StreamAnswer, 'failed'>): number | 'invalid' | undefined {
    if (!Array.isArray(answer.batchItemFailures)) return 'invalid';
    let lowest: number | undefined;
    for (const failure of answer.batchItemFailures) {
      const position = this.records.findIndex((record, index) => index >= range.start && index < range.end && record.sequenceNumber === failure?.itemIdentifier);
      if (position === -1) return 'invalid';
      lowest = lowest === undefined ? position : Math.min(lowest, position);
    }
    return lowest;
  }

  /** A failed attempt of the range: retried (bisected when asked), or given up once its retries are used. */
  private retry(failed: PendingRange, bisect: boolean): void {
    const limit = this.settings.maximumRetryAttempts;
    if (limit !== -1 && failed.attempts > limit) return this.giveUp(failed, 'RetryAttemptsExhausted');
    const size = failed.end - failed.start;
    if (!bisect || size < 2) return void this.pending.unshift(failed);
    const middle = failed.start + Math.ceil(size / 2);
    this.pending.unshift({ ...failed, end: middle }, { ...failed, start: middle });
  }

  private giveUp(range: PendingRange, condition: OnFailurePointer['condition']): void {
    const first = this.records[range.start] as ShardRecord;
    const last = this.records[range.end - 1] as ShardRecord;
    this.onFailure.push({ condition, startSequenceNumber: first.sequenceNumber, endSequenceNumber: last.sequenceNumber, batchSize: range.end - range.start });
    this.checkpoint = Math.max(this.checkpoint, range.end);
  }
}
