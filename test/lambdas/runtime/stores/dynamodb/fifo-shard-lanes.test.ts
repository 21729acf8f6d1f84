/**
 * FIFO message groups of one batch commit side by side; each must write its own shard of a sharded
 * counter, as the waves of a standard queue's batch do, or they cancel each other with
 * TransactionConflict on AWS (issue 25, item 6). DynamoDB is a fake client that records the
 * transactions: which shard a transaction names is the runtime's choice, not the engine's.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { createConsumer } from '../../../../../lambdas/runtime/consumer/consumer';
import { increment } from '../../../../../lambdas/runtime/stores/dynamodb/effects';
import { SourceKind } from '../../../../../lambdas/runtime/decoding/records';
import { route } from '../../../../../lambdas/runtime/decoding/routes';
import { transactionalStrategy } from '../../../../../lambdas/runtime/stores/dynamodb/transactional-strategy';
import { pageView, sqsEvent, sqsRecord, TEST_QUEUE_ARN } from '../../../../helpers/events';
import { asClient, FakeClient, recordingObservability } from '../../../../helpers/fakes';

const FIFO_ARN = `${TEST_QUEUE_ARN}.fifo`;
const SHARDS = 8;

function shardsWritten(dynamodb: FakeClient): string[] {
  return dynamodb.commandsNamed('TransactWriteItemsCommand').flatMap((command) =>
    (command.input.TransactItems as { Update?: { Key: { pk: { S: string } } } }[]).flatMap((action) => (action.Update ? [action.Update.Key.pk.S] : [])),
  );
}

test('the groups of a FIFO batch write different shards of the day counter', async () => {
  const dynamodb = new FakeClient(() => ({}));
  const handle = createConsumer({
    name: 'fifo-counter',
    source: SourceKind.SQS,
    routes: { 'page.viewed': route(z.object({ pageId: z.string() }), () => [increment('counters', { pk: 'day#2026-12-01' }, 'views', 1, { shards: SHARDS })]) },
    strategy: transactionalStrategy({ dynamodb: asClient<DynamoDBClient>(dynamodb), dedup: { table: 'idem', consumer: 'fifo-counter' }, random: () => 0 }),
    observability: recordingObservability(),
  });
  const records = ['a', 'b', 'c', 'd'].map((group) => sqsRecord(pageView(`p-${group}`), { messageGroupId: group, queueArn: FIFO_ARN }));

  expect((await handle(sqsEvent(...records))).batchItemFailures).toEqual([]);

  const shards = shardsWritten(dynamodb);
  expect(shards).toHaveLength(4);
  expect(new Set(shards).size).toBe(4);
});
