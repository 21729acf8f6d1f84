/**
 * What a DLQ message is. Five kinds can sit in a DLQ of this stack, and a sixth that should not:
 * - `wrapper`: our failure wrapper (`effectively-once/failure` v1), the context in the body;
 * - `attributes`: the fallback for a wrapper too large for SQS: the original body, the context in
 *   `eo-*` message attributes (`effectively-once/failure-attributes`);
 * - `pointer`: Lambda's on-failure record of a Kinesis or DynamoDB Streams batch (a range, no data);
 * - `bare`: a message SQS moved after `maxReceiveCount`, with no context at all;
 * - `target-failure`: a target call EventBridge Scheduler gave up on (a schedule's DLQ:
 *   `SqlEffectDatabase`'s expiry), its body the call's input, its error in the `ERROR_CODE` and
 *   `ERROR_MESSAGE` message attributes ("Configuring a dead-letter queue for EventBridge
 *   Scheduler"); nothing to redrive it to: the schedule's next run does its work;
 * - `malformed`: a body that claims the wrapper format but does not have its layout (the runtime
 *   never writes one; anyone who can send to the DLQ can). It is listed with what is wrong, and a
 *   redrive leaves it where it is: nothing in it can be trusted to say where it should go.
 * Another kind is not a message: `archived`, an object of a failure archive (`onFailure: 's3'`), which
 * holds Lambda's on-failure record and the batch's records themselves.
 */
import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import { ATTRIBUTE_CONTEXT_FORMAT, checkFailureEnvelope, DlqAttribute, FAILURE_FORMAT, type FailureEnvelope } from '../../aws/dlq-format';
import { checkStreamOnFailureRecord, streamBatchInfoOf, type StreamBatchInfo, type StreamOnFailureRecord } from '../../aws/lambda/on-failure-record';
import { MalformedOnFailureObjectError, parseOnFailureObject, type ArchivedFailure } from '../../aws/lambda/on-failure-object';

export const EntryKind = {
  WRAPPER: 'wrapper',
  ATTRIBUTES: 'attributes',
  POINTER: 'pointer',
  BARE: 'bare',
  TARGET_FAILURE: 'target-failure',
  MALFORMED: 'malformed',
  ARCHIVED: 'archived',
} as const;
export type EntryKind = (typeof EntryKind)[keyof typeof EntryKind];

/** The message attributes of EventBridge Scheduler's dead-letter events that say what failed, and which schedule. */
const TARGET_ERROR_CODE = 'ERROR_CODE';
const TARGET_ERROR_MESSAGE = 'ERROR_MESSAGE';
const TARGET_SCHEDULE_ARN = 'SCHEDULE_ARN';

/** The error type a bare message is grouped and filtered under: SQS gives no reason. */
export const BARE_ERROR_TYPE = 'MovedBySqs';

/** The error type a malformed wrapper is grouped and filtered under. */
export const MALFORMED_WRAPPER_ERROR_TYPE = 'MalformedFailureWrapper';

/** The error type of a message that claims to be a stream mapping's on-failure record but is not a whole one. */
export const MALFORMED_POINTER_ERROR_TYPE = 'MalformedOnFailureRecord';

/** What a malformed message claims to be: our wrapper, or Lambda's on-failure record (a pointer to stream records). */
export type MalformedClaim = 'wrapper' | 'pointer';

/** The error type of an archive object that is not an on-failure record. */
export const MALFORMED_OBJECT_ERROR_TYPE = 'MalformedOnFailureObjectError';

/** What every kind has, for grouping and filtering. */
interface EntryBase {
  /** The SQS message id; an archive object's key. */
  readonly messageId: string;
  /** The error name (wrapper, attributes), the on-failure condition (pointer, archived) or {@link BARE_ERROR_TYPE}. */
  readonly errorType: string;
  /** The consumer (wrapper, attributes) or the function name (pointer, archived); unknown for bare messages. */
  readonly consumer?: string;
  readonly eventId?: string;
  /** ISO-8601: the first failure, or when the message was sent. */
  readonly firstSeen: string;
  readonly lastSeen: string;
}

