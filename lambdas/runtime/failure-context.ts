import { classifyError } from './classify';
import { FailureKind, InvalidEnvelopeError, messageOf, SchemaViolationError, UnknownEventTypeError } from './errors';
import type { OriginalRecord, SourceKind, SourceRecord } from './records';

/** Identifies our DLQ wrapper body; `version` changes only with an incompatible layout. */
export const FAILURE_FORMAT = 'effectively-once/failure';
export const FAILURE_FORMAT_VERSION = 1;

/** Why the runtime sent a record to the DLQ. */
export const DlqReason = {
  /** A permanent failure: no retry can fix it. */
  PERMANENT: 'permanent',
  /** A transient failure on the consumer's last attempt (`ApproximateReceiveCount >= MAX_ATTEMPTS`). */
  LAST_ATTEMPT: 'last-attempt',
  /** The last attempt ran out of time before the record's work could start or finish. */
  TIMED_OUT: 'timed-out',
} as const;
export type DlqReason = (typeof DlqReason)[keyof typeof DlqReason];

/** How many stack lines travel with the failure: enough to find the frame, small enough for SQS. */
const STACK_LINES = 12;

/**
 * The body of a DLQ message the runtime writes (format `effectively-once/failure`, version 1).
 * Everything triage needs is here, so that nobody starts by reproducing the failure.
 * Documented in docs/operations.md; `dlq redrive` sends `original` back to the source.
 */
export interface FailureEnvelope {
  readonly format: typeof FAILURE_FORMAT;
  readonly version: typeof FAILURE_FORMAT_VERSION;
  readonly consumer: string;
  readonly reason: DlqReason;
  readonly error: {
    readonly name: string;
    readonly message: string;
    readonly kind: FailureKind;
    readonly stack?: string;
    /** Structured details of our own errors: the envelope problem and field, schema issues, the unknown type. */
    readonly details?: Readonly<Record<string, unknown>>;
  };
  /** Deliveries so far, this one included. */
  readonly attempts: number;
  readonly firstFailureAt: string;
  readonly lastFailureAt: string;
  /** Absent when the body was too broken to yield one. */
  readonly eventId?: string;
  readonly eventType?: string;
  readonly source: {
    readonly kind: SourceKind;
    readonly arn: string;
    readonly itemIdentifier: string;
  };
  readonly original: OriginalRecord;
}

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

/** True when a DLQ body is one of our wrappers (as opposed to a message SQS moved, or Lambda's on-failure metadata). */
export function isFailureEnvelope(value: unknown): value is FailureEnvelope {
  const candidate = value as Partial<FailureEnvelope> | null;
  return typeof candidate === 'object' && candidate !== null && candidate.format === FAILURE_FORMAT;
}
