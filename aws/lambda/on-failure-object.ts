/**
 * What a Kinesis or DynamoDB Streams mapping writes to an S3 on-failure destination: one object per
 * batch given up on, holding the SQS destination's record (the range, the condition) plus
 * `payload`, the whole invocation event (`{"Records": [...]}`) as a JSON string. Unlike the SQS
 * record, it carries the records themselves: a redrive does not depend on the stream still
 * holding them (Lambda Developer Guide, "Example Amazon S3 invocation record").
 *
 * Objects are named `aws/lambda/<ESM-UUID>/<shardID>/YYYY/MM/DD/YYYY-MM-DDTHH.MM.SS-<Random UUID>`.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBRecord, KinesisStreamRecord } from 'aws-lambda';
import { checkStreamOnFailureRecord, onFailureRecord, streamBatchInfoOf, type OnFailureInput, type StreamBatchInfo, type StreamOnFailureRecord } from './on-failure-record';

/** Where Lambda puts every on-failure object in the bucket. */
export const ON_FAILURE_OBJECT_PREFIX = 'aws/lambda/';

/** The invocation event given up on: what the function was invoked with. */
export interface StreamInvocationEvent {
  readonly Records: readonly (KinesisStreamRecord | DynamoDBRecord)[];
}

/** The object's content: the on-failure record with the event as an escaped JSON string. */
export type ArchivedOnFailureRecord = StreamOnFailureRecord & { readonly payload: string };

/** An on-failure object read back: its record, range and the event's records. */
export interface ArchivedFailure {
  readonly record: ArchivedOnFailureRecord;
  readonly range: StreamBatchInfo;
  readonly event: StreamInvocationEvent;
}

/** A body that is not an on-failure object: not JSON, no range, or no readable `payload`. */
export class MalformedOnFailureObjectError extends Error {
  public constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'MalformedOnFailureObjectError';
  }
}

/**
 * The object for a batch given up on.
 *
 * @example
 * const body = JSON.stringify(onFailureObject({ ...input, event: { Records: batch.map((r) => r.lambdaRecord) } }));
 */
export function onFailureObject(input: OnFailureInput & { readonly event: StreamInvocationEvent }): ArchivedOnFailureRecord {
  return { ...onFailureRecord(input), payload: JSON.stringify(input.event) };
}

export interface ObjectKeyInput {
  /** The event source mapping's UUID. */
  readonly mappingUuid: string;
  readonly shardId: string;
  /** @default - now */
  readonly at?: Date;
  /** @default - a random UUID */
  readonly id?: string;
}

/** `aws/lambda/<ESM-UUID>/<shardID>/YYYY/MM/DD/YYYY-MM-DDTHH.MM.SS-<Random UUID>`, in UTC. */
export function onFailureObjectKey(input: ObjectKeyInput): string {
  const iso = (input.at ?? new Date()).toISOString();
  const [date = '', time = ''] = iso.split('T');
  const [year, month, day] = date.split('-');
  const stamp = `${date}T${time.slice(0, 8).replaceAll(':', '.')}`;
  return `${ON_FAILURE_OBJECT_PREFIX}${input.mappingUuid}/${input.shardId}/${year}/${month}/${day}/${stamp}-${input.id ?? randomUUID()}`;
}

/**
 * Reads an object's body.
 * @throws MalformedOnFailureObjectError naming what is wrong
 */
export function parseOnFailureObject(body: string): ArchivedFailure {
  const check = checkStreamOnFailureRecord(parseJson(body, 'the object is not JSON'));
  if (check === undefined) throw new MalformedOnFailureObjectError('the object is not a Lambda on-failure record (no KinesisBatchInfo or DDBStreamBatchInfo)');
  if (check.problems) throw new MalformedOnFailureObjectError(`the object is not a valid Lambda on-failure record: ${check.problems.join('; ')}`);
  const { record } = check;
  const payload = (record as { payload?: unknown }).payload;
  if (typeof payload !== 'string') throw new MalformedOnFailureObjectError('the on-failure record has no payload: it is the SQS destination\'s pointer, not an S3 object');
  const event = parseJson(payload, 'the payload is not JSON') as { Records?: unknown };
  if (!Array.isArray(event?.Records)) throw new MalformedOnFailureObjectError('the payload has no Records array');
  return { record: record as ArchivedOnFailureRecord, range: streamBatchInfoOf(record), event: event as StreamInvocationEvent };
}

function parseJson(text: string, problem: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new MalformedOnFailureObjectError(problem, { cause: error });
  }
}
