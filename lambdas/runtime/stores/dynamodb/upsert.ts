import { ConditionalCheckFailedException, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall, type NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import type { Outcome } from '../../consumer/strategy';

/** What {@link putIfNewer} writes: a whole item, put only if the table holds no newer version of it. */
export interface VersionedPut {
  readonly table: string;
  /** The whole item, its key and version included. */
  readonly item: Readonly<Record<string, NativeAttributeValue>>;
  /** The partition key's attribute name. @default 'pk' */
  readonly keyAttribute?: string;
  /** The version attribute's name. @default 'version' */
  readonly versionAttribute?: string;
}

/**
 * Natural-key upsert with a version guard (docs/patterns/versioned-upsert.md): writes the whole
 * item unless the stored one is at the same or a newer version. Replays and out-of-order deliveries are harmless:
 * a failed guard means "already newer" and counts as success (`skipped`).
 */
export async function putIfNewer(dynamodb: DynamoDBClient, put: VersionedPut): Promise<Outcome> {
  const keyAttribute = put.keyAttribute ?? 'pk';
  const versionAttribute = put.versionAttribute ?? 'version';
  const version = put.item[versionAttribute];
  if (typeof version !== 'number' || !Number.isFinite(version)) {
    throw new TypeError(`putIfNewer: item.${versionAttribute} must be a number (given ${JSON.stringify(version)})`);
  }
  try {
    await dynamodb.send(new PutItemCommand({
      TableName: put.table,
      Item: marshall(put.item, { removeUndefinedValues: true }),
      ConditionExpression: 'attribute_not_exists(#k) OR #v < :v',
      ExpressionAttributeNames: { '#k': keyAttribute, '#v': versionAttribute },
      ExpressionAttributeValues: { ':v': { N: String(version) } },
    }));
    return { status: 'applied' };
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return { status: 'skipped', reason: `stored version is ${version} or newer` };
    throw error;
  }
}
