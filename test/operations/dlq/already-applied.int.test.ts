/**
 * `dlq inspect` labels the DLQ messages whose event was applied already, from the consumer's dedup
 * records in DynamoDB Local: a message SQS (fauxqs) moved with no context after its acknowledgements
 * were lost, and a wrapper whose event a later copy applied. The real page-view-counter writes the
 * records; what it never applied is not labelled, and a lookup that fails labels nothing.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { outgoingMessage, publishToSqs, type BatchHandler, type Envelope } from '../../../lambdas/runtime';
import { EnvelopeFormat } from '../../../aws/envelope-formats';
import { inspectQueue, type ConsumerWindow, type DlqContext } from '../../../operations/dlq';
import { pageView } from '../../helpers/events';
import { snsNotification } from '../../lambdas/runtime/decoding/envelopes/fixtures';
import { MAX_RECEIVE_COUNT, pageViewConsumer, pageViewV2, type PageViewConsumer as PageViews } from './page-views';
import { consumeQueue, contextOf, dlqTestClients, FAST_SWEEP, letSqsMoveAll, topologyOf, visible } from './support';

const CONSUMER = 'page-view-counter';

const { clients, streams } = dlqTestClients();

const setUp = () => pageViewConsumer(clients, 'applied');

/** The stack as `dlq inspect` finds it: the page-view counter reads the queue, its dedup records in `dedupTable`. */
function contextFor(setup: PageViews, window: Partial<ConsumerWindow> = {}): DlqContext {
  const consumerWindows = [{ consumer: CONSUMER, sourceArn: setup.queue.arn, dedupTtlSeconds: 23 * 86_400, dedupTable: setup.idempotency, ...window }];
  return contextOf(clients, streams, topologyOf({ dlq: setup.dlq, sources: [{ role: 'redrive', arn: setup.queue.arn }], queues: [setup.queue], consumerWindows }));
}

const inspect = (setup: PageViews, context = contextFor(setup)) => inspectQueue({ ...context, queue: setup.dlq.url }, { sweep: FAST_SWEEP });

async function consume(setup: PageViews, handler: BatchHandler, envelopes: readonly Envelope[]): Promise<void> {
  await publishToSqs(clients.sqs, setup.queue.url, envelopes.map((envelope) => outgoingMessage(envelope)));
  await consumeQueue(clients.sqs, setup.queue, handler);
}

/** A copy whose every receive ended without a delete, until SQS moved it with no context. */
async function movedBySqs(setup: PageViews, body: string): Promise<void> {
  await publishToSqs(clients.sqs, setup.queue.url, [{ body }]);
  await letSqsMoveAll(clients.sqs, setup.queue.url, MAX_RECEIVE_COUNT);
}

test('inspect labels a bare message and a wrapper whose event was applied as already applied, and nothing else', async () => {
  const setup = await setUp();
  const home = pageView('home');
  await consume(setup, setup.after, [home]);
  await movedBySqs(setup, JSON.stringify(home));
  await movedBySqs(setup, JSON.stringify(pageView('pricing')));
  // Schema 2 before the fix: two wrappers; a producer's retry of `docs` is then applied by the fixed consumer.
  const [docs, blog] = [pageViewV2('docs'), pageViewV2('blog')];
  await consume(setup, setup.before, [docs, blog]);
  await consume(setup, setup.after, [docs]);

  const inspection = await inspect(setup);

  expect(inspection.alreadyApplied.map((event) => [event.eventId, event.errorType, event.consumer, event.table]).sort()).toEqual([
    [docs.eventId, 'SchemaViolationError', CONSUMER, setup.idempotency],
    [home.eventId, 'MovedBySqs', CONSUMER, setup.idempotency],
  ].sort());
  expect(inspection.groups.map((group) => [group.errorType, group.count, group.applied])).toEqual([
    ['MovedBySqs', 2, 1],
    ['SchemaViolationError', 2, 1],
  ]);
  expect(inspection.appliedCheckProblems).toEqual([]);
  expect(await visible(clients.sqs, setup.dlq.url)).toBe(4);
});

test("a bare message's event id is read as its consumer reads the body: an SNS notification, for a consumer of that envelope", async () => {
  const setup = await setUp();
  const view = pageView('pricing');
  await clients.dynamodb.send(new PutItemCommand({ TableName: setup.idempotency, Item: { id: { S: `${CONSUMER}#${view.eventId}` } } }));
  await movedBySqs(setup, JSON.stringify(snsNotification(view)));

  expect((await inspect(setup, contextFor(setup, { envelope: { format: EnvelopeFormat.SNS } }))).alreadyApplied.map((event) => event.eventId)).toEqual([view.eventId]);
  // Read as our own envelope, the notification has no event id: nothing is said either way.
  expect((await inspect(setup)).alreadyApplied).toEqual([]);
});

test('with no dedup table named, or one that cannot be read, nothing is labelled, and the failed read is said', async () => {
  const setup = await setUp();
  const home = pageView('home');
  await consume(setup, setup.after, [home]);
  await movedBySqs(setup, JSON.stringify(home));

  const unnamed = await inspect(setup, contextFor(setup, { dedupTable: undefined }));
  expect(unnamed).toMatchObject({ alreadyApplied: [], appliedCheckProblems: [] });
  const unreadable = await inspect(setup, contextFor(setup, { dedupTable: 'no-such-table' }));
  expect(unreadable.alreadyApplied).toEqual([]);
  expect(unreadable.appliedCheckProblems).toEqual([expect.stringContaining(`reading ${CONSUMER}'s dedup records in no-such-table failed`)]);
  expect(unreadable.groups.map((group) => [group.errorType, group.count, group.applied])).toEqual([['MovedBySqs', 1, 0]]);
});
