/**
 * order-projection, driven through its exported factory with fake AWS clients: the versioned
 * put it makes of each order status, and what it does with a stale version or a failing write.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as orderProjection from '../../example/handlers/order-projection';
import { kinesisEvent, kinesisRecord, orderStatus } from '../helpers/events';
import { awsError, FakeClient } from '../helpers/fakes';
import { DLQ_URL, dlqWrappers, fakeClients, RETRY } from './handler-fakes';

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
