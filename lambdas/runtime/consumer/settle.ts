import { classifyError } from '../core/classify';
import type { DlqSender } from '../failures/dlq';
import { EffectInProgressError, FailureKind, messageOf, NotAttemptedError, OutOfTimeError } from '../core/errors';
import { DlqReason } from '../../../aws/dlq-format';
import { describeFailure } from '../failures/failure-context';
import { eventKeys, MetricName, type Observability } from '../core/observability';
import { SourceKind, type SourceRecord } from '../decoding/records';
import type { Outcome } from './strategy';
import type { TimeBudget } from '../core/time-budget';
import type { VisibilityBackoff } from '../failures/visibility';

/** What the settle step needs to know about one record besides its outcome. */
export interface RecordResult {
  readonly record: SourceRecord;
  readonly outcome: Outcome;
  readonly eventId?: string;
  readonly eventType?: string;
}

export interface SettleOptions {
  readonly consumer: string;
  readonly dlq?: DlqSender;
  /** SQS: the consumer's last attempt; a transient failure at this receive count goes to the DLQ. */
  readonly maxAttempts?: number;
  /**
   * SQS: the queue's `maxReceiveCount`. On that receive, whatever would be reported goes to the DLQ
   * with its context instead, even a record whose handler never ran: the redrive policy would move
   * it on the next receive with no context at all.
   */
  readonly maxReceiveCount?: number;
  readonly visibility?: VisibilityBackoff;
  readonly observability: Observability;
  readonly now: () => Date;
  /** The invocation's time; settling runs in the margin it keeps back. @default - no deadline */
  readonly budget?: TimeBudget;
  /**
   * A replay (./replay-mode.ts): nothing goes to the DLQ. A permanent failure is handled (it was
   * dead-lettered when the record first came); any other is reported. @default false
   */
  readonly replay?: boolean;
  /** Which events applied already (the strategy's dedup records), asked before a transient failure is dead-lettered. */
  readonly applied?: (eventIds: readonly string[]) => Promise<ReadonlySet<string>>;
}

/**
 * Where a failed record ends: `handled` (in the DLQ with its context, or found applied already by
 * another delivery, then its outcome is a duplicate) or `reported` (in `batchItemFailures`, for the
 * source to deliver again).
 */
export interface Settlement {
  readonly fate: 'handled' | 'reported';
  readonly outcome: Outcome;
  /** Why it went to the DLQ, when it did. */
  readonly reason?: DlqReason;
}

/**
 * Decides the fate of failed records. Permanent failures, and transient ones on their last SQS
 * attempt, go to the DLQ with their context and count as handled; a DLQ send that fails leaves the
 * record reported. Other transient failures are reported, and SQS messages get a jittered
 * visibility timeout ({@link Settler.finish}).
 *
 * A record whose handler never ran ({@link NotAttemptedError}, or an {@link OutOfTimeError} before
 * its work started) has not failed: it is reported, never dead-lettered, whatever its receive count,
 * except on the queue's final receive (`maxReceiveCount`), where reporting it would leave it to
 * the redrive policy's move with no context.
 */
export class Settler {
  public constructor(private readonly options: SettleOptions) {}

  /** The fates of these failed records, each decided in turn; one lookup finds those applied already. */
  public async settle(results: readonly RecordResult[]): Promise<Settlement[]> {
    const decisions = results.map((result) => ({ result, error: errorOf(result.outcome), reason: this.reasonFor(result) }));
    const applied = await this.appliedAmong(decisions.filter(({ reason }) => reason !== undefined && reason !== DlqReason.PERMANENT).map(({ result }) => result.eventId));
    const settlements: Settlement[] = [];
    for (const { result, error, reason } of decisions) settlements.push(await this.settleOne(result, error, reason, applied));
    return settlements;
  }

  /** After the batch: pushes out the next visibility of the reported SQS messages (not before an idempotency lock that failed them expires). */
  public async finish(reported: readonly SourceRecord[], results: readonly RecordResult[]): Promise<void> {
    const sqsRecords = reported.filter((record) => record.kind === SourceKind.SQS);
    if (!this.options.visibility || sqsRecords.length === 0) return;
    const { failed } = await this.options.visibility.apply(sqsRecords, lockExpiries(results));
    if (failed.length > 0) this.options.observability.logger.warn('could not change the visibility of some messages', { messageIds: failed });
  }

