/**
 * Triage and redrive of an SQS DLQ on fauxqs and DynamoDB Local, with failures the real
 * page-view-counter wrote: the fix is deployed (`acceptSchemaV2`), the failures redriven, and the
 * counts must come out exact however often a message is redriven.
 */
import { outgoingMessage, publishToSqs, type Envelope } from '../../../lambdas/runtime';
import { ARRIVED_DURING_REDRIVE, inspectQueue, listDlqs, redriveQueue, type DlqContext } from '../../../operations/dlq';
import { sqsClient } from '../../../emulator/engines';
import { testEndpoints } from '../../helpers/engines';
import { pageView } from '../../helpers/events';
import { countersOf } from '../../helpers/fixtures';
import { injectFaults, serviceError } from '../../helpers/sdk';
import { MAX_RECEIVE_COUNT, pageViewConsumer, pageViewV2, type PageViewConsumer } from './page-views';
import { consumeQueue, contextOf, dlqTestClients, drainBodies, FAST_SWEEP, letSqsMoveAll, topologyOf, visible } from './support';

const { clients, streams } = dlqTestClients();

interface PageViews extends PageViewConsumer {
  readonly context: DlqContext;
}

async function setUp(): Promise<PageViews> {
  const consumer = await pageViewConsumer(clients, 'page-views');
  const topology = topologyOf({ dlq: consumer.dlq, sources: [{ role: 'redrive', arn: consumer.queue.arn }], queues: [consumer.queue] });
  return { ...consumer, context: contextOf(clients, streams, topology) };
}

/** Publishes through the real queue and lets the consumer before the fix handle everything. */
async function publishAndConsume(setup: PageViews, envelopes: readonly Envelope[], raw: readonly string[] = []): Promise<void> {
  await publishToSqs(clients.sqs, setup.queue.url, [...envelopes.map((envelope) => outgoingMessage(envelope)), ...raw.map((body) => ({ body }))]);
  await consumeQueue(clients.sqs, setup.queue, setup.before);
}

/** A valid page view the consumer never got to: SQS moved it after maxReceiveCount receives. */
async function movedBySqs(setup: PageViews, envelope: Envelope): Promise<void> {
  await publishToSqs(clients.sqs, setup.queue.url, [outgoingMessage(envelope)]);
  await letSqsMoveAll(clients.sqs, setup.queue.url, MAX_RECEIVE_COUNT);
}

const redrive = (setup: PageViews, options: Parameters<typeof redriveQueue>[1] = {}, context: DlqContext = setup.context) =>
  redriveQueue({ ...context, queue: setup.dlq.url }, { sweep: FAST_SWEEP, ...options });

test('inspect groups the failures by error type and consumer, with one example each, and leaves the DLQ as it was', async () => {
  const setup = await setUp();
  await movedBySqs(setup, pageView('pricing', 'moved'));
  // A schema-2 view too large for a wrapper: its context travels in eo-* attributes instead.
  const large = pageViewV2('big', '"'.repeat(300_000));
  await publishAndConsume(setup, [pageView('home', 'ok'), pageViewV2('docs'), pageViewV2('blog'), large], ['{"eventId": 42}']);

  const inspection = await inspectQueue({ ...setup.context, queue: 'TestDlqUrl' }, { sweep: FAST_SWEEP });

  expect(inspection.total).toBe(5);
  expect(inspection.groups.map((group) => [group.kind, group.errorType, group.consumer, group.count])).toEqual([
    ['wrapper', 'SchemaViolationError', 'page-view-counter', 2],
    ['wrapper', 'InvalidEnvelopeError', 'page-view-counter', 1],
    ['bare', 'MovedBySqs', undefined, 1],
    ['attributes', 'SchemaViolationError', 'page-view-counter', 1],
  ]);
  const [schema] = inspection.groups;
  expect(schema?.example).toMatchObject({ eventType: 'page.viewed', reason: 'permanent', attempts: 1, source: expect.stringContaining(setup.queue.arn) });
  expect(schema?.example.message).toMatch(/ACCEPT_SCHEMA_V2/);
  expect(schema?.example.original).toMatch(/"schemaVersion":2/);
  expect(Date.parse(schema?.firstSeen ?? '')).toBeLessThanOrEqual(Date.parse(schema?.lastSeen ?? ''));
  expect(inspection.groups.find((group) => group.kind === 'attributes')?.example.eventId).toBe(large.eventId);
  expect(await visible(clients.sqs, setup.dlq.url)).toBe(5);
});

