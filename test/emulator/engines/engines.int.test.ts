// Proves that the local engines behave as AWS does in the ways the runtime relies on. If one of
// these fails after an engine upgrade, local results stop meaning anything about AWS.
import {
  DescribeTableCommand,
  GetItemCommand,
  PutItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
  type TransactWriteItemsCommandInput,
} from '@aws-sdk/client-dynamodb';
import { GetRecordsCommand, GetShardIteratorCommand, PutRecordsCommand } from '@aws-sdk/client-kinesis';
import { CreateTopicCommand, PublishCommand } from '@aws-sdk/client-sns';
import {
  ChangeMessageVisibilityCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
  type Message,
} from '@aws-sdk/client-sqs';
import { setTimeout as sleep } from 'node:timers/promises';
import { destroyClients, endpointEnv } from '../../../emulator/engines';
import { readTableStream, tableStreamsClient } from '../../helpers/streams';
import {
  createQueue,
  createStream,
  createTable,
  receiveAll,
  subscribeQueueToTopic,
  testClients,
  testEndpoints,
  uniqueName,
} from '../../helpers/engines';

const clients = testClients();
afterAll(() => destroyClients(clients));

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('DynamoDB Local', () => {
  const { dynamodb } = clients;
  let dedupTable: string;
  let countersTable: string;

  beforeAll(async () => {
    const [dedup, counters] = await Promise.all([
      createTable(dynamodb, { name: uniqueName('dedup'), partitionKey: 'id', ttlAttribute: 'expiration' }),
      createTable(dynamodb, { name: uniqueName('counters'), partitionKey: 'pk' }),
    ]);
    dedupTable = dedup.tableName;
    countersTable = counters.tableName;
  });

  /** The runtime's dedup transaction: the effect, then the dedup put guarded by attribute_not_exists. */
  function dedupTransaction(eventId: string, page: string): TransactWriteItemsCommandInput {
    return {
      TransactItems: [
        {
          Update: {
            TableName: countersTable,
            Key: { pk: { S: page } },
            UpdateExpression: 'ADD #views :one',
            ExpressionAttributeNames: { '#views': 'views' },
            ExpressionAttributeValues: { ':one': { N: '1' } },
          },
        },
        {
          Put: {
            TableName: dedupTable,
            Item: { id: { S: `page-view-counter#${eventId}` }, expiration: { N: '4102444800' } },
            ConditionExpression: 'attribute_not_exists(id)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
      ],
    };
  }

  async function views(page: string): Promise<number | undefined> {
    const { Item } = await dynamodb.send(new GetItemCommand({ TableName: countersTable, Key: { pk: { S: page } } }));
    return Item?.views?.N === undefined ? undefined : Number(Item.views.N);
  }

  async function cancelledDuplicate(): Promise<{ error: unknown; page: string; existing: Record<string, unknown> }> {
    const eventId = uniqueName('evt');
    const page = uniqueName('page');
    const existing = { id: { S: `page-view-counter#${eventId}` }, expiration: { N: '1' } };
    await dynamodb.send(new PutItemCommand({ TableName: dedupTable, Item: existing }));
    const error = await rejectionOf(dynamodb.send(new TransactWriteItemsCommand(dedupTransaction(eventId, page))));
    return { error, page, existing };
  }

  test('a failed conditional Put cancels the transaction, with ConditionalCheckFailed at its index', async () => {
    const { error, page } = await cancelledDuplicate();

    expect(error).toBeInstanceOf(TransactionCanceledException);
    const reasons = (error as TransactionCanceledException).CancellationReasons ?? [];
    expect(reasons.map((reason) => reason.Code)).toEqual(['None', 'ConditionalCheckFailed']);
    expect(await views(page)).toBeUndefined();
  });

  test('ReturnValuesOnConditionCheckFailure ALL_OLD puts the existing item in the reason', async () => {
    const { error, existing } = await cancelledDuplicate();

    const reasons = (error as TransactionCanceledException).CancellationReasons ?? [];
    expect(reasons[1]?.Item).toEqual(existing);
  });

  test('a transaction repeated with the same ClientRequestToken is applied once', async () => {
    const page = uniqueName('page');
    const input = { ...dedupTransaction(uniqueName('evt'), page), ClientRequestToken: uniqueName('token') };

    await dynamodb.send(new TransactWriteItemsCommand(input));
    await dynamodb.send(new TransactWriteItemsCommand(input));

    expect(await views(page)).toBe(1);
  });

  test('the same ClientRequestToken with different actions is rejected', async () => {
    const ClientRequestToken = uniqueName('token');
    const transaction = (): TransactWriteItemsCommand =>
      new TransactWriteItemsCommand({ ...dedupTransaction(uniqueName('evt'), uniqueName('p')), ClientRequestToken });
    await dynamodb.send(transaction());

    const error = await rejectionOf(dynamodb.send(transaction()));

    expect((error as Error).name).toBe('IdempotentParameterMismatchException');
  });

  test('a table created with a stream has a stream ARN', async () => {
    const spec = { name: uniqueName('streamed'), partitionKey: 'pk', stream: true };
    const { streamArn, tableName } = await createTable(dynamodb, spec);

    const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: tableName }));
    expect(streamArn).toMatch(/^arn:aws:dynamodb:.*\/stream\//);
    expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
  });

  test('a write to a streamed table can be read back from its stream', async () => {
    const { streamArn, tableName } = await createTable(dynamodb, { name: uniqueName('streamed'), partitionKey: 'pk', stream: true });
    await dynamodb.send(new PutItemCommand({ TableName: tableName, Item: { pk: { S: 'o-1' }, status: { S: 'PAID' } } }));
    const streams = tableStreamsClient();
    const records = await readTableStream(streams, streamArn ?? '');
    streams.destroy();
    expect(records.map((record) => [record.eventName, record.dynamodb?.NewImage])).toEqual([['INSERT', { pk: { S: 'o-1' }, status: { S: 'PAID' } }]]);
    expect(records[0]?.dynamodb?.SequenceNumber).toMatch(/^\d+$/);
  });
});

