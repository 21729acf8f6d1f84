/**
 * Each envelope end to end on DynamoDB Local: a real consumer (the transactional strategy in
 * batch mode, one increment per event) is fed SQS records as SNS, EventBridge and CloudEvents
 * producers shape them, and a duplicate counts once however its wrapper changed: another SNS
 * `MessageId` or EventBridge `id` (a retried publish), in one batch or in the next. A malformed
 * record among them goes to the DLQ (a real queue on the SQS engine) with its problem and field,
 * and the rest of the batch commits.
 *
 * Each second batch carries one fresh event besides the duplicates, so that its transaction
 * differs from the first batch's: a byte-identical one, sent within the same second, would share
 * its `ClientRequestToken` and succeed as an idempotent replay, and its duplicates would be
 * reported applied (still counted once) rather than caught by their dedup records.
 */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { z } from 'zod';
import type { FailureEnvelope } from '../../../../../aws/dlq-format';
import { destroyClients, type LocalClients } from '../../../../../emulator/engines';
import { createConsumer, DlqSender, EnvelopeFormat, increment, route, SourceKind, transactionalStrategy, type BatchHandler, type Envelope, type EnvelopeOptions } from '../../../../../lambdas/runtime';
import { createQueue, testClients, uniqueName } from '../../../../helpers/engines';
import { pageView, sqsEvent, sqsRecord } from '../../../../helpers/events';
import { MetricName } from '../../../../../lambdas/runtime/core/observability';
import { recordingObservability } from '../../../../helpers/fakes';
import { dlqFailures, idempotencyTable, pkTable } from '../../../../helpers/fixtures';
import { cloudEvent, ec2StateChange, eventBridgeWithEnvelope, snsNotification, snsSubscriptionConfirmation } from './fixtures';

const noWait = { sleep: async () => undefined, maxAttempts: 5 };
const PRICING = pageView('pricing', 'view-1');
const DOCS = pageView('docs', 'view-2');
const ABOUT = pageView('about', 'view-3');

let clients: LocalClients;
beforeAll(() => {
  clients = testClients();
});
afterAll(() => destroyClients(clients));

/** Page views (our envelope or a CloudEvent) count per page, EC2 state changes per instance. */
function routes(table: string) {
  const count = (pk: string) => [increment(table, { pk }, 'seen')];
  return {
    'page.viewed': route(z.object({ pageId: z.string() }), (event) => count(`page#${event.payload.pageId}`)),
    'com.example.page.viewed': route(z.object({ pageId: z.string() }), (event) => count(`page#${event.payload.pageId}`)),
    'EC2 Instance State-change Notification': route(z.object({ 'instance-id': z.string() }), (event) => count(`instance#${event.payload['instance-id']}`)),
  };
}

interface Setup {
  readonly handle: (...records: SQSRecord[]) => Promise<string[]>;
  readonly counts: () => Promise<Record<string, number>>;
  readonly dead: () => Promise<FailureEnvelope[]>;
  /** How many records the consumer reported as duplicates (in-batch twins and ones the dedup table caught). */
  readonly duplicates: () => number;
}

/** Fresh tables and DLQ, and a consumer of `envelope` that commits in batch mode. */
async function setUp(envelope: EnvelopeOptions): Promise<Setup> {
  const [idempotency, counters, dlq] = await Promise.all([idempotencyTable(clients.dynamodb), pkTable(clients.dynamodb, 'counters'), createQueue(clients.sqs, uniqueName('envelopes-dlq'))]);
  const observability = recordingObservability();
  const handler: BatchHandler = createConsumer({
    name: 'envelope-counter',
    source: SourceKind.SQS,
    envelope,
    routes: routes(counters.tableName),
    strategy: transactionalStrategy({ dynamodb: clients.dynamodb, mode: 'batch', dedup: { table: idempotency, consumer: 'envelope-counter' }, retry: noWait }),
    dlq: new DlqSender(clients.sqs, dlq.url, noWait),
    observability,
  });
  return {
    handle: async (...records) => (await handler(sqsEvent(...records))).batchItemFailures.map((failure) => failure.itemIdentifier),
    counts: () => seenCounts(counters.tableName),
    dead: () => dlqFailures(clients.sqs, dlq.url, 10, 500),
    duplicates: () => observability.counts.get(MetricName.DUPLICATES) ?? 0,
  };
}

async function seenCounts(table: string): Promise<Record<string, number>> {
  const { Items = [] } = await clients.dynamodb.send(new ScanCommand({ TableName: table, ConsistentRead: true }));
  return Object.fromEntries(Items.map((item) => unmarshall(item)).map((item) => [String(item.pk), Number(item.seen)]));
}

