/**
 * Which records of a batch keep their relative order. A Kinesis or DynamoDB Streams batch is one
 * shard's records: all of them, in order. An SQS FIFO batch keeps order within each message group
 * (`MessageGroupId`) and none between groups. A standard queue keeps none, even when its messages
 * carry a `MessageGroupId`: there it names a fair queue's tenant (SQS fair queues, 2025), so the
 * queue (its ARN ends in `.fifo`) decides, never the presence of a group id. Within an ordered group,
 * nothing may be applied after a record that failed and will come back (a transient failure): the
 * runtime then reports the rest of that group, not attempted, and other groups go on.
 */
import { SourceKind, type SourceRecord } from '../decoding/records';
import { isFifoQueue } from '../../../aws/sqs/fifo';

/** The order group of a whole stream batch. */
const SHARD = 'shard';

/** The group whose order the record keeps, or undefined when the source keeps none. */
export function orderGroupOf(record: SourceRecord): string | undefined {
  if (record.kind !== SourceKind.SQS) return SHARD;
  return isFifoQueue(record.sourceArn) ? `group:${record.messageGroupId ?? ''}` : undefined;
}

/** The items by their record's order group, each group in batch order; unordered items under `undefined`. */
export function byOrderGroup<T>(items: readonly T[], recordOf: (item: T) => SourceRecord): Map<string | undefined, T[]> {
  const groups = new Map<string | undefined, T[]>();
  for (const item of items) {
    const group = orderGroupOf(recordOf(item));
    const members = groups.get(group) ?? [];
    members.push(item);
    groups.set(group, members);
  }
  return groups;
}
