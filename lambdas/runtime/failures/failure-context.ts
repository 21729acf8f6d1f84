import { FAILURE_FORMAT, FAILURE_FORMAT_VERSION, type DlqReason, type FailureEnvelope } from '../../../aws/dlq-format';
import { classifyError } from '../core/classify';
import { InvalidEnvelopeError, messageOf, SchemaViolationError, UnknownEventTypeError } from '../core/errors';
import type { SourceRecord } from '../decoding/records';

/** How many stack lines travel with the failure: enough to find the frame, small enough for SQS. */
const STACK_LINES = 12;

export interface FailureDescription {
  readonly consumer: string;
  readonly reason: DlqReason;
  readonly error: unknown;
  readonly record: SourceRecord;
  readonly eventId?: string;
  readonly eventType?: string;
  readonly now: Date;
}

/** Builds the DLQ wrapper for a failed record. */
export function describeFailure(failure: FailureDescription): FailureEnvelope {
  const { record, now } = failure;
  return {
    format: FAILURE_FORMAT,
    version: FAILURE_FORMAT_VERSION,
    consumer: failure.consumer,
    reason: failure.reason,
    error: describeError(failure.error),
    attempts: record.receiveCount,
    firstFailureAt: record.receiveCount > 1 && record.firstSeenAt ? record.firstSeenAt : now.toISOString(),
    lastFailureAt: now.toISOString(),
    eventId: failure.eventId,
    eventType: failure.eventType,
    source: { kind: record.kind, arn: record.sourceArn, itemIdentifier: record.itemIdentifier },
    original: record.original,
  };
}

function describeError(error: unknown): FailureEnvelope['error'] {
  const asError = error instanceof Error ? error : undefined;
  const thrownName = (error as { name?: unknown } | null)?.name;
  return {
    name: asError?.name ?? (typeof thrownName === 'string' ? thrownName : 'Error'),
    message: messageOf(error),
    kind: classifyError(error),
    stack: asError?.stack?.split('\n').slice(0, STACK_LINES).join('\n'),
    details: detailsOf(error),
  };
}

function detailsOf(error: unknown): Record<string, unknown> | undefined {
  if (error instanceof InvalidEnvelopeError) return { problem: error.problem, field: error.field };
  if (error instanceof SchemaViolationError) return { eventType: error.eventType, issues: error.issues };
  if (error instanceof UnknownEventTypeError) return { eventType: error.eventType, knownTypes: error.knownTypes };
  const cause = error instanceof Error ? error.cause : undefined;
  return cause instanceof Error ? { cause: `${cause.name}: ${cause.message}` } : undefined;
}
