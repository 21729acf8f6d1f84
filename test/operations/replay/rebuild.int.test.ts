/**
 * A rebuild on kinesalite and DynamoDB Local: a Kinesis page-view counter whose generation 1 counts
 * each view twice (the deliberately wrong effect) consumed its stream; the fix is deployed as
 * generation 2, with its counts in a new table and its dedup records in the same idempotency table
 * under its own namespace. `eo replay --generation 2` fills it from the stream although generation 1
 * applied every event (its dedup records are keyed apart), `eo compare` shows where the two differ,
 * the rebuilt counts are exactly those of a correct consumer, and a second replay changes nothing:
 * the rebuild converges. The Lambda client is the in-process fake of the Invoke API
 * (../dlq/support.ts); the handlers, their tables and the stream are real.
 */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as z from 'zod';
import {
  createConsumer,
  increment,
  outgoingMessage,
  publishToKinesis,
  route,
  SourceKind,
  transactionalStrategy,
  type BatchHandler,
} from '../../../lambdas/runtime';
import type { ConsumerFunction } from '../../../operations/dlq';
import { CompareRefusedError, diffTables, pairGenerations, planReplay, runReplay } from '../../../operations/replay';
import { formatComparison } from '../../../operations/cli/compare-output';
import { createQueue, createStream, uniqueName } from '../../helpers/engines';
import { kinesisEvent, lambdaContext, pageView } from '../../helpers/events';
import { countersOf, idempotencyTable, pkTable } from '../../helpers/fixtures';
import { readKinesis } from '../../helpers/streams';
import { contextOf, dlqTestClients, inProcessLambda, topologyOf } from '../dlq/support';

const { clients, streams } = dlqTestClients();
const pageViewed = z.object({ pageId: z.string() });

/** A Kinesis page-view counter: `viewsPerEvent` is 2 in the buggy generation, 1 in the fixed one. */
function pageViewCounter(countersTable: string, dedupTable: string, generation: number, viewsPerEvent: number): BatchHandler {
  return createConsumer({
    name: 'page-view-counter',
    generation,
    source: SourceKind.KINESIS,
    routes: { 'page.viewed': route(pageViewed, (event) => [increment(countersTable, { pk: `page#${event.payload.pageId}` }, 'views', viewsPerEvent)]) },
    strategy: transactionalStrategy({ dynamodb: clients.dynamodb, mode: 'batch', dedup: { table: dedupTable, consumer: 'page-view-counter', generation } }),
  });
}

async function setUp() {
  const [stream, dlq, dedupTable, live, rebuilt, reference] = await Promise.all([
    createStream(clients.kinesis, uniqueName('rebuild-views'), 1),
    createQueue(clients.sqs, uniqueName('rebuild-dlq')),
    idempotencyTable(clients.dynamodb),
    pkTable(clients.dynamodb, 'counts-g1'),
    pkTable(clients.dynamodb, 'counts-g2'),
    pkTable(clients.dynamodb, 'counts-reference'),
  ]);
  const views = ['home', 'home', 'about', 'home', 'pricing'].map((page) => pageView(page));
  // A producer retry: the same event twice on the stream.
  await publishToKinesis(clients.kinesis, stream.streamName, [...views, views[0] as (typeof views)[number]].map((event) => outgoingMessage(event, String(event.payload.pageId))));
  const records = await readKinesis(clients.kinesis, stream.streamName);
  // Generation 1, buggy, consumed the stream once as its mapping would; a correct consumer did too, for reference.
  const buggy = pageViewCounter(live.tableName, dedupTable, 1, 2);
  expect((await buggy(kinesisEvent(...records), lambdaContext())).batchItemFailures).toEqual([]);
  expect((await pageViewCounter(reference.tableName, await idempotencyTable(clients.dynamodb), 1, 1)(kinesisEvent(...records), lambdaContext())).batchItemFailures).toEqual([]);
  const fixed = pageViewCounter(rebuilt.tableName, dedupTable, 2, 1);
  const lambda = inProcessLambda({ 'views-g1': buggy, 'views-g2': fixed });
  const generation = (functionName: string, number: number, table: string): ConsumerFunction => ({
    functionName,
    consumer: number === 1 ? 'page-view-counter' : `page-view-counter@g${number}`,
    name: 'page-view-counter',
    generation: number,
    sourceArn: stream.streamArn,
    mappingEnabled: number === 1,
    environment: { COUNTERS_TABLE: table, IDEMPOTENCY_TABLE: dedupTable },
  });
  const topology = topologyOf({
    dlq,
    sources: [{ role: 'on-failure', arn: stream.streamArn }],
    streams: [{ name: stream.streamName, arn: stream.streamArn, retentionHours: 24 }],
    tables: [live, rebuilt, dedupTable].map((table) => (typeof table === 'string' ? table : table.tableName)).map((name) => ({ name, arn: `arn:aws:dynamodb:us-east-1:000000000000:table/${name}` })),
    consumerFunctions: [generation('views-g1', 1, live.tableName), generation('views-g2', 2, rebuilt.tableName)],
  });
  return { context: contextOf(clients, streams, topology, clients.sqs, lambda), lambda, dedupTable, tables: { live: live.tableName, rebuilt: rebuilt.tableName, reference: reference.tableName } };
}

