/**
 * Redrive for a DynamoDB stream. Nobody can write to a table's stream: only a change of an item
 * makes the stream emit a record, and the table is the source of truth. So a failed stream record
 * is re-emitted by a *guarded touch*: if the item still holds exactly the record's new image, one
 * `UpdateItem` sets a marker attribute ({@link REDRIVE_MARKER_ATTRIBUTE}) under a condition that
 * every attribute still has that value. The stream then emits a MODIFY whose new image is the
 * failed record's new image plus the marker; every consumer of the stream sees it, and each is
 * idempotent.
 *
 * What this does not do, on purpose:
 * - re-put an old image: that would roll the item back over newer writes (and an unchanged put
 *   emits no stream record at all on AWS);
 * - replay a change the item has since moved past (`superseded`), or a REMOVE (`unreplayable`):
 *   the table no longer holds that state. Those stay in the DLQ and are reported.
 * Invoking the consumer function with the records read back would replay those too, but needs the
 * Lambda API and bypasses the mapping's ordering; see docs/operations.md.
 */
import { GetItemCommand, UpdateItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { OriginalRecord } from '../../aws/dlq-format';
import { canonicalItem, toSdkItem } from './attribute-values';
import { MalformedEntryError } from './errors';

/** The attribute a redrive sets on an item to make its stream emit it again. */
export const REDRIVE_MARKER_ATTRIBUTE = 'eoRedrivenAt';

/** One change of an item, as a stream record carries it. */
export interface TableChange {
  readonly eventName: string;
  readonly keys: Record<string, AttributeValue>;
  readonly newImage?: Record<string, AttributeValue>;
  readonly sequenceNumber?: string;
}

export type ReemitOutcome =
  | { readonly status: 're-emitted' | 'would-re-emit' }
  | { readonly status: 'superseded' | 'unreplayable'; readonly reason: string };

/**
 * The change in a stream record (read back from the stream, or kept in an archive object).
 * @throws MalformedEntryError when the record names no item (`dynamodb.Keys`)
 */
export function changeOfStreamRecord(record: DynamoDBRecord): TableChange {
  if (!record?.dynamodb?.Keys) throw new MalformedEntryError('a record of the batch is not a DynamoDB stream record (no dynamodb.Keys)');
  return changeOf(record.eventName ?? '', record.dynamodb);
}

/** The change in one of our wrappers: `original.body` is the record's `dynamodb` part as JSON. */
export function changeOfOriginal(original: OriginalRecord): TableChange {
  let change: NonNullable<DynamoDBRecord['dynamodb']>;
  try {
    change = JSON.parse(original.body) as NonNullable<DynamoDBRecord['dynamodb']>;
  } catch (error) {
    throw new MalformedEntryError('the original body is not a DynamoDB stream record', { cause: error });
  }
  if (!change?.Keys) throw new MalformedEntryError('the original DynamoDB stream record has no Keys');
  return changeOf(original.attributes?.eventName ?? '', change);
}

function changeOf(eventName: string, change: NonNullable<DynamoDBRecord['dynamodb']>): TableChange {
  return {
    eventName: eventName || (change.NewImage ? 'MODIFY' : 'REMOVE'),
    keys: toSdkItem(change.Keys ?? {}),
    newImage: change.NewImage && toSdkItem(change.NewImage),
    sequenceNumber: change.SequenceNumber,
  };
}

/**
 * Re-emits one change if the item still holds its new image.
 *
 * @param now - the marker's value (ISO-8601), so that each redrive is a real change of the item.
 */
export async function reemitChange(dynamodb: DynamoDBClient, tableName: string, change: TableChange, options: { readonly dryRun: boolean; readonly now: string }): Promise<ReemitOutcome> {
  if (change.eventName === 'REMOVE' || !change.newImage) return { status: 'unreplayable', reason: `a ${change.eventName || 'change'} without a new image cannot be re-emitted from the table` };
  const { Item } = await dynamodb.send(new GetItemCommand({ TableName: tableName, Key: change.keys, ConsistentRead: true }));
  if (!Item) return { status: 'superseded', reason: 'the item has been deleted since' };
  if (canonicalItem(Item, REDRIVE_MARKER_ATTRIBUTE) !== canonicalItem(change.newImage, REDRIVE_MARKER_ATTRIBUTE)) {
    return { status: 'superseded', reason: 'the item has changed since: a later stream record carries its current state' };
  }
  if (options.dryRun) return { status: 'would-re-emit' };
  return touch(dynamodb, tableName, change.keys, change.newImage, options.now);
}

async function touch(dynamodb: DynamoDBClient, tableName: string, keys: Record<string, AttributeValue>, image: Record<string, AttributeValue>, now: string): Promise<ReemitOutcome> {
  const guarded = Object.entries(image).filter(([name]) => name !== REDRIVE_MARKER_ATTRIBUTE);
  const names: Record<string, string> = { '#marker': REDRIVE_MARKER_ATTRIBUTE };
  const values: Record<string, AttributeValue> = { ':now': { S: now } };
  guarded.forEach(([name, value], index) => {
    names[`#a${index}`] = name;
    values[`:v${index}`] = value;
  });
  try {
    await dynamodb.send(new UpdateItemCommand({
      TableName: tableName,
      Key: keys,
      UpdateExpression: 'SET #marker = :now',
      ConditionExpression: guarded.map((_, index) => `#a${index} = :v${index}`).join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    }));
    return { status: 're-emitted' };
  } catch (error) {
    if ((error as Error | undefined)?.name === 'ConditionalCheckFailedException') return { status: 'superseded', reason: 'the item changed while redriving' };
    throw error;
  }
}

/** `arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>` -> `<name>`. */
export function tableNameOfStreamArn(streamArn: string): string {
  const name = /:table\/([^/]+)/.exec(streamArn)?.[1];
  if (!name) throw new MalformedEntryError(`not a DynamoDB table stream ARN: ${streamArn}`);
  return name;
}