describe('fauxqs: SQS', () => {
  const { sqs } = clients;

  async function receiveOne(queueUrl: string, visibilityTimeout: number): Promise<Message | undefined> {
    const { Messages } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        AttributeNames: ['All'],
        VisibilityTimeout: visibilityTimeout,
        WaitTimeSeconds: 0,
      }),
    );
    return Messages?.[0];
  }

  async function changeVisibility(queueUrl: string, message: Message, seconds: number): Promise<void> {
    const { ReceiptHandle } = message;
    await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle, VisibilityTimeout: seconds }));
  }

  test('ApproximateReceiveCount counts each receive, after visibility expiry or ChangeMessageVisibility', async () => {
    const queue = await createQueue(sqs, uniqueName('visibility'));
    await sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'hello' }));

    const first = await receiveOne(queue.url, 1);
    expect(first?.Attributes?.ApproximateReceiveCount).toBe('1');
    expect(await receiveOne(queue.url, 1)).toBeUndefined();

    await sleep(1_200);
    const second = await receiveOne(queue.url, 30);
    expect(second?.Attributes?.ApproximateReceiveCount).toBe('2');

    await changeVisibility(queue.url, second!, 0);
    const third = await receiveOne(queue.url, 30);
    expect(third?.Attributes?.ApproximateReceiveCount).toBe('3');

    await changeVisibility(queue.url, third!, 30);
    expect(await receiveOne(queue.url, 30)).toBeUndefined();
  });

  test('a redrive policy moves a message to the DLQ after maxReceiveCount receives', async () => {
    const dlq = await createQueue(sqs, uniqueName('dlq'));
    const redrivePolicy = JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: 2 });
    const queue = await createQueue(sqs, uniqueName('source'), { RedrivePolicy: redrivePolicy });
    await sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'poison' }));

    for (let receive = 1; receive <= 2; receive++) {
      const message = await receiveOne(queue.url, 30);
      expect(message?.Attributes?.ApproximateReceiveCount).toBe(String(receive));
      await changeVisibility(queue.url, message!, 0);
    }

    expect(await receiveOne(queue.url, 30)).toBeUndefined();
    const dead = await receiveAll(sqs, dlq.url, { max: 1 });
    expect(dead.map((message) => message.Body)).toEqual(['poison']);
  });

  test('a client configured by endpointEnv() reaches fauxqs once useQueueUrlAsEndpoint is false', async () => {
    const queue = await createQueue(sqs, uniqueName('env'));
    const fromEnv = await withEnv(endpointEnv(testEndpoints()), async () => {
      const client = new SQSClient({ useQueueUrlAsEndpoint: false });
      try {
        return await client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'via env' }));
      } finally {
        client.destroy();
      }
    });

    expect(fromEnv.MessageId).toBeDefined();
    expect((await receiveAll(sqs, queue.url, { max: 1 })).map((message) => message.Body)).toEqual(['via env']);
  });
});

async function withEnv<T>(env: Record<string, string>, run: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  Object.assign(process.env, env);
  try {
    return await run();
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

describe('fauxqs: SNS to SQS', () => {
  const { sns, sqs } = clients;

  test.each([
    { rawMessageDelivery: false, body: (message: Message) => JSON.parse(message.Body ?? '{}').Message },
    { rawMessageDelivery: true, body: (message: Message) => message.Body },
  ])('a topic delivers to a subscribed queue (raw: $rawMessageDelivery)', async ({ rawMessageDelivery, body }) => {
    const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: uniqueName('alarms') }));
    const inbox = await createQueue(sqs, uniqueName('inbox'));
    await subscribeQueueToTopic(sns, { topicArn: TopicArn!, queueArn: inbox.arn, rawMessageDelivery });

    await sns.send(new PublishCommand({ TopicArn, Message: 'ALARM: dlq not empty', Subject: 'alarm' }));

    const delivered = await receiveAll(sqs, inbox.url, { max: 1 });
    expect(delivered.map(body)).toEqual(['ALARM: dlq not empty']);
  });
});

describe('kinesalite: Kinesis', () => {
  const { kinesis } = clients;

  test('records put with PutRecords read back from AT_SEQUENCE_NUMBER', async () => {
    const { streamName } = await createStream(kinesis, uniqueName('events'), 2);
    const data = ['first', 'second', 'third'].map((text) => Buffer.from(text));

    const put = await kinesis.send(
      new PutRecordsCommand({
        StreamName: streamName,
        Records: data.map((Data, index) => ({ Data, PartitionKey: `key-${index}` })),
      }),
    );
    expect(put.FailedRecordCount).toBe(0);

    const [{ ShardId, SequenceNumber }] = put.Records!;
    const { ShardIterator } = await kinesis.send(
      new GetShardIteratorCommand({
        StreamName: streamName,
        ShardId,
        ShardIteratorType: 'AT_SEQUENCE_NUMBER',
        StartingSequenceNumber: SequenceNumber,
      }),
    );
    const { Records = [] } = await kinesis.send(new GetRecordsCommand({ ShardIterator }));

    expect(Records[0]?.SequenceNumber).toBe(SequenceNumber);
    expect(Records[0]?.PartitionKey).toBe('key-0');
    expect(Buffer.from(Records[0]?.Data ?? []).toString()).toBe('first');
  });
});
