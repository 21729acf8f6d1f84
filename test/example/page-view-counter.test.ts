/**
 * page-view-counter, driven through its exported factory with fake AWS clients: the effects a page
 * view makes, the transactions that carry them with their dedup puts, what reaches the DLQ, and
 * the settings it reads from the environment. Whether DynamoDB really dedups is for the
 * integration tests.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import * as pageViewCounter from '../../example/handlers/page-view-counter';
import { ConfigurationError } from '../../lambdas/runtime/core/errors';
import { createEnvelope } from '../../lambdas/runtime/producing/producer';
import { pageView, sqsEvent, sqsRecord } from '../helpers/events';
import { awsError, FakeClient } from '../helpers/fakes';
import { dedupIds, DLQ_URL, dlqWrappers, fakeClients, increments, RETRY, transactions, type Fakes } from './handler-fakes';

describe('pageViewEffects', () => {
  test('counts one view on the page and one on the UTC day', () => {
    expect(pageViewCounter.pageViewEffects('counters', 'home', '2026-11-30T10:00:00Z')).toEqual([
      { kind: 'increment', table: 'counters', key: { pk: 'page#home' }, attribute: 'views', amount: 1 },
      { kind: 'increment', table: 'counters', key: { pk: 'day#2026-11-30' }, attribute: 'views', amount: 1 },
    ]);
  });

  test.each([
    ['late evening west of UTC is the next UTC day', '2026-11-30T23:30:00-02:00', 'day#2026-12-01'],
    ['early morning east of UTC is the previous UTC day', '2026-12-01T00:30:00+02:00', 'day#2026-11-30'],
    ['the last millisecond of a UTC day', '2026-11-30T23:59:59.999Z', 'day#2026-11-30'],
    ['the first millisecond of a UTC day', '2026-12-01T00:00:00.000Z', 'day#2026-12-01'],
    ['across a year boundary', '2026-12-31T20:00:00-05:00', 'day#2027-01-01'],
    ['a leap day', '2028-02-29T12:00:00Z', 'day#2028-02-29'],
  ])('%s', (_label, occurredAt, dayKey) => {
    const [, day] = pageViewCounter.pageViewEffects('counters', 'home', occurredAt);
    expect(day.key).toEqual({ pk: dayKey });
  });
});

describe('page-view-counter', () => {
  function counter(fakes: Fakes, overrides: Partial<pageViewCounter.PageViewCounterConfig> = {}) {
    return pageViewCounter.createPageViewCounter({
      countersTable: 'counters',
      idempotencyTable: 'idempotency',
      dlqUrl: DLQ_URL,
      sourceQueueUrl: 'http://localhost:4566/000000000000/page-views',
      clients: fakes.clients,
      retry: RETRY,
      ...overrides,
    });
  }

  const viewV2 = (pageId: string, viewId: string) =>
    createEnvelope({ type: 'page.viewed', businessKey: `${pageId}:${viewId}`, source: 'web-v2', payload: { schemaVersion: 2, page: { id: pageId } }, occurredAt: '2026-11-30T10:00:00.000Z' });

  test('a batch of views commits in one transaction: a dedup put per event, one summed ADD per page and per day', async () => {
    const fakes = fakeClients();
    const events = [pageView('home', 'v-1'), pageView('home', 'v-2'), pageView('about', 'v-3')];
    const response = await counter(fakes)(sqsEvent(...events.map((event) => sqsRecord(event))));

    expect(response.batchItemFailures).toEqual([]);
    const [actions, ...others] = transactions(fakes.dynamodb);
    expect(others).toEqual([]);
    expect(dedupIds(actions)).toEqual(events.map((event) => `page-view-counter#${event.eventId}`));
    expect(increments(actions)).toEqual({ 'page#home': 2, 'page#about': 1, 'day#2026-11-30': 3 });
  });

  test('the same view delivered twice in one batch is counted once', async () => {
    const fakes = fakeClients();
    const view = pageView('home', 'v-1');
    const response = await counter(fakes)(sqsEvent(sqsRecord(view), sqsRecord(view)));
    expect(response.batchItemFailures).toEqual([]);
    const [actions] = transactions(fakes.dynamodb);
    expect(dedupIds(actions)).toHaveLength(1);
    expect(increments(actions)).toEqual({ 'page#home': 1, 'day#2026-11-30': 1 });
  });

  test('a view counted in an earlier invocation is recognised from the cancellation and the others commit without it', async () => {
    const counted = pageView('home', 'v-1');
    const fresh = pageView('about', 'v-2');
    const dynamodb = new FakeClient((_command, call) => {
      if (call > 1) return {};
      throw new TransactionCanceledException({
        message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None, None, None, None]',
        $metadata: { httpStatusCode: 400 },
        CancellationReasons: [{ Code: 'ConditionalCheckFailed', Item: { id: { S: `page-view-counter#${counted.eventId}` } } }, { Code: 'None' }, { Code: 'None' }, { Code: 'None' }, { Code: 'None' }],
      });
    });
    const fakes = fakeClients(dynamodb);
    const response = await counter(fakes)(sqsEvent(sqsRecord(counted), sqsRecord(fresh)));

    expect(response.batchItemFailures).toEqual([]);
    const [, retried] = transactions(dynamodb);
    expect(dedupIds(retried)).toEqual([`page-view-counter#${fresh.eventId}`]);
    expect(increments(retried)).toEqual({ 'page#about': 1, 'day#2026-11-30': 1 });
  });

  test('a schema-2 payload before ACCEPT_SCHEMA_V2 is a schema violation in the DLQ; the rest of the batch is counted', async () => {
    const fakes = fakeClients();
    const v2 = viewV2('pricing', 'v-9');
    const response = await counter(fakes)(sqsEvent(sqsRecord(pageView('home', 'v-1')), sqsRecord(v2, { messageId: 'm-v2' })));

    expect(response.batchItemFailures).toEqual([]);
    const [wrapper] = dlqWrappers(fakes.sqs);
    expect(wrapper).toMatchObject({ consumer: 'page-view-counter', reason: 'permanent', eventId: v2.eventId, source: { itemIdentifier: 'm-v2' }, error: { name: 'SchemaViolationError', kind: 'permanent' } });
    expect(wrapper.error.details?.issues).toEqual([expect.stringContaining('ACCEPT_SCHEMA_V2=true')]);
    expect(JSON.parse(wrapper.original.body)).toEqual(v2);
    const committed = transactions(fakes.dynamodb).flat();
    expect(dedupIds(committed)).toEqual([`page-view-counter#${pageView('home', 'v-1').eventId}`]);
  });

  test('with acceptSchemaV2 a schema-2 payload counts on its page', async () => {
    const fakes = fakeClients();
    const response = await counter(fakes, { acceptSchemaV2: true })(sqsEvent(sqsRecord(viewV2('pricing', 'v-9'))));
    expect(response.batchItemFailures).toEqual([]);
    expect(increments(transactions(fakes.dynamodb)[0])).toEqual({ 'page#pricing': 1, 'day#2026-11-30': 1 });
    expect(dlqWrappers(fakes.sqs)).toEqual([]);
  });

  test.each([
    ['no page id at all', {}],
    ['a schema-2 shape without its version', { page: { id: 'home' } }],
    ['an empty page id', { pageId: '' }],
    ['an unknown schema version', { schemaVersion: 3, pageId: 'home' }],
  ])('a payload with %s goes to the DLQ as a schema violation', async (_label, payload) => {
    const fakes = fakeClients();
    const envelope = { ...pageView('home', 'v-1'), payload };
    const response = await counter(fakes)(sqsEvent(sqsRecord(envelope)));
    expect(response.batchItemFailures).toEqual([]);
    expect(dlqWrappers(fakes.sqs).map((wrapper) => wrapper.error.name)).toEqual(['SchemaViolationError']);
    expect(transactions(fakes.dynamodb)).toEqual([]);
  });

  test('a throttled table: the messages are reported and their next delivery pushed out on the configured queue', async () => {
    const dynamodb = new FakeClient(() => {
      throw awsError('ProvisionedThroughputExceededException', 400);
    });
    const fakes = fakeClients(dynamodb);
    const response = await counter(fakes)(sqsEvent(sqsRecord(pageView('home', 'v-1'), { messageId: 'm-1', receiveCount: 2 })));

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-1' }]);
    expect(dynamodb.commands).toHaveLength(RETRY.maxAttempts);
    const [change] = fakes.sqs.commandsNamed('ChangeMessageVisibilityBatchCommand');
    expect(change.input).toMatchObject({ QueueUrl: 'http://localhost:4566/000000000000/page-views', Entries: [{ Id: '0', ReceiptHandle: 'handle-m-1' }] });
  });

  test('a throttled table on the last attempt sends the view to the DLQ instead', async () => {
    const fakes = fakeClients(new FakeClient(() => {
      throw awsError('ProvisionedThroughputExceededException', 400);
    }));
    const response = await counter(fakes, { maxAttempts: 3 })(sqsEvent(sqsRecord(pageView('home', 'v-1'), { messageId: 'm-1', receiveCount: 3 })));
    expect(response.batchItemFailures).toEqual([]);
    expect(dlqWrappers(fakes.sqs)).toEqual([expect.objectContaining({ reason: 'last-attempt', attempts: 3 })]);
  });

  test('per-record mode commits one transaction per event', async () => {
    const fakes = fakeClients();
    await counter(fakes, { mode: 'per-record' })(sqsEvent(sqsRecord(pageView('home', 'v-1')), sqsRecord(pageView('home', 'v-2')), sqsRecord(pageView('about', 'v-3'))));
    const committed = transactions(fakes.dynamodb);
    expect(committed).toHaveLength(3);
    for (const actions of committed) expect(dedupIds(actions)).toHaveLength(1);
  });

  test('the consumer name from the configuration prefixes the dedup keys', async () => {
    const fakes = fakeClients();
    const view = pageView('home', 'v-1');
    await counter(fakes, { consumerName: 'page-view-counter-eu' })(sqsEvent(sqsRecord(view)));
    expect(dedupIds(transactions(fakes.dynamodb)[0])).toEqual([`page-view-counter-eu#${view.eventId}`]);
  });

  describe('configFromEnv', () => {
    const env = { COUNTERS_TABLE: 'counters', IDEMPOTENCY_TABLE: 'idem', DLQ_URL, MAX_ATTEMPTS: '4', ACCEPT_SCHEMA_V2: 'true', SOURCE_QUEUE_URL: 'q', DEDUP_TTL_SECONDS: '86400' };

    test('reads every setting', () => {
      expect(pageViewCounter.configFromEnv(env)).toMatchObject({
        countersTable: 'counters',
        idempotencyTable: 'idem',
        dlqUrl: DLQ_URL,
        maxAttempts: 4,
        acceptSchemaV2: true,
        sourceQueueUrl: 'q',
        dedupTtlSeconds: 86_400,
        consumerName: 'page-view-counter',
      });
    });

    test.each([
      ['COUNTERS_TABLE missing', { COUNTERS_TABLE: undefined }, 'COUNTERS_TABLE'],
      ['IDEMPOTENCY_TABLE empty', { IDEMPOTENCY_TABLE: '' }, 'IDEMPOTENCY_TABLE'],
      ['ACCEPT_SCHEMA_V2 not a boolean', { ACCEPT_SCHEMA_V2: 'yes' }, 'ACCEPT_SCHEMA_V2'],
      ['MAX_ATTEMPTS zero', { MAX_ATTEMPTS: '0' }, 'MAX_ATTEMPTS'],
    ])('fails with a ConfigurationError naming the variable: %s', (_label, change, name) => {
      expect(() => pageViewCounter.configFromEnv({ ...env, ...change })).toThrow(ConfigurationError);
      expect(() => pageViewCounter.configFromEnv({ ...env, ...change })).toThrow(name);
    });
  });
});
