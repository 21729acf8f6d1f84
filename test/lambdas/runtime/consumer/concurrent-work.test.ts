/**
 * Two invocations of one handler at once in one process (Lambda Managed Instances, issue 40,
 * part 2): what bounds or spreads one invocation's work is its own. `directStrategy`'s
 * `concurrency` holds per invocation, so one invocation's slow handlers do not hold another's
 * events back (before, its slots were the strategy's, shared by every invocation of the process);
 * and the transactional strategy's shard lane is held per run, so transactions of two invocations
 * committing at once write different shards of a sharded counter (before, one lane per strategy
 * put both on one shard, to cancel each other with TransactionConflict on AWS, and moved both
 * together after each conflict). DynamoDB is a fake that records the transactions: which shard a
 * transaction names is the runtime's choice, not the engine's.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import { createConsumer } from '../../../../lambdas/runtime/consumer/consumer';
import { directStrategy } from '../../../../lambdas/runtime/consumer/direct-strategy';
import { SourceKind } from '../../../../lambdas/runtime/decoding/records';
import { route } from '../../../../lambdas/runtime/decoding/routes';
import { increment } from '../../../../lambdas/runtime/stores/dynamodb/effects';
import { transactionalStrategy } from '../../../../lambdas/runtime/stores/dynamodb/transactional-strategy';
import { pageView, requestContext, sqsEvent, sqsRecord } from '../../../helpers/events';
import { gate } from '../../../helpers/gate';
import { asClient, FakeClient, recordingObservability } from '../../../helpers/fakes';

test('directStrategy: a concurrency of 1 is per invocation; an invocation held by a slow handler does not hold another\'s events back', async () => {
  const held = gate();
  const started = gate();
  const applied: string[] = [];
  const handle = createConsumer({
    name: 'page-views',
    source: SourceKind.SQS,
    routes: {
      'page.viewed': route(z.object({ pageId: z.string() }), async (event) => {
        if (event.payload.pageId === 'slow') {
          started.open();
          await held.wait;
        }
        applied.push(event.payload.pageId);
      }),
    },
    strategy: directStrategy({ concurrency: 1 }),
    observability: recordingObservability(),
  });
  const a = handle(sqsEvent(sqsRecord(pageView('slow'))), requestContext('page-views', 'request-a'));
  await started.wait;
  const b = handle(sqsEvent(sqsRecord(pageView('quick'))), requestContext('page-views', 'request-b'));
  const first = await Promise.race([b.then(() => 'b answered'), delay(2_000).then(() => 'b still waiting for a\'s slot')]);
  held.open();
  await Promise.all([a, b]);
  expect(first).toBe('b answered');
  expect(applied).toEqual(['quick', 'slow']);
});

test('transactional strategy: transactions of two invocations committing at once write different shards of a sharded counter', async () => {
  // Each transaction waits until both are in flight, so that they overlap as two invocations' would.
  const bothSent = gate();
  let sent = 0;
  const dynamodb = new FakeClient(async (command) => {
    if (command.name !== 'TransactWriteItemsCommand') return {};
    sent += 1;
    if (sent === 2) bothSent.open();
    await bothSent.wait;
    return {};
  });
  // Lanes 1 and 2, in the order they are drawn.
  const draws = [1.5 / 2 ** 30, 2.5 / 2 ** 30];
  const handle = createConsumer({
    name: 'page-views',
    source: SourceKind.SQS,
    routes: { 'page.viewed': route(z.object({ pageId: z.string() }), () => [increment('counters', { pk: 'day#2026-12-07' }, 'views', 1, { shards: 8 })]) },
    strategy: transactionalStrategy({ dynamodb: asClient<DynamoDBClient>(dynamodb), dedup: { table: 'idem', consumer: 'page-views' }, random: () => draws.shift() ?? 0 }),
    observability: recordingObservability(),
  });
  const answers = await Promise.all([handle(sqsEvent(sqsRecord(pageView('a'))), requestContext('page-views', 'request-a')), handle(sqsEvent(sqsRecord(pageView('b'))), requestContext('page-views', 'request-b'))]);
  expect(answers.map((answer) => answer.batchItemFailures)).toEqual([[], []]);
  const shards = dynamodb.commandsNamed('TransactWriteItemsCommand').flatMap((command) =>
    (command.input.TransactItems as { Update?: { Key: { pk: { S: string } } } }[]).flatMap((action) => (action.Update ? [action.Update.Key.pk.S] : [])),
  );
  expect(shards).toHaveLength(2);
  expect(new Set(shards).size).toBe(2);
});
