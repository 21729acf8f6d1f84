import { classifyError } from './classify';
import type { DlqSender } from './dlq';
import { EffectInProgressError, FailureKind, messageOf, OutOfTimeError } from './errors';
import { DlqReason } from '../../aws/dlq-format';
import { describeFailure } from './failure-context';
import { eventKeys, MetricName, type Observability } from './observability';
import { SourceKind, type SourceRecord } from './records';
import { orderGroupOf } from './order-groups';
import type { Outcome } from './strategies';
import type { TimeBudget } from './time-budget';
import type { VisibilityBackoff } from './visibility';

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
  readonly visibility?: VisibilityBackoff;
  readonly observability: Observability;
  readonly now: () => Date;
  /** The invocation's time; settling runs in the margin it keeps back. @default - no deadline */
  readonly budget?: TimeBudget;
}

/**
 * Decides the fate of every failed record and returns the identifiers to report in
 * `batchItemFailures`. Permanent failures, and transient ones on their last SQS attempt, go to the
 * DLQ with their context and count as handled; a DLQ send that fails leaves the record failed.
 * Other transient failures are reported, and SQS messages get a jittered visibility timeout. On
 * ordered sources, everything after the first reported record of its order group is reported too
 * and sent nowhere: Lambda resumes a shard from the lowest reported sequence number, and a FIFO
 * queue redelivers the group's reported messages in their order (order-groups.ts).
 */
export async function settle(results: readonly RecordResult[], options: SettleOptions): Promise<string[]> {
  const reported: SourceRecord[] = [];
  const blocked = new Set<string>();
  for (const result of results) {
    const group = orderGroupOf(result.record);
    if (group !== undefined && blocked.has(group)) reported.push(result.record);
    else if (result.outcome.status === 'failed' && !(await handleFailure(result, result.outcome.error, options))) {
      reported.push(result.record);
      if (group !== undefined) blocked.add(group);
    }
  }
  await pushVisibility(reported, lockExpiries(results), options);
  return reported.map((record) => record.itemIdentifier);
}

/** When the idempotency locks that failed some records expire, by item identifier: no redelivery should come sooner. */
function lockExpiries(results: readonly RecordResult[]): Map<string, Date> {
  const expiries = new Map<string, Date>();
  for (const { record, outcome } of results) {
    if (outcome.status === 'failed' && outcome.error instanceof EffectInProgressError && outcome.error.retryAt) expiries.set(record.itemIdentifier, outcome.error.retryAt);
  }
  return expiries;
}

/** Returns true when the failure is handled (in the DLQ), false when the record must be reported. */
async function handleFailure(result: RecordResult, error: unknown, options: SettleOptions): Promise<boolean> {
  const kind = classifyError(error);
  const { observability } = options;
  const keys = eventKeys(result.eventId, result.record.kind, result.record.itemIdentifier);
  observability.count(kind === FailureKind.PERMANENT ? MetricName.PERMANENT_FAILURES : MetricName.TRANSIENT_FAILURES);
  const reason = dlqReason(result.record, error, kind, options.maxAttempts);
  if (!reason) {
    observability.logger.warn('transient failure: record reported for redelivery', { ...keys, error: messageOf(error) });
    return false;
  }
  return sendToDlq(result, error, reason, options);
}

function dlqReason(record: SourceRecord, error: unknown, kind: FailureKind, maxAttempts: number | undefined): DlqReason | undefined {
  if (kind === FailureKind.PERMANENT) return DlqReason.PERMANENT;
  const lastAttempt = record.kind === SourceKind.SQS && maxAttempts !== undefined && record.receiveCount >= maxAttempts;
  if (!lastAttempt) return undefined;
  return error instanceof OutOfTimeError ? DlqReason.TIMED_OUT : DlqReason.LAST_ATTEMPT;
}

async function sendToDlq(result: RecordResult, error: unknown, reason: DlqReason, options: SettleOptions): Promise<boolean> {
  const { observability } = options;
  const keys = eventKeys(result.eventId, result.record.kind, result.record.itemIdentifier);
  if (!options.dlq) {
    observability.logger.error('no DLQ configured: failed record reported for redelivery', { ...keys, reason, error: messageOf(error) });
    return false;
  }
  const failure = describeFailure({ consumer: options.consumer, reason, error, record: result.record, eventId: result.eventId, eventType: result.eventType, now: options.now() });
  try {
    await options.dlq.send(failure);
  } catch (sendError) {
    observability.logger.error('DLQ send failed: record reported for redelivery', { ...keys, error: messageOf(sendError) });
    return false;
  }
  observability.count(MetricName.SENT_TO_DLQ);
  observability.logger.warn('record sent to the DLQ', { ...keys, reason, errorName: failure.error.name, error: failure.error.message });
  return true;
}

async function pushVisibility(reported: readonly SourceRecord[], notBefore: ReadonlyMap<string, Date>, options: SettleOptions): Promise<void> {
  const sqsRecords = reported.filter((record) => record.kind === SourceKind.SQS);
  if (!options.visibility || sqsRecords.length === 0) return;
  const { failed } = await options.visibility.apply(sqsRecords, notBefore);
  if (failed.length > 0) options.observability.logger.warn('could not change the visibility of some messages', { messageIds: failed });
}