/** A DLQ message, received with all its attributes. */
interface MessageEntry extends EntryBase {
  readonly message: Message;
}

/** An object of a failure archive. */
export interface ArchivedObject {
  readonly bucket: string;
  readonly key: string;
  /** ISO-8601: when Lambda wrote it. */
  readonly lastModified: string;
}

export type DlqEntry =
  | (MessageEntry & { readonly kind: typeof EntryKind.WRAPPER; readonly failure: FailureEnvelope })
  | (MessageEntry & { readonly kind: typeof EntryKind.ATTRIBUTES; readonly context: Readonly<Record<string, string>> })
  | (MessageEntry & { readonly kind: typeof EntryKind.POINTER; readonly pointer: StreamOnFailureRecord; readonly range: StreamBatchInfo })
  | (MessageEntry & { readonly kind: typeof EntryKind.BARE })
  /** `errorMessage`: the `ERROR_MESSAGE` attribute; `schedule`: the `SCHEDULE_ARN` attribute, when there is one. */
  | (MessageEntry & { readonly kind: typeof EntryKind.TARGET_FAILURE; readonly errorMessage: string; readonly schedule?: string })
  /** `problems`: each field missing or of the wrong type, by its path; `claims`: the layout the body claims and fails. */
  | (MessageEntry & { readonly kind: typeof EntryKind.MALFORMED; readonly claims: MalformedClaim; readonly problems: readonly string[] })
  | ArchivedEntry;

/** An entry read from a DLQ message (every kind but `archived`). */
export type MessageDlqEntry = Exclude<DlqEntry, ArchivedEntry>;

/** An archive object: its record and records when it reads as one (`failure`), else what is wrong (`problem`). */
export type ArchivedEntry = EntryBase & { readonly kind: typeof EntryKind.ARCHIVED; readonly object: ArchivedObject } & (
  | { readonly failure: ArchivedFailure; readonly problem?: undefined }
  | { readonly failure?: undefined; readonly problem: string }
);

/** Classifies a message received with all system and message attributes. */
export function entryOf(message: Message): MessageDlqEntry {
  const body = parseJson(message.Body ?? '');
  const wrapper = checkFailureEnvelope(body);
  if (wrapper?.envelope) return wrapperEntry(message, wrapper.envelope);
  if (wrapper?.problems) return malformedEntry(message, wrapper.problems, body as Record<string, unknown>);
  const pointer = checkStreamOnFailureRecord(body);
  if (pointer?.record) return pointerEntry(message, pointer.record);
  if (pointer?.problems) return malformedEntry(message, pointer.problems, body as Record<string, unknown>, 'pointer');
  if (stringAttribute(message, DlqAttribute.FORMAT) === ATTRIBUTE_CONTEXT_FORMAT) return attributeEntry(message);
  const sent = sentAt(message);
  const errorCode = stringAttribute(message, TARGET_ERROR_CODE);
  if (errorCode !== undefined) {
    const schedule = stringAttribute(message, TARGET_SCHEDULE_ARN);
    return { kind: EntryKind.TARGET_FAILURE, ...base(message), errorType: errorCode, errorMessage: stringAttribute(message, TARGET_ERROR_MESSAGE) ?? '', ...(schedule && { schedule }), firstSeen: sent, lastSeen: sent };
  }
  return { kind: EntryKind.BARE, ...base(message), errorType: BARE_ERROR_TYPE, firstSeen: sent, lastSeen: sent };
}

/** Classifies an archive object by its body. */
export function archivedEntryOf(object: ArchivedObject, body: string): ArchivedEntry {
  const base = { kind: EntryKind.ARCHIVED, messageId: object.key, object, firstSeen: object.lastModified, lastSeen: object.lastModified };
  let failure: ArchivedFailure;
  try {
    failure = parseOnFailureObject(body);
  } catch (error) {
    if (!(error instanceof MalformedOnFailureObjectError)) throw error;
    return { ...base, errorType: MALFORMED_OBJECT_ERROR_TYPE, problem: error.message };
  }
  const failedAt = failure.record.timestamp || object.lastModified;
  return { ...base, failure, errorType: failure.record.requestContext.condition, consumer: functionNameOf(failure.record.requestContext.functionArn), firstSeen: failedAt, lastSeen: failedAt };
}

