/**
 * What an operator needs to see of each record an archive object holds: its position, its key,
 * the event id when the body is one of our envelopes, and the start of the body.
 */
import type { DynamoDBRecord, KinesisStreamRecord } from 'aws-lambda';

/** Characters of a record's body shown. */
const BODY_CHARS = 240;

export interface ArchivedRecordView {
  readonly sequenceNumber?: string;
  /** Kinesis: the partition key; a table's stream: the item's keys as JSON. */
  readonly key?: string;
  /** DynamoDB Streams: INSERT, MODIFY or REMOVE. */
  readonly eventName?: string;
  /** The envelope's `eventId`, when the body is JSON that has one. */
  readonly eventId?: string;
  /** The start of the body: Kinesis data as UTF-8, or the new image as JSON. */
  readonly body: string;
}

/** A view of one record of an invocation event. */
export function viewOfArchivedRecord(record: KinesisStreamRecord | DynamoDBRecord): ArchivedRecordView {
  if ('kinesis' in record && record.kinesis) {
    const body = Buffer.from(record.kinesis.data ?? '', 'base64').toString('utf8');
    return { sequenceNumber: record.kinesis.sequenceNumber, key: record.kinesis.partitionKey, eventId: eventIdIn(body), body: excerpt(body) };
  }
  const change = (record as DynamoDBRecord).dynamodb;
  const body = JSON.stringify(change?.NewImage ?? change?.OldImage ?? {});
  return { sequenceNumber: change?.SequenceNumber, key: change?.Keys && JSON.stringify(change.Keys), eventName: (record as DynamoDBRecord).eventName, body: excerpt(body) };
}

function eventIdIn(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { eventId?: unknown };
    return typeof parsed?.eventId === 'string' ? parsed.eventId : undefined;
  } catch {
    return undefined;
  }
}

function excerpt(text: string): string {
  return text.length <= BODY_CHARS ? text : `${text.slice(0, BODY_CHARS)}…`;
}
