/**
 * `dlq inspect` labels a SQL consumer's DLQ messages whose event was applied already, from its
 * dedup rows read through the RDS Data API: a real `@aws-sdk/client-rds-data` client, the local
 * Data API gateway and a real PostgreSQL, where the SQL strategy (over `DataApiSession`) committed
 * the events it applied. What it never applied is not labelled; a read the Data API refuses labels
 * nothing and says why.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { DataApiSession, type Envelope } from '../../../lambdas/runtime';
import { LOCAL_CLUSTER_ARN, LOCAL_SECRET_ARN } from '../../../emulator/gateway/data-api-gateway';
import { inspectQueue, type DlqContext, type SqlDedupStore } from '../../../operations/dlq';
import { localDataApi } from '../../helpers/data-api';
import { createQueue, uniqueName } from '../../helpers/engines';
import { sqsEvent } from '../../helpers/events';
import { createLedger, entry, ledgerConsumer, recordOf, type Ledger } from '../../lambdas/runtime/stores/postgres/ledger-fixture';
import { contextOf, dlqTestClients, FAST_SWEEP, topologyOf } from './support';

/** The ledger fixture's consumer name: the prefix of its dedup keys. */
const CONSUMER = 'ledger';

const { clients, streams } = dlqTestClients();
const dataApi = localDataApi();

/** A source queue and its DLQ, holding the given events as SQS moves them (bare, no context). */
async function dlqHolding(events: readonly Envelope<unknown>[]): Promise<{ source: { url: string; arn: string }; dlq: { url: string; arn: string } }> {
  const [source, dlq] = [await createQueue(clients.sqs, uniqueName('sql-source')), await createQueue(clients.sqs, uniqueName('sql-dlq'))];
  for (const event of events) await clients.sqs.send(new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: JSON.stringify(event) }));
  return { source, dlq };
}

/** The stack as `dlq inspect` finds it: the ledger consumer reads the source queue, its dedup rows in `store`. */
function contextFor(queues: Awaited<ReturnType<typeof dlqHolding>>, store: Partial<SqlDedupStore>, options: { readonly withoutDataApi?: boolean } = {}): DlqContext {
  const sqlDedup = { functionName: 'ledger-function', table: 'eo_dedup', resourceArn: LOCAL_CLUSTER_ARN, secretArn: LOCAL_SECRET_ARN, database: dataApi().postgres.connection.database, ...store };
  const consumerWindows = [{ consumer: CONSUMER, sourceArn: queues.source.arn, dedupTtlSeconds: 30 * 86_400, sqlDedup }];
  const base = contextOf(clients, streams, topologyOf({ dlq: queues.dlq, sources: [{ role: 'redrive', arn: queues.source.arn }], queues: [queues.source], consumerWindows }));
  return options.withoutDataApi ? base : { ...base, clients: { ...base.clients, rdsData: dataApi().client } };
}

async function applied(ledger: Ledger, events: readonly Envelope<unknown>[]): Promise<void> {
  const consumer = ledgerConsumer(ledger, new DataApiSession({ client: dataApi().client, resourceArn: LOCAL_CLUSTER_ARN, secretArn: LOCAL_SECRET_ARN }));
  expect((await consumer.handle(sqsEvent(...events.map((event) => recordOf(event))))).batchItemFailures).toEqual([]);
}

test('inspect labels a SQL consumer\'s message as already applied when its dedup row exists, and nothing else', async () => {
  const ledger = await createLedger(dataApi().postgres.connection);
  const [paid, unpaid] = [entry('p-1', 'acc-a', 10), entry('p-2', 'acc-a', 20)];
  await applied(ledger, [paid]);
  const queues = await dlqHolding([paid, unpaid]);

  const inspection = await inspectQueue({ ...contextFor(queues, { table: ledger.dedup }), queue: queues.dlq.url }, { sweep: FAST_SWEEP });

  expect(inspection.appliedCheckProblems).toEqual([]);
  expect(inspection.alreadyApplied.map((event) => [event.eventId, event.consumer, event.table])).toEqual([[paid.eventId, CONSUMER, `SQL table ${ledger.dedup} in database ${dataApi().postgres.connection.database}`]]);
  expect(inspection.groups.map((group) => [group.errorType, group.count, group.applied])).toEqual([['MovedBySqs', 2, 1]]);
});

test('a read the Data API refuses (an unknown secret), or no Data API client, labels nothing and says why', async () => {
  const ledger = await createLedger(dataApi().postgres.connection);
  const paid = entry('r-1', 'acc-b', 10);
  await applied(ledger, [paid]);
  const queues = await dlqHolding([paid]);

  const refused = await inspectQueue({ ...contextFor(queues, { table: ledger.dedup, secretArn: `${LOCAL_SECRET_ARN}-unknown` }), queue: queues.dlq.url }, { sweep: FAST_SWEEP });
  expect(refused.alreadyApplied).toEqual([]);
  expect(refused.appliedCheckProblems).toEqual([expect.stringContaining(`reading ${CONSUMER}'s dedup records in SQL table ${ledger.dedup}`)]);

  const noClient = await inspectQueue({ ...contextFor(queues, { table: ledger.dedup }, { withoutDataApi: true }), queue: queues.dlq.url }, { sweep: FAST_SWEEP });
  expect(noClient.alreadyApplied).toEqual([]);
  expect(noClient.appliedCheckProblems).toEqual([expect.stringContaining('no RDS Data API client')]);
});