function wrapperEntry(message: Message, failure: FailureEnvelope): MessageDlqEntry {
  return {
    kind: EntryKind.WRAPPER,
    ...base(message),
    failure,
    errorType: failure.error.name,
    consumer: failure.consumer,
    eventId: failure.eventId,
    firstSeen: failure.firstFailureAt,
    lastSeen: failure.lastFailureAt,
  };
}

/** Sent time for both ends: its own failure times cannot be trusted. Its consumer, when it names one, helps find who sent it. */
function malformedEntry(message: Message, problems: readonly string[], body: Record<string, unknown>, claims: MalformedClaim = 'wrapper'): MessageDlqEntry {
  const sent = sentAt(message);
  const consumer = claims === 'wrapper' && typeof body.consumer === 'string' ? body.consumer : undefined;
  const errorType = claims === 'wrapper' ? MALFORMED_WRAPPER_ERROR_TYPE : MALFORMED_POINTER_ERROR_TYPE;
  return { kind: EntryKind.MALFORMED, ...base(message), claims, problems, errorType, consumer, firstSeen: sent, lastSeen: sent };
}

/** What is wrong with a malformed message, for inspect and for the redrive that leaves it. */
export function describeMalformed(problems: readonly string[], claims: MalformedClaim = 'wrapper'): string {
  const claim = claims === 'wrapper' ? `claims the ${FAILURE_FORMAT} format but is not a valid wrapper` : "claims to be a stream mapping's on-failure record but is not a valid one";
  return `${claim} (${problems.join('; ')}): a redrive leaves it in the DLQ`;
}

function pointerEntry(message: Message, pointer: StreamOnFailureRecord): MessageDlqEntry {
  const failedAt = pointer.timestamp || sentAt(message);
  return {
    kind: EntryKind.POINTER,
    ...base(message),
    pointer,
    range: streamBatchInfoOf(pointer),
    errorType: pointer.requestContext.condition,
    consumer: functionNameOf(pointer.requestContext.functionArn),
    firstSeen: failedAt,
    lastSeen: failedAt,
  };
}

function attributeEntry(message: Message): MessageDlqEntry {
  const context = Object.fromEntries(
    Object.entries(message.MessageAttributes ?? {}).flatMap(([name, value]) => (name.startsWith('eo-') && value.StringValue !== undefined ? [[name, value.StringValue]] : [])),
  );
  const failedAt = context[DlqAttribute.FAILED_AT] ?? sentAt(message);
  return {
    kind: EntryKind.ATTRIBUTES,
    ...base(message),
    context,
    errorType: context[DlqAttribute.ERROR_NAME] ?? 'Error',
    consumer: context[DlqAttribute.CONSUMER],
    eventId: context[DlqAttribute.EVENT_ID],
    firstSeen: failedAt,
    lastSeen: failedAt,
  };
}

function base(message: Message): { message: Message; messageId: string } {
  return { message, messageId: message.MessageId ?? '' };
}

/** When SQS accepted the message (for a message SQS moved: when it was first sent). */
export function sentAt(message: Message): string {
  const sent = Number(message.Attributes?.SentTimestamp);
  return new Date(Number.isFinite(sent) && sent > 0 ? sent : Date.now()).toISOString();
}

/** `arn:aws:lambda:<region>:<account>:function:<name>[:<qualifier>]` -> `<name>`. */
export function functionNameOf(functionArn: string): string {
  return /:function:([^:]+)/.exec(functionArn)?.[1] ?? functionArn;
}

export function stringAttribute(message: Message, name: string): string | undefined {
  const value: MessageAttributeValue | undefined = message.MessageAttributes?.[name];
  return value?.StringValue;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
