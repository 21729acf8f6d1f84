/** Reading the local stack's final state back once it has drained. */
import { setTimeout as sleep } from 'node:timers/promises';
import { dynamoDbStreamReader } from '../../aws/streams/dynamodb-stream-reader';
import { readRange } from '../../operations/dlq';
import { DEFAULT_SQL_DEDUP_TABLE } from '../../aws/sql-dedup-table';
import { LOCAL_REGION } from '../engines';
import { output } from '../stack/outputs';
import type { LocalStack } from '../stack/runtime';
import type { StreamImage, TableRangeReader } from './pending';
import { readState, type FinalState } from './state';

/**
 * Gives the alarm evaluator two periods to see the final DLQ depths, then reads everything back
 * with the evaluator running: reading a DLQ hides its messages for a moment, and the depth alarms
 * count those in flight too, so they stay as they are (no pause needed, and none taken: the run
 * shows that a read sends no false OK).
 */
export async function settledState(stack: LocalStack): Promise<FinalState> {
  await sleep(2 * stack.alarmPeriodMs);
  await stack.alarmEvaluator.evaluateNow();
  return currentState(stack);
}

/** The state as it is now, without waiting for the alarms (e.g. for the dump of a run that failed). */
export function currentState(stack: LocalStack): Promise<FinalState> {
  return readState({
    dynamodb: stack.clients.dynamodb,
    sqs: stack.clients.sqs,
    countersTable: output(stack.outputs, 'CountersTableName'),
    ordersTable: output(stack.outputs, 'OrdersTableName'),
    ledgerTable: output(stack.outputs, 'LedgerTableName'),
    idempotencyTable: output(stack.outputs, 'IdempotencyTableName'),
    notificationsInboxUrl: inboxOf(stack, output(stack.outputs, 'NotificationsTopicArn')),
    alarmsInboxUrl: inboxOf(stack, output(stack.outputs, 'AlarmTopicArn')),
    deadLetterQueues: stack.deadLetterQueues,
    sql: stack.sql && { connection: stack.sql.postgres, database: output(stack.outputs, 'SqlDatabaseName'), dedupTable: DEFAULT_SQL_DEDUP_TABLE },
  });
}

function inboxOf(stack: LocalStack, topicArn: string): string {
  const topic = [...stack.resources.topics.values()].find((candidate) => candidate.arn === topicArn);
  if (!topic) throw new Error(`no local topic with ARN ${topicArn}`);
  return topic.inbox.url;
}

/** Reads the new images of the table-stream records an on-failure pointer covers, from the stack's streams. */
export function tableRangeReader(stack: LocalStack): TableRangeReader {
  return async (pointer) => {
    const reader = dynamoDbStreamReader({ streams: stack.dynamodbStreams, streamArn: pointer.streamArn, region: LOCAL_REGION });
    const range = { ...pointer, approximateArrivalOfFirstRecord: '', approximateArrivalOfLastRecord: '' };
    const { records } = await readRange(reader, range);
    return records.flatMap((record) => {
      const image = (record.lambdaRecord as { dynamodb?: { NewImage?: StreamImage } }).dynamodb?.NewImage;
      return image ? [image] : [];
    });
  };
}
