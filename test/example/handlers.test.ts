/**
 * The three consumers, driven through their exported factories with fake AWS clients: tiny
 * objects whose `send` records commands and answers as scripted. What is under test is ours
 * (which effects a page view makes, what reaches the DLQ, what the handlers write), not the
 * engines'. Whether DynamoDB really dedups is for the integration tests.
 *
 * Not covered here: the shipment notifier's second delivery being suppressed. That depends on the
 * Powertools idempotency record's conditional writes in DynamoDB, i.e. on the engine.
 */
import { ConditionalCheckFailedException, DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { TransactWriteItem } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import * as orderProjection from '../../example/handlers/order-projection';
import * as pageViewCounter from '../../example/handlers/page-view-counter';
import * as shipmentNotifier from '../../example/handlers/shipment-notifier';
import type { AwsClients } from '../../lambdas/runtime/clients';
import { ConfigurationError } from '../../lambdas/runtime/errors';
import { createEnvelope } from '../../lambdas/runtime/producer';
import { eventIdFor } from '../../lambdas/runtime/event-id';
import { type FailureEnvelope } from '../../aws/dlq-format';
import { dynamoEvent, dynamoRecord, kinesisEvent, kinesisRecord, orderStatus, pageView, sqsEvent, sqsRecord } from '../helpers/events';
import { asClient, awsError, FakeClient, noSleep } from '../helpers/fakes';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const DLQ_URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/dlq';
const RETRY = { sleep: noSleep, maxAttempts: 2 };

interface Fakes {
  readonly dynamodb: FakeClient;
  readonly sqs: FakeClient;
  readonly sns: FakeClient;
  readonly clients: AwsClients;
}

function fakeClients(dynamodb = new FakeClient()): Fakes {
  const sqs = new FakeClient((command) => (command.name === 'SendMessageCommand' ? { MessageId: 'dlq-1' } : { Successful: [], Failed: [] }));
  const sns = new FakeClient(() => ({ MessageId: 'sns-1' }));
  const clients: AwsClients = {
    dynamodb: asClient<DynamoDBClient>(dynamodb),
    sqs: asClient<SQSClient>(sqs),
    sns: asClient<SNSClient>(sns),
    kinesis: asClient<KinesisClient>(new FakeClient(() => {
      throw new Error('no consumer here writes to Kinesis');
    })),
  };
  return { dynamodb, sqs, sns, clients };
}

function dlqWrappers(sqs: FakeClient): FailureEnvelope[] {
  return sqs.commandsNamed('SendMessageCommand').map((command) => JSON.parse(String(command.input.MessageBody)) as FailureEnvelope);
}

function transactions(dynamodb: FakeClient): TransactWriteItem[][] {
  return dynamodb.commandsNamed('TransactWriteItemsCommand').map((command) => command.input.TransactItems as TransactWriteItem[]);
}

/** `pk -> amount` of every ADD in the actions. */
function increments(actions: readonly TransactWriteItem[]): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const action of actions) {
    if (!action.Update?.UpdateExpression?.startsWith('ADD')) continue;
    totals[String(unmarshall(action.Update.Key ?? {}).pk)] = Number(action.Update.ExpressionAttributeValues?.[':v0']?.N);
  }
  return totals;
}

function dedupIds(actions: readonly TransactWriteItem[]): string[] {
  return actions.filter((action) => action.Put).map((action) => String(action.Put?.Item?.id?.S));
}

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

describe('order-projection', () => {
  function projection(dynamodb: FakeClient) {
    const fakes = fakeClients(dynamodb);
    return { fakes, handle: orderProjection.createOrderProjection({ ordersTable: 'orders', dlqUrl: DLQ_URL, clients: fakes.clients, retry: RETRY }) };
  }

  test('writes the whole order under order#<id>, guarded by its version', async () => {
    const dynamodb = new FakeClient();
    const { handle } = projection(dynamodb);
    const event = orderStatus('o-42', 'SHIPPED', 3);
    const response = await handle(kinesisEvent(kinesisRecord(event)));

    expect(response.batchItemFailures).toEqual([]);
    const [put] = dynamodb.commandsNamed('PutItemCommand');
    expect(unmarshall(put.input.Item as never)).toEqual({ pk: 'order#o-42', orderId: 'o-42', status: 'SHIPPED', version: 3, updatedAt: event.occurredAt, eventId: event.eventId });
    expect(put.input).toMatchObject({
      TableName: 'orders',
      ConditionExpression: 'attribute_not_exists(#k) OR #v < :v',
      ExpressionAttributeNames: { '#k': 'pk', '#v': 'version' },
      ExpressionAttributeValues: { ':v': { N: '3' } },
    });
  });

  test('an older version (the guard fails) is a success, not a failure', async () => {
    const dynamodb = new FakeClient(() => {
      throw new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: { httpStatusCode: 400 } });
    });
    const { handle, fakes } = projection(dynamodb);
    const response = await handle(kinesisEvent(kinesisRecord(orderStatus('o-42', 'PAID', 1))));
    expect(response.batchItemFailures).toEqual([]);
    expect(dlqWrappers(fakes.sqs)).toEqual([]);
    expect(dynamodb.commands).toHaveLength(1);
  });

  test('a version below 1 is a schema violation in the DLQ, and the write is never attempted', async () => {
    const dynamodb = new FakeClient();
    const { handle, fakes } = projection(dynamodb);
    const response = await handle(kinesisEvent(kinesisRecord(orderStatus('o-42', 'PAID', 0), { sequenceNumber: '5' })));
    expect(response.batchItemFailures).toEqual([]);
    expect(dlqWrappers(fakes.sqs)).toEqual([expect.objectContaining({ error: expect.objectContaining({ name: 'SchemaViolationError' }), source: expect.objectContaining({ itemIdentifier: '5' }) })]);
    expect(dynamodb.commands).toEqual([]);
  });

  test('a throttled write stops the shard at that record: it and everything after it are reported', async () => {
    const dynamodb = new FakeClient((command) => {
      if ((command.input.Item as Record<string, { S?: string }>).orderId.S === 'o-2') throw awsError('ProvisionedThroughputExceededException', 400);
      return {};
    });
    const { handle } = projection(dynamodb);
    const response = await handle(kinesisEvent(
      kinesisRecord(orderStatus('o-1', 'PAID', 1), { sequenceNumber: '1' }),
      kinesisRecord(orderStatus('o-2', 'PAID', 1), { sequenceNumber: '2' }),
      kinesisRecord(orderStatus('o-3', 'PAID', 1), { sequenceNumber: '3' }),
    ));
    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual(['2', '3']);
    const written = dynamodb.commands.map((command) => (command.input.Item as Record<string, { S?: string }>).orderId.S);
    expect(written).not.toContain('o-3');
  });

  test('configFromEnv requires ORDERS_TABLE', () => {
    expect(() => orderProjection.configFromEnv({})).toThrow('ORDERS_TABLE');
    expect(orderProjection.orderKey('o-1')).toBe('order#o-1');
  });
});

