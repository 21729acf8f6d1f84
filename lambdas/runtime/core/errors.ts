/**
 * Every error the runtime raises derives from {@link EffectivelyOnceError}. Two families matter
 * to the consumer loop: {@link TransientError} (retry it) and {@link PermanentError} (never retry:
 * send the record to the DLQ with its failure context).
 */

import { FailureKind } from '../../../aws/dlq-format';

/** The kinds of failure the consumer loop distinguishes (a DLQ wrapper's `error.kind`). */
export { FailureKind } from '../../../aws/dlq-format';

/** Base class for the runtime's own errors. */
export class EffectivelyOnceError extends Error {
  public constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EffectivelyOnceError';
  }
}

/** A failure that may succeed on a later attempt (throttling, timeouts, 5xx, conflicts). */
export class TransientError extends EffectivelyOnceError {
  public readonly kind = FailureKind.TRANSIENT;
  public constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransientError';
  }
}

/** A failure that no retry can fix: the record goes to the DLQ at once. */
export class PermanentError extends EffectivelyOnceError {
  public readonly kind = FailureKind.PERMANENT;
  public constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentError';
  }
}

/**
 * A permanent failure that the stored state decided, not the event alone: a database constraint
 * (a CHECK on a balance, a UNIQUE key), an effect's condition. The same event can pass once the
 * state has moved (a withdrawal after the deposit that covers it), so it is not sure to fail again
 * when it comes back: an ordered group does not go on past it in the invocation that dead-letters
 * it (consumer/batch-run.ts), since a redelivery of both would apply it after what followed it.
 */
export class StateRefusalError extends PermanentError {
  public readonly decidedByState = true;
  public constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StateRefusalError';
  }
}

/** Whether a failure is one the stored state decided ({@link StateRefusalError}), so that it may pass when it comes back. */
export function decidedByState(error: unknown): boolean {
  return (error as { decidedByState?: unknown } | null | undefined)?.decidedByState === true;
}

/** Why a body is not a valid envelope. Each value names one way a producer can get it wrong. */
export const EnvelopeProblem = {
  EMPTY_BODY: 'empty-body',
  NOT_UTF8: 'not-utf8',
  NOT_JSON: 'not-json',
  NOT_AN_OBJECT: 'not-an-object',
  MISSING_FIELD: 'missing-field',
  WRONG_TYPE: 'wrong-type',
  EMPTY_FIELD: 'empty-field',
  TOO_LONG: 'too-long',
  INVALID_CHARACTERS: 'invalid-characters',
  INVALID_TIMESTAMP: 'invalid-timestamp',
  /** The body is not the wrapper the consumer expects (an SNS message that is not a `Notification`, say). */
  WRONG_WRAPPER: 'wrong-wrapper',
  /** A CloudEvent of a `specversion` other than 1.0. */
  UNSUPPORTED_VERSION: 'unsupported-version',
  /** Data the runtime cannot turn into a JSON object payload (a non-JSON `datacontenttype`). */
  UNSUPPORTED_CONTENT: 'unsupported-content',
  /** Two fields that exclude each other are both present (a CloudEvent's `data` and `data_base64`). */
  CONFLICTING_FIELDS: 'conflicting-fields',
  /** A field that must hold base64 does not (a CloudEvent's `data_base64`). */
  NOT_BASE64: 'not-base64',
} as const;
export type EnvelopeProblem = (typeof EnvelopeProblem)[keyof typeof EnvelopeProblem];

/** The body is not `{ eventId, type, occurredAt, source, payload }` as the producer library writes it. */
export class InvalidEnvelopeError extends PermanentError {
  public readonly problem: EnvelopeProblem;
  /** The dotted path of the offending field, when the problem is about one field. */
  public readonly field?: string;

  public constructor(problem: EnvelopeProblem, message: string, options?: { field?: string; cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidEnvelopeError';
    this.problem = problem;
    this.field = options?.field;
  }
}

/** The envelope is valid but this consumer has no handler for its `type`. */
export class UnknownEventTypeError extends PermanentError {
  public readonly eventType: string;
  public readonly knownTypes: readonly string[];

  public constructor(eventType: string, knownTypes: readonly string[]) {
    super(`unknown event type "${eventType}" (this consumer handles: ${knownTypes.join(', ') || 'none'})`);
    this.name = 'UnknownEventTypeError';
    this.eventType = eventType;
    this.knownTypes = knownTypes;
  }
}

/** The payload does not match the schema of its event type. */
export class SchemaViolationError extends PermanentError {
  public readonly eventType: string;
  /** One line per violation: `<path>: <problem>`. */
  public readonly issues: readonly string[];

