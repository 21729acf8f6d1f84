/**
 * When an event's earliest copy entered its source, as far as a copy's record tells: the earliest a
 * dedup record of the event can have been written, which `dlq redrive` counts the dedup window
 * from (operations/dlq/dedup-window.ts). The runtime writes it in its DLQ messages' attributes;
 * `dlq redrive` carries it on each copy it republishes to a queue, so that a copy that fails again
 * still counts from the event's first copy, not from its own.
 */
import { SourceKind, type OriginalRecord } from './dlq-format';

/**
 * The message attribute (ISO-8601) `dlq redrive` sets on a copy it republishes to a queue. The
 * runtime keeps a record's message attributes in its DLQ wrapper (`original.messageAttributes`),
 * so the next redrive of that copy reads it back.
 */
export const FIRST_SENT_ATTRIBUTE = 'eoFirstSentAt';

/**
 * Epoch ms: an SQS record's carried first-sent time, else its `SentTimestamp`; a DynamoDB stream
 * record's `ApproximateCreationDateTime`. Undefined for a Kinesis record (the runtime keeps no
 * arrival time of it), and when the record holds none.
 */
export function firstSentOfOriginal(original: OriginalRecord, kind: SourceKind): number | undefined {
  switch (kind) {
    case SourceKind.SQS:
      return parseTime(original.messageAttributes?.[FIRST_SENT_ATTRIBUTE]?.stringValue) ?? epochMs(original.attributes?.SentTimestamp);
    case SourceKind.DYNAMODB_STREAM:
      return creationTimeOf(original.body);
    case SourceKind.KINESIS:
      return undefined;
  }
}

/** An ISO-8601 time as epoch ms; undefined when absent or not a time. */
export function parseTime(value: string | undefined): number | undefined {
  const ms = value === undefined ? Number.NaN : Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

/** An SQS timestamp attribute (epoch ms as text) as a number; undefined when absent or not one. */
export function epochMs(value: string | undefined): number | undefined {
  const ms = Number(value);
  return value && Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

/** A DynamoDB stream record's `ApproximateCreationDateTime` (epoch seconds, in the record's `dynamodb` part as JSON) as ms. */
function creationTimeOf(body: string): number | undefined {
  try {
    const seconds = (JSON.parse(body) as { ApproximateCreationDateTime?: unknown } | null)?.ApproximateCreationDateTime;
    return typeof seconds === 'number' && seconds > 0 ? seconds * 1000 : undefined;
  } catch {
    return undefined;
  }
}