describe('shipment-notifier', () => {
  /**
   * Powertools idempotency insists on a real SDK client, so this is a real DynamoDBClient whose
   * `send` is replaced: it accepts every write of the idempotency record and sends nothing.
   */
  function notifier() {
    const dynamodb = new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    const dynamodbSend = jest.spyOn(dynamodb, 'send').mockResolvedValue({} as never);
    const fakes = fakeClients();
    const clients = { ...fakes.clients, dynamodb };
    const handle = shipmentNotifier.createShipmentNotifier({ topicArn: 'arn:aws:sns:us-east-1:000000000000:shipments', idempotencyTable: 'idem', dlqUrl: DLQ_URL, clients, retry: RETRY });
    return { handle, sns: fakes.sns, sqs: fakes.sqs, dynamodbSend };
  }

  const order = (status: string, version = 3) => ({ pk: 'order#o-42', orderId: 'o-42', status, version });

  test('notificationIdFor is the order\'s one, stable notification id', () => {
    expect(shipmentNotifier.notificationIdFor('o-42')).toBe(eventIdFor('order.shipped', 'o-42'));
    expect(shipmentNotifier.notificationIdFor('o-42')).toBe(shipmentNotifier.notificationIdFor('o-42'));
    expect(shipmentNotifier.notificationIdFor('o-42')).not.toBe(shipmentNotifier.notificationIdFor('o-43'));
  });

  test.each([
    ['a status other than SHIPPED', dynamoRecord({ eventName: 'MODIFY', oldImage: order('PAID', 1), newImage: order('PACKED', 2) })],
    ['a new order', dynamoRecord({ eventName: 'INSERT', newImage: order('CREATED', 1) })],
    ['a removed order, even a shipped one', dynamoRecord({ eventName: 'REMOVE', oldImage: order('SHIPPED') })],
  ])('%s notifies nobody and touches nothing', async (_label, record) => {
    const { handle, sns, sqs, dynamodbSend } = notifier();
    const response = await handle(dynamoEvent(record));
    expect(response.batchItemFailures).toEqual([]);
    expect(sns.commands).toEqual([]);
    expect(sqs.commands).toEqual([]);
    expect(dynamodbSend).not.toHaveBeenCalled();
  });

  test('SHIPPED publishes one notification that carries its idempotency key for the receiver', async () => {
    const { handle, sns } = notifier();
    const lambdaContext = { awsRequestId: 'req-1', functionName: 'shipment-notifier', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;
    const response = await handle(dynamoEvent(dynamoRecord({ eventName: 'MODIFY', oldImage: order('PACKED', 2), newImage: order('SHIPPED', 3) })), lambdaContext);

    expect(response.batchItemFailures).toEqual([]);
    const [publish, ...more] = sns.commands;
    expect(more).toEqual([]);
    const notificationId = shipmentNotifier.notificationIdFor('o-42');
    expect(JSON.parse(String(publish.input.Message))).toEqual({ notificationId, orderId: 'o-42', status: 'SHIPPED', version: 3 });
    expect(publish.input).toMatchObject({ TopicArn: 'arn:aws:sns:us-east-1:000000000000:shipments', MessageAttributes: { eventId: { DataType: 'String', StringValue: notificationId } } });
  });

  test('configFromEnv reads the validated dedup TTL and the consumer name the construct set', () => {
    const config = shipmentNotifier.configFromEnv({ NOTIFICATIONS_TOPIC_ARN: 'arn:aws:sns:us-east-1:000000000000:n', IDEMPOTENCY_TABLE: 'idem', DEDUP_TTL_SECONDS: '1555200', CONSUMER_NAME: 'notifier-2' });
    expect(config).toMatchObject({ dedupTtlSeconds: 1_555_200, consumerName: 'notifier-2', idempotencyTable: 'idem' });
  });

  test('an image that is not an order goes to the DLQ as a schema violation', async () => {
    const { handle, sns, sqs } = notifier();
    const response = await handle(dynamoEvent(dynamoRecord({ eventName: 'MODIFY', newImage: { pk: 'order#o-42', status: 'SHIPPED' } })));
    expect(response.batchItemFailures).toEqual([]);
    expect(sns.commands).toEqual([]);
    expect(dlqWrappers(sqs).map((wrapper) => wrapper.error.name)).toEqual(['SchemaViolationError']);
  });
});
