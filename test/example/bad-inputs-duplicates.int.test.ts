/**
 * The bad-input catalogue (docs/reliability.md, "Bad inputs"): a broken producer that reuses an
 * eventId for another payload. The first payload wins, the twin is flagged by metric and error
 * log, and an honest retry of the same payload is a plain duplicate.
 */
import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import { createEnvelope, outgoingMessage, publishToSqs } from '../../lambdas/runtime';
import { destroyClients, type LocalClients } from '../../emulator/engines';
import { pageView } from '../helpers/events';
import { testClients } from '../helpers/engines';
import { countersOf, receiveAsLambdaRecords } from '../helpers/fixtures';
import { badInputHelpers, observabilitySpies, recordWithBody } from './bad-input-setup';

let clients: LocalClients;
beforeAll(() => {
  clients = testClients();
});
afterAll(() => destroyClients(clients));
afterEach(() => jest.restoreAllMocks());
const { counterSetUp, deliver, deliverQueued, dlqContents } = badInputHelpers(() => clients);

describe('page-view-counter, duplicate eventIds with different payloads (the producer is broken)', () => {
  const sameIdOtherPage = (pageId: string) => createEnvelope({ type: 'page.viewed', businessKey: 'reused-key', source: 'test', payload: { pageId }, occurredAt: '2026-11-30T10:00:00Z' });

  test('in one batch: the first wins, and the twin is flagged by metric and error log', async () => {
    const spies = observabilitySpies();
    const setup = await counterSetUp();
    const { response } = await deliver(setup, [outgoingMessage(sameIdOtherPage('first')), outgoingMessage(sameIdOtherPage('second')), outgoingMessage(pageView('good', 'a'))]);
    expect(response.batchItemFailures).toEqual([]);
    expect(await countersOf(clients.dynamodb, setup.countersTable)).toEqual({ 'page#first': 1, 'page#good': 1, 'day#2026-11-30': 2 });
    expect(spies.conflicts()).toBe(1);
    expect(spies.errors()).toEqual([[expect.stringMatching(/different payload in one batch: the producer is broken/), { eventId: sameIdOtherPage('x').eventId }]]);
    expect(await dlqContents(setup.dlq.url)).toEqual([]);
  });

  test("across batches: the dedup record's payloadHash flags the later one, which changes nothing", async () => {
    const spies = observabilitySpies();
    const setup = await counterSetUp();
    await deliver(setup, [outgoingMessage(sameIdOtherPage('first'))]);
    expect(spies.conflicts()).toBe(0);
    const { records, response } = await deliver(setup, [outgoingMessage(sameIdOtherPage('second')), outgoingMessage(pageView('good', 'a'))]);
    expect(response.batchItemFailures).toEqual([]);
    expect(await countersOf(clients.dynamodb, setup.countersTable)).toEqual({ 'page#first': 1, 'page#good': 1, 'day#2026-11-30': 2 });
    expect(spies.conflicts()).toBe(1);
    const itemIdentifier = recordWithBody(records, JSON.stringify(sameIdOtherPage('second'))).messageId;
    expect(spies.errors()).toEqual([[expect.stringMatching(/different payload: the producer is broken/), { eventId: sameIdOtherPage('x').eventId, itemIdentifier }]]);
  });

  test('across batches, arriving as a redelivery beside fresh events: flagged too', async () => {
    const spies = observabilitySpies();
    const setup = await counterSetUp();
    await deliver(setup, [outgoingMessage(sameIdOtherPage('first'))]);
    const conflicting = JSON.stringify(sameIdOtherPage('second'));
    await publishToSqs(clients.sqs, setup.queue.url, [{ body: conflicting }]);
    const [firstReceive] = await receiveAsLambdaRecords(clients.sqs, setup.queue, 1);
    await clients.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: setup.queue.url, ReceiptHandle: firstReceive?.receiptHandle, VisibilityTimeout: 0 }));
    await publishToSqs(clients.sqs, setup.queue.url, [outgoingMessage(pageView('good', 'a'))]);
    const { records, response } = await deliverQueued(setup, 2);
    expect(recordWithBody(records, conflicting).attributes.ApproximateReceiveCount).toBe('2');
    expect(response.batchItemFailures).toEqual([]);
    expect(await countersOf(clients.dynamodb, setup.countersTable)).toEqual({ 'page#first': 1, 'page#good': 1, 'day#2026-11-30': 2 });
    expect(spies.conflicts()).toBe(1);
    expect(spies.errors()).toEqual([[expect.stringMatching(/different payload: the producer is broken/), expect.objectContaining({ eventId: sameIdOtherPage('x').eventId })]]);
  });

  test('an honest producer retry (same payload) is a plain duplicate, not flagged', async () => {
    const spies = observabilitySpies();
    const setup = await counterSetUp();
    const view = pageView('retried', 'once');
    await deliver(setup, [outgoingMessage(view), outgoingMessage(view)]);
    await deliver(setup, [outgoingMessage(view)]);
    expect(await countersOf(clients.dynamodb, setup.countersTable)).toEqual({ 'page#retried': 1, 'day#2026-11-30': 1 });
    expect(spies.conflicts()).toBe(0);
  });
});