  private async settleOne(result: RecordResult, error: unknown, reason: DlqReason | undefined, applied: ReadonlySet<string>): Promise<Settlement> {
    const { observability } = this.options;
    const keys = eventKeys(result.eventId, result.record.kind, result.record.itemIdentifier);
    if (!(error instanceof NotAttemptedError)) observability.count(classifyError(error) === FailureKind.PERMANENT ? MetricName.PERMANENT_FAILURES : MetricName.TRANSIENT_FAILURES);
    if (reason === undefined) {
      if (!neverRan(error)) observability.logger.warn('transient failure: record reported for redelivery', { ...keys, error: messageOf(error) });
      return { fate: 'reported', outcome: result.outcome };
    }
    if (this.options.replay) return this.settleInReplay(result, error, reason);
    if (reason !== DlqReason.PERMANENT && result.eventId !== undefined && applied.has(result.eventId)) {
      observability.logger.info('last attempt of an event applied already by another delivery: not dead-lettered', { ...keys, error: messageOf(error) });
      return { fate: 'handled', outcome: { status: 'duplicate' } };
    }
    const sent = await this.sendToDlq(result, error, reason);
    return sent ? { fate: 'handled', outcome: result.outcome, reason } : { fate: 'reported', outcome: result.outcome };
  }

  private settleInReplay(result: RecordResult, error: unknown, reason: DlqReason): Settlement {
    const keys = eventKeys(result.eventId, result.record.kind, result.record.itemIdentifier);
    if (reason !== DlqReason.PERMANENT) return { fate: 'reported', outcome: result.outcome };
    this.options.observability.logger.warn('replay: permanent failure not sent to the DLQ again', { ...keys, error: messageOf(error) });
    return { fate: 'handled', outcome: result.outcome, reason };
  }

  private reasonFor(result: RecordResult): DlqReason | undefined {
    const error = errorOf(result.outcome);
    if (classifyError(error) === FailureKind.PERMANENT) return DlqReason.PERMANENT;
    const { record } = result;
    if (record.kind !== SourceKind.SQS) return undefined;
    const finalReceive = this.options.maxReceiveCount !== undefined && record.receiveCount >= this.options.maxReceiveCount;
    if (neverRan(error)) return finalReceive ? DlqReason.NOT_ATTEMPTED : undefined;
    const lastAttempt = finalReceive || (this.options.maxAttempts !== undefined && record.receiveCount >= this.options.maxAttempts);
    if (!lastAttempt) return undefined;
    return error instanceof OutOfTimeError ? DlqReason.TIMED_OUT : DlqReason.LAST_ATTEMPT;
  }

  /** The events among these that applied already; none when the strategy cannot tell, or the lookup fails (the DLQ then holds a copy, labelled by `eo dlq inspect`). */
  private async appliedAmong(eventIds: readonly (string | undefined)[]): Promise<ReadonlySet<string>> {
    const known = eventIds.filter((eventId): eventId is string => eventId !== undefined);
    if (known.length === 0 || this.options.applied === undefined) return new Set();
    try {
      return await this.options.applied(known);
    } catch (error) {
      this.options.observability.logger.warn('could not look up whether failing events applied already', { error: messageOf(error) });
      return new Set();
    }
  }

  private async sendToDlq(result: RecordResult, error: unknown, reason: DlqReason): Promise<boolean> {
    const { observability, dlq } = this.options;
    const keys = eventKeys(result.eventId, result.record.kind, result.record.itemIdentifier);
    if (!dlq) {
      observability.logger.error('no DLQ configured: failed record reported for redelivery', { ...keys, reason, error: messageOf(error) });
      return false;
    }
    const failure = describeFailure({ consumer: this.options.consumer, reason, error, record: result.record, eventId: result.eventId, eventType: result.eventType, now: this.options.now() });
    try {
      await dlq.send(failure);
    } catch (sendError) {
      observability.logger.error('DLQ send failed: record reported for redelivery', { ...keys, error: messageOf(sendError) });
      return false;
    }
    observability.count(MetricName.SENT_TO_DLQ);
    observability.logger.warn('record sent to the DLQ', { ...keys, reason, errorName: failure.error.name, error: failure.error.message });
    return true;
  }
}

/** A record whose handler never ran: blocked behind its order group, or not started for lack of time. */
function neverRan(error: unknown): boolean {
  return error instanceof NotAttemptedError || (error instanceof OutOfTimeError && error.cause === undefined);
}

function errorOf(outcome: Outcome): unknown {
  return outcome.status === 'failed' ? outcome.error : undefined;
}

/** When the idempotency locks that failed some records expire, by item identifier: no redelivery should come sooner. */
function lockExpiries(results: readonly RecordResult[]): Map<string, Date> {
  const expiries = new Map<string, Date>();
  for (const { record, outcome } of results) {
    if (outcome.status === 'failed' && outcome.error instanceof EffectInProgressError && outcome.error.retryAt) expiries.set(record.itemIdentifier, outcome.error.retryAt);
  }
  return expiries;
}