  public constructor(eventType: string, issues: readonly string[], options?: { cause?: unknown }) {
    super(`payload of "${eventType}" violates its schema: ${issues.join('; ')}`, options);
    this.name = 'SchemaViolationError';
    this.eventType = eventType;
    this.issues = issues;
  }
}

/** Retries ran out on a transient failure; `cause` is the last error. */
export class RetriesExhaustedError extends TransientError {
  public readonly attempts: number;

  public constructor(attempts: number, cause: unknown) {
    super(`still failing after ${attempts} attempts: ${messageOf(cause)}`, { cause });
    this.name = 'RetriesExhaustedError';
    this.attempts = attempts;
  }
}

/** An ordered batch (Kinesis, DynamoDB Streams) stopped at an earlier failure: this record waits for redelivery. */
export class NotAttemptedError extends TransientError {
  public constructor(message = 'not attempted: an earlier record of this ordered batch failed') {
    super(message);
    this.name = 'NotAttemptedError';
  }
}

/**
 * The invocation's time budget ran out before this record's work could start or finish: it waits
 * for redelivery (or, on its last attempt, goes to the DLQ as timed out). `cause` is the last
 * failure when retries were cut short.
 */
export class OutOfTimeError extends TransientError {
  /** Milliseconds the budget had left when the work stopped. */
  public readonly remainingMs: number;

  public constructor(remainingMs: number, options?: { cause?: unknown }) {
    const after = options?.cause === undefined ? '' : ` (last failure: ${messageOf(options.cause)})`;
    super(`not attempted: the invocation's time budget ran out with ${Math.max(0, Math.round(remainingMs))} ms left${after}`, options);
    this.name = 'OutOfTimeError';
    this.remainingMs = remainingMs;
  }
}

/**
 * Another invocation holds the idempotency lock of an external effect (Powertools' in-progress
 * record). It is transient: the lock is released when that invocation completes, or expires at
 * `retryAt` if it died.
 */
export class EffectInProgressError extends TransientError {
  /**
   * When the lock expires; undefined when the record names no expiry, a lock that lasts until the
   * record's TTL (written by a release before `lockMs`, or by Powertools used without a context).
   */
  public readonly retryAt?: Date;

  public constructor(idempotencyKey: string, retryAt: Date | undefined, options?: { cause?: unknown }) {
    const until = retryAt ? ` until ${retryAt.toISOString()}` : ' with no expiry';
    super(`the external effect ${idempotencyKey} is in progress in another invocation: its lock is held${until}`, options);
    this.name = 'EffectInProgressError';
    this.retryAt = retryAt;
  }
}

/** An effect that no transaction can carry (a key value missing, a class instance among its values, an unknown kind). */
export class InvalidEffectError extends PermanentError {
  public constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidEffectError';
  }
}

/** A record could not be written to the DLQ: it stays failed so that the source redelivers it. */
export class DlqSendError extends TransientError {
  public constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DlqSendError';
  }
}

/** A required setting (usually an environment variable) is missing or malformed. */
export class ConfigurationError extends EffectivelyOnceError {
  public constructor(message: string) {
    super(message);
    this.name = 'ConfigurationError';
  }
}

/**
 * The consumer was wired to a source it does not support. The runtime no longer raises it (SQS
 * FIFO queues, once refused, are consumed in order per message group); it stays for code that
 * catches it.
 */
export class UnsupportedSourceError extends ConfigurationError {
  public readonly sourceArn: string;

  public constructor(sourceArn: string, reason: string) {
    super(`unsupported event source ${sourceArn}: ${reason}`);
    this.name = 'UnsupportedSourceError';
    this.sourceArn = sourceArn;
  }
}

/** Some entries of a batch publish still failed after every retry. */
export class PublishError extends TransientError {
  /** The ids (SQS entry ids or event ids) that were not accepted. */
  public readonly failedIds: readonly string[];

  public constructor(message: string, failedIds: readonly string[], options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PublishError';
    this.failedIds = failedIds;
  }
}

/** SQS rejected entries as the sender's fault (too large, invalid characters): resending cannot help. */
export class PublishRejectedError extends PermanentError {
  /** The ids of the rejected entries. */
  public readonly rejectedIds: readonly string[];

  public constructor(message: string, rejectedIds: readonly string[]) {
    super(message);
    this.name = 'PublishRejectedError';
    this.rejectedIds = rejectedIds;
  }
}

/** A record that no decoder could turn into an event (a DynamoDB number beyond JavaScript's range, say). */
export class UndecodableRecordError extends PermanentError {
  public constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UndecodableRecordError';
  }
}

/** The message of anything thrown, for logs and failure context. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  const message = (error as { message?: unknown } | null)?.message;
  if (typeof message === 'string') return message;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