test('list shows the depth and the age of the oldest message', async () => {
  const setup = await setUp();
  await publishAndConsume(setup, [pageViewV2('docs')]);
  const [listing] = await listDlqs(setup.context, { sweep: FAST_SWEEP, now: () => new Date(Date.now() + 90_000) });
  expect(listing).toMatchObject({ name: setup.dlq.url.split('/').pop(), visible: 1, inFlight: 0, peeked: 1, truncated: false, sources: [{ role: 'redrive', arn: setup.queue.arn }] });
  expect(listing?.oldestAgeSeconds).toBeGreaterThanOrEqual(89);
  expect(await visible(clients.sqs, setup.dlq.url)).toBe(1);
});

test('redrive sends back the original body and attributes, without the wrapper, and deletes only what it sent', async () => {
  const setup = await setUp();
  const docs = pageViewV2('docs');
  await movedBySqs(setup, pageView('pricing', 'moved'));
  await publishAndConsume(setup, [docs], ['not json']);

  const result = await redrive(setup, { filter: { errorType: ['SchemaViolationError', 'MovedBySqs'] } });

  expect(result).toMatchObject({ redriven: 2, skipped: 1, failed: 0, pastRetention: 0, records: 2, dryRun: false });
  expect(result.details.find((detail) => detail.status === 'skipped')).toMatchObject({ errorType: 'InvalidEnvelopeError', reason: 'not selected by the filter' });
  const back = await drainBodies(clients.sqs, setup.queue.url);
  expect(back.map((message) => message.Body).sort()).toEqual([JSON.stringify(docs), JSON.stringify(pageView('pricing', 'moved'))].sort());
  expect(back.map((message) => message.MessageAttributes?.eventId?.StringValue).sort()).toEqual([docs.eventId, pageView('pricing', 'moved').eventId].sort());
  expect(back.every((message) => !Object.keys(message.MessageAttributes ?? {}).some((name) => name.startsWith('eo-')))).toBe(true);
  expect(await visible(clients.sqs, setup.dlq.url)).toBe(1);
});

test('after the fix, a redrive counts every fixable failure exactly once, and a second redrive applies nothing twice', async () => {
  const setup = await setUp();
  await movedBySqs(setup, pageView('pricing', 'moved'));
  await publishAndConsume(setup, [pageView('home', 'ok'), pageViewV2('docs'), pageViewV2('blog'), pageViewV2('big', '"'.repeat(300_000))], ['{"eventId": 42}']);
  const fixable = { errorType: ['SchemaViolationError', 'MovedBySqs'] };

  expect(await redrive(setup, { filter: fixable })).toMatchObject({ redriven: 4, failed: 0 });
  await consumeQueue(clients.sqs, setup.queue, setup.after);
  expect(await redrive(setup, { filter: fixable })).toMatchObject({ redriven: 0, skipped: 1 });
  await consumeQueue(clients.sqs, setup.queue, setup.after);

  expect(await countersOf(clients.dynamodb, setup.countersTable)).toEqual({ 'page#home': 1, 'page#pricing': 1, 'page#docs': 1, 'page#blog': 1, 'page#big': 1, 'day#2026-11-30': 5 });
  // The malformed body stays in the DLQ: no fix makes it an event.
  expect(await visible(clients.sqs, setup.dlq.url)).toBe(1);
});

test('a message republished twice (a crash between the send and the delete) still counts once', async () => {
  const setup = await setUp();
  await publishAndConsume(setup, [pageViewV2('docs')]);
  const sqs = sqsClient(testEndpoints().sqs);
  injectFaults(sqs, { commandName: 'DeleteMessageCommand', times: 1, error: () => serviceError('InternalError', 500) });

  const first = await redrive(setup, {}, { ...setup.context, clients: { ...setup.context.clients, sqs } });
  expect(first).toMatchObject({ redriven: 0, failed: 1, stoppedEarly: expect.stringMatching(/delete/) });
  expect(first.details[0]?.reason).toMatch(/republished .* but not deleted/);
  expect(await visible(clients.sqs, setup.dlq.url)).toBe(1);
  expect(await redrive(setup)).toMatchObject({ redriven: 1, failed: 0 });
  sqs.destroy();

  const delivered = await consumeQueue(clients.sqs, setup.queue, setup.after);
  expect(delivered).toHaveLength(2);
  expect(await countersOf(clients.dynamodb, setup.countersTable)).toEqual({ 'page#docs': 1, 'day#2026-11-30': 1 });
});

