/**
 * Which source a batch came from, read from its records' `eventSource`: Lambda sets it on every
 * record of an SQS (`aws:sqs`), Kinesis (`aws:kinesis`) and DynamoDB Streams (`aws:dynamodb`)
 * batch (Lambda Developer Guide, the example events of "Using Lambda with Amazon SQS", "... with
 * Kinesis Data Streams" and "... with DynamoDB"). A consumer that decodes a batch as the wrong
 * source would find every record undecodable and dead-letter all of them, so a batch of another
 * source is a configuration error: it fails the invocation, nothing dead-lettered, nothing lost.
 */
import { ConfigurationError } from '../core/errors';
import { SourceKind } from './records';

const KIND_BY_EVENT_SOURCE: Readonly<Record<string, SourceKind>> = {
  'aws:sqs': SourceKind.SQS,
  'aws:kinesis': SourceKind.KINESIS,
  'aws:dynamodb': SourceKind.DYNAMODB_STREAM,
};

/**
 * The batch's records, as Lambda hands them over: an array; none when the event has no `Records`.
 * @throws TypeError for a `Records` that is not a list: the event is no batch of an event source mapping
 */
export function batchRecords(event: unknown): readonly unknown[] {
  const records = (event as { Records?: unknown } | null | undefined)?.Records;
  if (records === undefined || records === null) return [];
  if (!Array.isArray(records)) throw new TypeError(`the event's Records is ${typeof records}, not a list: the event is no batch of an event source mapping`);
  return records;
}

/**
 * The source every record of the batch names; undefined for a batch whose records name none (an
 * event built by hand) or an empty one.
 * @throws ConfigurationError when a record names a source the runtime does not consume, or two records name different ones
 */
export function batchSourceKind(records: readonly unknown[]): SourceKind | undefined {
  let found: SourceKind | undefined;
  for (const record of records) {
    const kind = recordSourceKind(record);
    if (kind === undefined) continue;
    if (found !== undefined && kind !== found) throw new ConfigurationError(`one batch holds records of two sources (${found} and ${kind}): an event source mapping delivers one source's records`);
    found = kind;
  }
  return found;
}

/**
 * Refuses a batch whose records name another source than the consumer's.
 * @throws ConfigurationError naming both sources and the fix
 */
export function requireSourceKind(expected: SourceKind, records: readonly unknown[]): void {
  const actual = batchSourceKind(records);
  if (actual === undefined || actual === expected) return;
  throw new ConfigurationError(
    `this consumer decodes ${expected} records, but the batch came from ${actual}: set the handler's source to SourceKind.${constantOf(actual)}, or leave it out so that the batch's eventSource decides; the invocation fails, so nothing is dead-lettered`,
  );
}

function recordSourceKind(record: unknown): SourceKind | undefined {
  const eventSource = (record as { eventSource?: unknown } | null | undefined)?.eventSource;
  if (eventSource === undefined || eventSource === null) return undefined;
  const kind = typeof eventSource === 'string' ? KIND_BY_EVENT_SOURCE[eventSource] : undefined;
  if (kind === undefined) throw new ConfigurationError(`a record's eventSource is ${JSON.stringify(eventSource)}: the runtime consumes ${Object.keys(KIND_BY_EVENT_SOURCE).join(', ')} batches`);
  return kind;
}

function constantOf(kind: SourceKind): string {
  return (Object.entries(SourceKind).find(([, value]) => value === kind) as [string, SourceKind])[0];
}
