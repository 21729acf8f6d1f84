/**
 * The format of the DLQ messages the runtime writes (`effectively-once/failure`, version 1), which
 * the DLQ tooling reads and the emulator's demo verifies: one definition for all three. Documented
 * for people in docs/operations.md.
 */
import type { SQSRecord } from 'aws-lambda';
import { isCount, isRecord, isString, isTime, oneOf, optional, problemsOf, recordOf, type FieldRule } from './field-rules';

/** The three event sources whose batches the runtime consumes: a wrapper's `source.kind`. */
export const SourceKind = {
  SQS: 'sqs',
  KINESIS: 'kinesis',
  DYNAMODB_STREAM: 'dynamodb-stream',
} as const;
export type SourceKind = (typeof SourceKind)[keyof typeof SourceKind];

/** How the runtime classified a failure: a wrapper's `error.kind`. */
export const FailureKind = {
  TRANSIENT: 'transient',
  PERMANENT: 'permanent',
} as const;
export type FailureKind = (typeof FailureKind)[keyof typeof FailureKind];

/** Identifies our DLQ wrapper body; `version` changes only with an incompatible layout. */
export const FAILURE_FORMAT = 'effectively-once/failure';
export const FAILURE_FORMAT_VERSION = 1;
/** Marks a DLQ message whose context travels in attributes because the wrapper would not fit in SQS's size limit. */
export const ATTRIBUTE_CONTEXT_FORMAT = 'effectively-once/failure-attributes';

/** Why the runtime sent a record to the DLQ. */
export const DlqReason = {
  /** A permanent failure: no retry can fix it. */
  PERMANENT: 'permanent',
  /** A transient failure on the consumer's last attempt (`ApproximateReceiveCount >= MAX_ATTEMPTS`). */
  LAST_ATTEMPT: 'last-attempt',
  /** The last attempt ran out of time before the record's work could start or finish. */
  TIMED_OUT: 'timed-out',
  /**
   * The queue's final receive (`ApproximateReceiveCount >= maxReceiveCount`) of a record whose
   * handler never ran (its order group stopped at an earlier failure, or the time ran out): sent
   * with its context rather than left to the redrive policy, which moves it with none.
   */
  NOT_ATTEMPTED: 'not-attempted',
} as const;
export type DlqReason = (typeof DlqReason)[keyof typeof DlqReason];

/** Message attributes set on every DLQ message the runtime writes, so tools can filter without parsing bodies. */
export const DlqAttribute = {
  FORMAT: 'eo-format',
  CONSUMER: 'eo-consumer',
  ERROR_NAME: 'eo-error-name',
  ERROR_MESSAGE: 'eo-error-message',
  REASON: 'eo-reason',
  EVENT_ID: 'eo-event-id',
  ATTEMPTS: 'eo-attempts',
  FAILED_AT: 'eo-failed-at',
  /**
   * When the event's earliest copy was sent (first-sent.ts), when the record tells: the attribute
   * fallback keeps no original attributes, so the next redrive's dedup window check needs this.
   */
  FIRST_SENT_AT: 'eo-first-sent-at',
} as const;

/** The original record, kept byte for byte so that a DLQ message can be redriven as it came. */
export interface OriginalRecord {
  /** SQS body, Kinesis data (base64, as Lambda delivers it) or the DynamoDB stream record as JSON. */
  readonly body: string;
  readonly encoding: 'utf8' | 'base64';
  readonly attributes?: Readonly<Record<string, string>>;
  readonly messageAttributes?: SQSRecord['messageAttributes'];
}

/**
 * The body of a DLQ message the runtime writes. Everything triage needs is here, so that nobody
 * starts by reproducing the failure; `dlq redrive` sends `original` back to the source.
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
    /** Structured details of the runtime's own errors: the envelope problem and field, schema issues, the unknown type. */
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

/** True when a DLQ body is one of our wrappers, whole (as opposed to a message SQS moved, Lambda's on-failure metadata, or a body that only claims our format). */
export function isFailureEnvelope(value: unknown): value is FailureEnvelope {
  return checkFailureEnvelope(value)?.envelope !== undefined;
}

/** A body that claims our format, checked: the wrapper, or each thing wrong with it. */
export type FailureEnvelopeCheck =
  | { readonly envelope: FailureEnvelope; readonly problems?: undefined }
  | { readonly envelope?: undefined; readonly problems: readonly string[] };

/**
 * Checks a parsed DLQ body against the whole wrapper layout. `undefined` when the body does not
 * claim our format (`format` is not {@link FAILURE_FORMAT}): it is some other kind of message.
 * Otherwise the wrapper, or its problems, each naming a field by its path (`source.arn is missing`,
 * `version is 2, expected 1`): anyone who can send to a DLQ can write a body that claims the
 * format, and the tools must neither crash on it nor act on half of it.
 *
 * @example
 * checkFailureEnvelope({ format: 'effectively-once/failure' })?.problems; // ['version is missing', 'consumer is missing', ...]
 */
export function checkFailureEnvelope(value: unknown): FailureEnvelopeCheck | undefined {
  if (!isRecord(value) || value.format !== FAILURE_FORMAT) return undefined;
  const problems = problemsOf(value, ENVELOPE_RULES);
  return problems.length === 0 ? { envelope: value as unknown as FailureEnvelope } : { problems };
}

/** Lambda's shape of an SQS message attribute, as far as a redrive reads it. */
const isLambdaAttribute = (value: unknown): boolean => isRecord(value) && isString(value.dataType) && optional(isString)(value.stringValue) && optional(isString)(value.binaryValue);

/**
 * The layout, field by field; a nested field is checked only when its parent is an object. What a
 * redrive acts on (`source.kind`, `original.encoding`) must be a known value; what is only shown
 * (`reason`, `error.kind`) must be a string, so that a later runtime's new value is shown, not refused.
 */
const ENVELOPE_RULES: readonly FieldRule[] = [
  ['version', String(FAILURE_FORMAT_VERSION), (value) => value === FAILURE_FORMAT_VERSION],
  ['consumer', 'a string', isString],
  ['reason', 'a string', isString],
  ['error', 'an object', isRecord],
  ['error.name', 'a string', isString],
  ['error.message', 'a string', isString],
  ['error.kind', 'a string', isString],
  ['error.stack', 'a string', optional(isString)],
  ['error.details', 'an object', optional(isRecord)],
  ['attempts', 'a whole number', isCount],
  ['firstFailureAt', 'an ISO-8601 time', isTime],
  ['lastFailureAt', 'an ISO-8601 time', isTime],
  ['eventId', 'a string', optional(isString)],
  ['eventType', 'a string', optional(isString)],
  ['source', 'an object', isRecord],
  ['source.kind', Object.values(SourceKind).join(' or '), oneOf(Object.values(SourceKind))],
  ['source.arn', 'a string', isString],
  ['source.itemIdentifier', 'a string', isString],
  ['original', 'an object', isRecord],
  ['original.body', 'a string', isString],
  ['original.encoding', 'utf8 or base64', oneOf(['utf8', 'base64'])],
  ['original.attributes', 'an object of strings', optional(recordOf(isString))],
  ['original.messageAttributes', "an object of Lambda's SQS message attributes", optional(recordOf(isLambdaAttribute))],
];
