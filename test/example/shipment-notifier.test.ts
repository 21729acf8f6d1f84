/**
 * shipment-notifier, driven through its exported factory with fake AWS clients: one notification
 * per order that becomes SHIPPED, keyed on the order.
 *
 * Not covered here: the second delivery being suppressed. That depends on the Powertools
 * idempotency record's conditional writes in DynamoDB, i.e. on the engine.
 */
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import * as shipmentNotifier from '../../example/handlers/shipment-notifier';
import { eventIdFor } from '../../lambdas/runtime/events/event-id';
import { dynamoEvent, dynamoRecord } from '../helpers/events';
import { DLQ_URL, dlqWrappers, fakeClients, RETRY } from './handler-fakes';

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

  test('the notification\'s lock expires with the invocation: the handler hands the effect its Lambda context', async () => {
    const { handle, dynamodbSend } = notifier();
    const lambdaContext = { awsRequestId: 'req-1', functionName: 'shipment-notifier', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;
    const before = Date.now();
    await handle(dynamoEvent(dynamoRecord({ eventName: 'MODIFY', oldImage: order('PACKED', 2), newImage: order('SHIPPED', 3) })), lambdaContext);

    const put = dynamodbSend.mock.calls.map(([command]) => command).find((command) => command instanceof PutItemCommand) as PutItemCommand | undefined;
    const lockExpiry = Number(put?.input.Item?.in_progress_expiration?.N);
    expect(lockExpiry).toBeGreaterThanOrEqual(before + 30_000);
    expect(lockExpiry).toBeLessThanOrEqual(Date.now() + 30_000);
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