test('a redrive stopped by a failed send loses nothing, and a second run finishes it', async () => {
  const setup = await setUp();
  const views = ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => pageViewV2(id));
  await publishAndConsume(setup, views);
  const sqs = sqsClient(testEndpoints().sqs);
  let sends = 0;
  injectFaults(sqs, { commandName: 'SendMessageCommand', when: () => (sends += 1) === 3, error: () => serviceError('ServiceUnavailable', 503) });

  const interrupted = await redrive(setup, {}, { ...setup.context, clients: { ...setup.context.clients, sqs } });
  sqs.destroy();
  expect(interrupted).toMatchObject({ redriven: 2, failed: 1, stoppedEarly: expect.stringMatching(/republish failed/) });
  expect(await visible(clients.sqs, setup.dlq.url)).toBe(4);

  expect(await redrive(setup)).toMatchObject({ redriven: 4, failed: 0 });
  expect(await visible(clients.sqs, setup.dlq.url)).toBe(0);
  const bodies = (await drainBodies(clients.sqs, setup.queue.url)).map((message) => message.Body);
  expect(bodies.sort()).toEqual(views.map((view) => JSON.stringify(view)).sort());
});

test('--dry-run reports what would happen and changes nothing', async () => {
  const setup = await setUp();
  await publishAndConsume(setup, [pageViewV2('docs'), pageViewV2('blog')], ['not json']);
  const before = await inspectQueue({ ...setup.context, queue: setup.dlq.url }, { sweep: FAST_SWEEP });

  const result = await redrive(setup, { dryRun: true });

  expect(result).toMatchObject({ dryRun: true, redriven: 3, records: 3, failed: 0 });
  expect(result.details.every((detail) => detail.target === setup.queue.url)).toBe(true);
  const after = await inspectQueue({ ...setup.context, queue: setup.dlq.url }, { sweep: FAST_SWEEP });
  expect(after.groups.map((group) => [group.errorType, group.count])).toEqual(before.groups.map((group) => [group.errorType, group.count]));
  expect(await visible(clients.sqs, setup.queue.url)).toBe(0);
  expect(await countersOf(clients.dynamodb, setup.countersTable)).toEqual({});
});

test('--filter selects by error type and by consumer; --max caps; --rate paces', async () => {
  const setup = await setUp();
  await publishAndConsume(setup, ['a', 'b', 'c', 'd'].map((id) => pageViewV2(id)), ['not json']);

  expect(await redrive(setup, { filter: { consumer: ['someone-else'] } })).toMatchObject({ redriven: 0, skipped: 5 });
  expect(await redrive(setup, { filter: { errorType: ['InvalidEnvelopeError'] }, dryRun: true })).toMatchObject({ redriven: 1, skipped: 4 });
  expect(await redrive(setup, { filter: { errorType: ['SchemaViolationError'] }, max: 2 })).toMatchObject({ redriven: 2, stoppedEarly: '--max 2 reached' });
  const started = Date.now();
  expect(await redrive(setup, { filter: { errorType: ['SchemaViolationError'] }, rate: 10 })).toMatchObject({ redriven: 2 });
  expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  expect(await visible(clients.sqs, setup.dlq.url)).toBe(1);
});

test('a message whose source cannot be found fails and stays in the DLQ', async () => {
  const setup = await setUp();
  await movedBySqs(setup, pageView('pricing', 'moved'));
  const orphaned = { ...setup.context, topology: topologyOf({ dlq: setup.dlq, sources: [] }) };
  const result = await redrive(setup, {}, orphaned);
  expect(result).toMatchObject({ redriven: 0, failed: 1 });
  expect(result.details[0]?.reason).toMatch(/no source queue/);
  expect(await visible(clients.sqs, setup.dlq.url)).toBe(1);
});

test('a message that reaches the DLQ after the redrive began (a redriven one failing again) is left for the next run', async () => {
  const setup = await setUp();
  await publishAndConsume(setup, [pageViewV2('docs')]);
  await new Promise((resolve) => setTimeout(resolve, 50));
  const began = new Date();
  await new Promise((resolve) => setTimeout(resolve, 50));
  await publishAndConsume(setup, [pageViewV2('blog')]);

  const result = await redrive(setup, { now: () => began });

  expect(result).toMatchObject({ selected: 1, redriven: 1, cameBack: 1, cameBackSent: 0, skipped: 0 });
  expect(result.details.find((detail) => detail.status === 'came-back')?.reason).toBe(ARRIVED_DURING_REDRIVE);
  expect((await drainBodies(clients.sqs, setup.queue.url)).map((message) => message.Body)).toEqual([JSON.stringify(pageViewV2('docs'))]);
  expect(await visible(clients.sqs, setup.dlq.url)).toBe(1);
});