/** What the DLQ must hold for the one malformed record: an InvalidEnvelopeError with its problem and field, the body unchanged. */
function expectPoison(dead: readonly FailureEnvelope[], poison: SQSRecord, problem: string, field: string): void {
  expect(dead).toHaveLength(1);
  expect(dead[0]).toMatchObject({
    consumer: 'envelope-counter',
    reason: 'permanent',
    error: { name: 'InvalidEnvelopeError', kind: 'permanent', details: { problem, field } },
    source: { itemIdentifier: poison.messageId },
    original: { body: poison.body },
  });
}

const sns = (envelope: Envelope, messageId: string) => sqsRecord(snsNotification(envelope, { MessageId: messageId }));

describe('SNS notifications (raw message delivery off)', () => {
  test('one event under two MessageIds counts once, in one batch and in the next; a SubscriptionConfirmation goes to the DLQ', async () => {
    const { handle, counts, dead, duplicates } = await setUp({ format: EnvelopeFormat.SNS });
    const poison = sqsRecord(snsSubscriptionConfirmation());
    expect(await handle(sns(PRICING, 'sns-1'), sns(PRICING, 'sns-2'), poison, sns(DOCS, 'sns-3'))).toEqual([]);
    expect(await handle(sns(PRICING, 'sns-4'), sns(DOCS, 'sns-5'), sns(ABOUT, 'sns-6'))).toEqual([]);

    expect(await counts()).toEqual({ 'page#pricing': 1, 'page#docs': 1, 'page#about': 1 });
    expect(duplicates()).toBe(3);
    expectPoison(await dead(), poison, 'wrong-wrapper', 'Type');
  });

  test('a notification whose Message is not our envelope goes to the DLQ naming the inner field', async () => {
    const { handle, counts, dead } = await setUp({ format: EnvelopeFormat.SNS });
    const poison = sqsRecord(snsNotification(JSON.stringify({ ...PRICING, eventId: undefined })));
    expect(await handle(poison, sns(DOCS, 'sns-1'))).toEqual([]);
    expect(await counts()).toEqual({ 'page#docs': 1 });
    expectPoison(await dead(), poison, 'missing-field', 'Message.eventId');
  });
});

describe('EventBridge, detail our envelope', () => {
  test('one event put twice (two ids) counts once, in one batch and in the next; an AWS service event goes to the DLQ', async () => {
    const { handle, counts, dead, duplicates } = await setUp({ format: EnvelopeFormat.EVENTBRIDGE });
    const put = (envelope: Envelope) => sqsRecord(eventBridgeWithEnvelope(envelope));
    const poison = sqsRecord(ec2StateChange());
    expect(await handle(put(PRICING), put(PRICING), poison, put(DOCS))).toEqual([]);
    expect(await handle(put(PRICING), put(ABOUT))).toEqual([]);

    expect(await counts()).toEqual({ 'page#pricing': 1, 'page#docs': 1, 'page#about': 1 });
    expect(duplicates()).toBe(2);
    expectPoison(await dead(), poison, 'missing-field', 'detail.eventId');
  });
});

describe('EventBridge, an AWS service event keyed by eventIdPath', () => {
  test('one state change put twice (two ids) counts once, in one batch and in the next; one without the key goes to the DLQ', async () => {
    const { handle, counts, dead, duplicates } = await setUp({ format: EnvelopeFormat.EVENTBRIDGE, eventIdPath: 'detail.instance-id' });
    const change = (instanceId: string) => sqsRecord(ec2StateChange({ 'instance-id': instanceId, state: 'pending' }));
    const poison = sqsRecord(ec2StateChange({ state: 'pending' }));
    expect(await handle(change('i-01'), change('i-01'), poison, change('i-02'))).toEqual([]);
    expect(await handle(change('i-01'), change('i-03'))).toEqual([]);

    expect(await counts()).toEqual({ 'instance#i-01': 1, 'instance#i-02': 1, 'instance#i-03': 1 });
    expect(duplicates()).toBe(2);
    expectPoison(await dead(), poison, 'missing-field', 'detail.instance-id');
  });
});

describe('CloudEvents', () => {
  test('the same source and id counts once; the same id from another source counts again; an event without id goes to the DLQ', async () => {
    const { handle, counts, dead, duplicates } = await setUp({ format: EnvelopeFormat.CLOUDEVENTS });
    const event = (source: string, id: string) => sqsRecord(cloudEvent({ source, id }));
    const poison = sqsRecord(cloudEvent({ id: undefined }));
    expect(await handle(event('/web/storefront', 'E-1'), event('/web/storefront', 'E-1'), poison, event('/web/checkout', 'E-1'))).toEqual([]);
    expect(await handle(event('/web/storefront', 'E-1'), event('/web/checkout', 'E-1'), event('/web/storefront', 'E-2'))).toEqual([]);

    expect(await counts()).toEqual({ 'page#pricing': 3 });
    expect(duplicates()).toBe(3);
    expectPoison(await dead(), poison, 'missing-field', 'id');
  });
});
