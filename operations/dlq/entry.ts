/**
 * What a DLQ message is. Four kinds can sit in a DLQ of this stack:
 * - `wrapper`: our failure wrapper (`effectively-once/failure` v1), the context in the body;
 * - `attributes`: the fallback for a wrapper too large for SQS: the original body, the context in
 *   `eo-*` message attributes (`effectively-once/failure-attributes`);
 * - `pointer`: Lambda's on-failure record of a Kinesis or DynamoDB Streams batch (a range, no data);
 * - `bare`: a message SQS moved after `maxReceiveCount`, with no context at all.
 */
import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import { ATTRIBUTE_CONTEXT_FORMAT, DlqAttribute, isFailureEnvelope, type FailureEnvelope } from '../../aws/dlq-format';
import { isStreamOnFailureRecord, streamBatchInfoOf, type StreamBatchInfo, type StreamOnFailureRecord } from '../../aws/lambda/on-failure-record';

export const EntryKind = {
  WRAPPER: 'wrapper',
  ATTRIBUTES: 'attributes',
  POINTER: 'pointer',
  BARE: 'bare',
} as const;
export type EntryKind = (typeof EntryKind)[keyof typeof EntryKind];

/** The error type a bare message is grouped and filtered under: SQS gives no reason. */
export const BARE_ERROR_TYPE = 'MovedBySqs';

/** What every kind has, for grouping and filtering. */
interface EntryBase {
  readonly message: Message;
  readonly messageId: string;
  /** The error name (wrapper, attributes), the on-failure condition (pointer) or {@link BARE_ERROR_TYPE}. */
  readonly errorType: string;
  /** The consumer (wrapper, attributes) or the function name (pointer); unknown for bare messages. */
  readonly consumer?: string;
  readonly eventId?: string;
  /** ISO-8601: the first failure, or when the message was sent. */
  readonly firstSeen: string;
  readonly lastSeen: string;
}

export type DlqEntry =
  | (EntryBase & { readonly kind: typeof EntryKind.WRAPPER; readonly failure: FailureEnvelope })
  | (EntryBase & { readonly kind: typeof EntryKind.ATTRIBUTES; readonly context: Readonly<Record<string, string>> })
  | (EntryBase & { readonly kind: typeof EntryKind.POINTER; readonly pointer: StreamOnFailureRecord; readonly range: StreamBatchInfo })
  | (EntryBase & { readonly kind: typeof EntryKind.BARE });

/** Classifies a message received with all system and message attributes. */
export function entryOf(message: Message): DlqEntry {
  const body = parseJson(message.Body ?? '');
  if (isFailureEnvelope(body)) return wrapperEntry(message, body);
  if (isStreamOnFailureRecord(body)) return pointerEntry(message, body);
  if (stringAttribute(message, DlqAttribute.FORMAT) === ATTRIBUTE_CONTEXT_FORMAT) return attributeEntry(message);
  const sent = sentAt(message);
  return { kind: EntryKind.BARE, ...base(message), errorType: BARE_ERROR_TYPE, firstSeen: sent, lastSeen: sent };
}

function wrapperEntry(message: Message, failure: FailureEnvelope): DlqEntry {
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

function pointerEntry(message: Message, pointer: StreamOnFailureRecord): DlqEntry {
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

function attributeEntry(message: Message): DlqEntry {
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