async function replayGeneration2(setup: Awaited<ReturnType<typeof setUp>>) {
  const nowMs = Date.now();
  return runReplay(setup.context, planReplay(setup.context.topology, 'page-view-counter', { fromMs: nowMs - 3_600_000, toMs: nowMs }, { nowMs, generation: 2 }));
}

test('a wrong effect, fixed in generation 2 and rebuilt from the stream, converges to what a correct consumer makes', async () => {
  const setup = await setUp();
  expect(await countersOf(clients.dynamodb, setup.tables.live)).toEqual({ 'page#home': 6, 'page#about': 2, 'page#pricing': 2 });

  // The replay goes to generation 2's function only, and applies every event although generation 1
  // applied them all: its dedup records are `page-view-counter@g2#<eventId>`, apart.
  const rebuild = await replayGeneration2(setup);
  expect(rebuild.totals).toEqual({ records: 6, applied: 5, duplicates: 1, skipped: 0, permanent: 0, reported: 0 });
  expect(rebuild.complete).toBe(true);
  expect(new Set(setup.lambda.invocations.map((invocation) => invocation.functionName))).toEqual(new Set(['views-g2']));
  expect(await countersOf(clients.dynamodb, setup.tables.rebuilt)).toEqual(await countersOf(clients.dynamodb, setup.tables.reference));
  const ids = (await clients.dynamodb.send(new ScanCommand({ TableName: setup.dedupTable }))).Items?.map((item) => String(unmarshall(item).id)) ?? [];
  expect(ids.filter((id) => id.startsWith('page-view-counter@g2#'))).toHaveLength(5);
  expect(ids.filter((id) => id.startsWith('page-view-counter#'))).toHaveLength(5);

  // The compare pairs the table each generation names under COUNTERS_TABLE (not the shared
  // idempotency table) and shows every page's count differing.
  const pair = pairGenerations(setup.context.topology, 'page-view-counter', 2);
  expect(pair.tables).toEqual([{ variable: 'COUNTERS_TABLE', live: setup.tables.live, next: setup.tables.rebuilt }]);
  const diff = await diffTables(clients.dynamodb, pair.tables[0] as (typeof pair.tables)[number]);
  expect(diff).toMatchObject({ same: false, equal: 0, differing: 3, onlyLive: 0, onlyNext: 0 });
  expect(formatComparison('page-view-counter', 1, 2, [diff])).toContain('differs pk=page#home');

  // A second replay applies nothing: the rebuild has converged.
  const again = await replayGeneration2(setup);
  expect(again.totals).toMatchObject({ records: 6, applied: 0, duplicates: 6 });
  expect(await countersOf(clients.dynamodb, setup.tables.rebuilt)).toEqual({ 'page#home': 3, 'page#about': 1, 'page#pricing': 1 });
  // Held against the correct consumer's table, the rebuilt one is the same.
  expect((await diffTables(clients.dynamodb, { variable: 'COUNTERS_TABLE', live: setup.tables.reference, next: setup.tables.rebuilt })).same).toBe(true);
});

test('the compare refuses what it cannot compare: an unknown consumer or generation, or generations that share their tables', async () => {
  const setup = await setUp();
  const { topology } = setup.context;
  expect(() => pairGenerations(topology, 'no-such-consumer', 2)).toThrow('no consumer of Test is named "no-such-consumer" (its consumers: page-view-counter)');
  expect(() => pairGenerations(topology, 'page-view-counter', 3)).toThrow('page-view-counter has no generation 3 (its generations: 1, 2)');
  expect(() => pairGenerations(topology, 'page-view-counter', 2, 2)).toThrow(CompareRefusedError);
  const shared = { ...topology, consumerFunctions: topology.consumerFunctions.map((fn) => ({ ...fn, environment: { ...fn.environment, COUNTERS_TABLE: setup.tables.live } })) };
  expect(() => pairGenerations(shared, 'page-view-counter', 2)).toThrow(/write to the same tables \(COUNTERS_TABLE\): there is nothing apart to compare/);
  // A replay names a generation the stack does not have.
  const nowMs = Date.now();
  expect(() => planReplay(topology, 'page-view-counter', { fromMs: nowMs - 60_000, toMs: nowMs }, { nowMs, generation: 3 })).toThrow('no consumer of Test is named "page-view-counter@g3" (its consumers: page-view-counter, page-view-counter@g2)');
});
