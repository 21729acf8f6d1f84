/**
 * A redrive sends only where the stack's topology says the DLQ's messages come from (issue 26,
 * item 1). The target a DLQ message names (a wrapper's `source.arn`, a pointer's `streamArn`, a
 * bare message's `DeadLetterQueueSourceArn`) is data that anyone who can send to the DLQ writes:
 * every consumer role can, and so can any code running in those functions. These tests play that
 * sender: each crafts a message naming a queue, a stream or a table stream that is not a source of
 * the DLQ, creates that target on the engines, and checks that the redrive leaves the message in
 * the DLQ, names it in the summary, and that nothing reaches the target. The genuine failures
 * beside it are redriven in the same run.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand } from '@aws-sdk/client-dynamodb-streams';
import { SendMessageCommand, type ReceiveMessageResult, type SQSClient } from '@aws-sdk/client-sqs';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { outgoingMessage, publishToKinesis, publishToSqs, SourceKind, type BatchHandler, type Envelope } from '../../../lambdas/runtime';
import { describeFailure } from '../../../lambdas/runtime/failures/failure-context';
import { DlqReason, type FailureEnvelope } from '../../../aws/dlq-format';
import { onFailureRecord } from '../../../aws/lambda/on-failure-record';
import { redriveQueue, type DlqContext, type RedriveResult } from '../../../operations/dlq';
import { sqsClient } from '../../../emulator/engines';
import { createQueue, createStream, testEndpoints, uniqueName, type CreatedQueue, type CreatedStream } from '../../helpers/engines';
import { pageView } from '../../helpers/events';
import { pkTable } from '../../helpers/fixtures';
import { readKinesis, readTableStream } from '../../helpers/streams';
import { injectFaults, serviceError } from '../../helpers/sdk';
import { pageViewConsumer, pageViewV2, type PageViewConsumer } from './page-views';
import { consumeQueue, contextOf, dlqTestClients, drainBodies, FAST_SWEEP, inProcessLambda, letSqsMoveAll, topologyOf, visible } from './support';

const { clients, streams } = dlqTestClients();

const NOT_A_SOURCE = /target not a source of this DLQ/;

const redrive = (context: DlqContext, dlq: CreatedQueue, options: Parameters<typeof redriveQueue>[1] = {}) => redriveQueue({ ...context, queue: dlq.url }, { sweep: FAST_SWEEP, ...options });

/** A wrapper in the runtime's format, as any sender can write one: it names `sourceArn` as where the record came from. */
function craftedWrapper(kind: SourceKind, sourceArn: string, body: string, consumer = 'page-view-counter'): FailureEnvelope {
  const encoding = kind === SourceKind.KINESIS ? 'base64' : 'utf8';
  const original = { body: encoding === 'base64' ? Buffer.from(body).toString('base64') : body, encoding, ...(kind === SourceKind.KINESIS && { attributes: { partitionKey: 'p-1' } }) } as const;
  return describeFailure({
    consumer,
    reason: DlqReason.PERMANENT,
    error: Object.assign(new Error('crafted'), { name: 'SchemaViolationError' }),
    record: { kind, itemIdentifier: uniqueName('m'), sourceArn, receiveCount: 1, original, raw: {} as never },
    now: new Date(),
  });
}

async function sendToDlq(dlq: CreatedQueue, body: unknown): Promise<void> {
  await clients.sqs.send(new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: JSON.stringify(body) }));
}

function refusals(result: RedriveResult): { target?: string; reason?: string }[] {
  return result.details.filter((detail) => (detail.status as string) === 'refused');
}

describe('queues', () => {
  interface PageViews extends PageViewConsumer {
    /** A queue outside the stack, in the same account: what a crafted message names. */
    readonly payments: CreatedQueue;
    readonly context: DlqContext;
  }

  async function setUp(paymentsInStack = false): Promise<PageViews> {
    const consumer = await pageViewConsumer(clients, 'targets');
    const payments = await createQueue(clients.sqs, uniqueName('payments'));
    const topology = topologyOf({ dlq: consumer.dlq, sources: [{ role: 'redrive', arn: consumer.queue.arn }], queues: [consumer.queue, ...(paymentsInStack ? [payments] : [])] });
    return { ...consumer, payments, context: contextOf(clients, streams, topology) };
  }

  /** A genuine failure of the consumer before its fix: the runtime's own wrapper, which the redrive sends back. */
  async function genuineFailure(setup: PageViews, envelope: Envelope): Promise<void> {
    await publishToSqs(clients.sqs, setup.queue.url, [outgoingMessage(envelope)]);
    await consumeQueue(clients.sqs, setup.queue, setup.before);
  }

  test('a wrapper naming a queue outside the stack is refused, left in the DLQ and named; nothing reaches that queue; the genuine failure beside it is redriven', async () => {
    const setup = await setUp();
    await genuineFailure(setup, pageViewV2('docs'));
    await sendToDlq(setup.dlq, craftedWrapper(SourceKind.SQS, setup.payments.arn, '{"transfer":{"to":"mallory","amount":1000000}}'));

    const result = await redrive(setup.context, setup.dlq);

    expect(await visible(clients.sqs, setup.payments.url)).toBe(0);
    expect(result).toMatchObject({ redriven: 1, refused: 1, failed: 0 });
    expect(refusals(result)).toEqual([expect.objectContaining({ target: setup.payments.arn, reason: expect.stringMatching(NOT_A_SOURCE) })]);
    expect(refusals(result)[0]?.reason).toContain(setup.payments.arn);
    expect(refusals(result)[0]?.reason).toMatch(/sent to the DLQ by \S+/);
    expect(await visible(clients.sqs, setup.dlq.url)).toBe(1);
    expect((await drainBodies(clients.sqs, setup.queue.url)).map((message) => message.Body)).toEqual([JSON.stringify(pageViewV2('docs'))]);
  });

  test('a wrapper naming a queue of the stack that does not feed this DLQ is refused too', async () => {
    const setup = await setUp(true);
    await sendToDlq(setup.dlq, craftedWrapper(SourceKind.SQS, setup.payments.arn, '{"transfer":1}'));

    const result = await redrive(setup.context, setup.dlq);

    expect(await visible(clients.sqs, setup.payments.url)).toBe(0);
    expect(result).toMatchObject({ redriven: 0, refused: 1 });
    expect(refusals(result)[0]?.reason).toMatch(NOT_A_SOURCE);
    expect(await visible(clients.sqs, setup.dlq.url)).toBe(1);
  });

  test('a dry run reports the refusal as a real run would', async () => {
    const setup = await setUp();
    await sendToDlq(setup.dlq, craftedWrapper(SourceKind.SQS, setup.payments.arn, '{"transfer":1}'));
    expect(await redrive(setup.context, setup.dlq, { dryRun: true })).toMatchObject({ dryRun: true, redriven: 0, refused: 1 });
    expect(await visible(clients.sqs, setup.payments.url)).toBe(0);
  });

  /**
   * SQS sets `DeadLetterQueueSourceArn` on a message it moves; fauxqs does not. This client adds it
   * to what it receives from the DLQ, as SQS would for a message moved from `sourceArn`.
   */
  function asSqsMovedFrom(sourceArn: string, dlqUrl: string): SQSClient {
    const sqs = sqsClient(testEndpoints().sqs);
    sqs.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (context.commandName !== 'ReceiveMessageCommand' || (args.input as { QueueUrl?: string }).QueueUrl !== dlqUrl) return result;
        for (const message of (result.output as ReceiveMessageResult).Messages ?? []) message.Attributes = { ...message.Attributes, DeadLetterQueueSourceArn: sourceArn };
        return result;
      },
      { step: 'initialize' },
    );
    return sqs;
  }

  test('a bare message whose DeadLetterQueueSourceArn is a queue outside the stack is refused; nothing goes back to that queue', async () => {
    const setup = await setUp();
    // Any queue of the account may name the DLQ in its redrive policy (an allow-all redrive-allow policy, as the stream consumers' DLQs have).
    const outsider = await createQueue(clients.sqs, uniqueName('outsider'), { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: setup.dlq.arn, maxReceiveCount: 1 }) });
    await publishToSqs(clients.sqs, outsider.url, [outgoingMessage(pageView('pricing', 'from-outside'))]);
    await letSqsMoveAll(clients.sqs, outsider.url, 1);
    expect(await visible(clients.sqs, setup.dlq.url)).toBe(1);
    const sqs = asSqsMovedFrom(outsider.arn, setup.dlq.url);

    const result = await redrive({ ...setup.context, clients: { ...setup.context.clients, sqs } }, setup.dlq);
    sqs.destroy();

    expect(await visible(clients.sqs, outsider.url)).toBe(0);
    expect(result).toMatchObject({ redriven: 0, refused: 1, failed: 0 });
    expect(refusals(result)).toEqual([expect.objectContaining({ target: outsider.arn, reason: expect.stringMatching(NOT_A_SOURCE) })]);
    expect(await visible(clients.sqs, setup.dlq.url)).toBe(1);
  });

  test('a bare message SQS moved from the DLQ\'s own source queue still goes back to it', async () => {
    const setup = await setUp();
    await publishToSqs(clients.sqs, setup.queue.url, [outgoingMessage(pageView('pricing', 'moved'))]);
    await letSqsMoveAll(clients.sqs, setup.queue.url, 2);
    const sqs = asSqsMovedFrom(setup.queue.arn, setup.dlq.url);

    const result = await redrive({ ...setup.context, clients: { ...setup.context.clients, sqs } }, setup.dlq);
    sqs.destroy();

    expect(result).toMatchObject({ redriven: 1, refused: 0 });
    expect((await drainBodies(clients.sqs, setup.queue.url)).map((message) => message.Body)).toEqual([JSON.stringify(pageView('pricing', 'moved'))]);
  });
});

describe('Kinesis streams', () => {
  interface Streams {
    readonly source: CreatedStream;
    /** A stream of the stack that is not a source of this DLQ. */
    readonly other: CreatedStream;
    readonly dlq: CreatedQueue;
    readonly context: DlqContext;
  }

  async function setUp(): Promise<Streams> {
    const [source, other, dlq] = await Promise.all([createStream(clients.kinesis, uniqueName('orders'), 1), createStream(clients.kinesis, uniqueName('ledger'), 1), createQueue(clients.sqs, uniqueName('orders-dlq'))]);
    const streamRefs = [source, other].map((stream) => ({ name: stream.streamName, arn: stream.streamArn, retentionHours: 24 }));
    const topology = topologyOf({ dlq, sources: [{ role: 'on-failure', arn: source.streamArn }], streams: streamRefs });
    return { source, other, dlq, context: contextOf(clients, streams, topology) };
  }

  test('a Kinesis wrapper and an on-failure pointer naming another stream are refused; that stream gets nothing', async () => {
    const setup = await setUp();
    await publishToKinesis(clients.kinesis, setup.other.streamName, [{ body: '{"entry":1}', partitionKey: 'a' }]);
    const [held] = await readKinesis(clients.kinesis, setup.other.streamName);
    await sendToDlq(setup.dlq, craftedWrapper(SourceKind.KINESIS, setup.other.streamArn, '{"entry":"forged"}', 'order-projection'));
    const sequenceNumber = held?.kinesis.sequenceNumber ?? '';
    await sendToDlq(setup.dlq, onFailureRecord({ kind: 'kinesis', condition: 'RetryAttemptsExhausted', functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:order-projection', streamArn: setup.other.streamArn, shardId: 'shardId-000000000000', records: [{ sequenceNumber, arrivalMs: Date.now() }], approximateInvokeCount: 3 }));

    const result = await redrive(setup.context, setup.dlq);

    expect(await readKinesis(clients.kinesis, setup.other.streamName)).toHaveLength(1);
    expect(result).toMatchObject({ redriven: 0, refused: 2, failed: 0, records: 0 });
    expect(refusals(result).map((refusal) => refusal.target)).toEqual([setup.other.streamArn, setup.other.streamArn]);
    expect(await readKinesis(clients.kinesis, setup.source.streamName)).toHaveLength(0);
    expect(await visible(clients.sqs, setup.dlq.url)).toBe(2);
  });

  test('a Kinesis wrapper naming its DLQ\'s source stream is redriven to it', async () => {
    const setup = await setUp();
    await sendToDlq(setup.dlq, craftedWrapper(SourceKind.KINESIS, setup.source.streamArn, '{"order":1}', 'order-projection'));
    expect(await redrive(setup.context, setup.dlq)).toMatchObject({ redriven: 1, refused: 0, records: 1 });
    expect(await readKinesis(clients.kinesis, setup.source.streamName)).toHaveLength(1);
  });
});

describe('table streams', () => {
  test('a pointer naming another table\'s stream is refused, and no function is invoked, though a consumer of the stack reads that stream', async () => {
    const [orders, ledger, dlq] = await Promise.all([pkTable(clients.dynamodb, 'orders', true), pkTable(clients.dynamodb, 'ledger', true), createQueue(clients.sqs, uniqueName('notifier-dlq'))]);
    await clients.dynamodb.send(new PutItemCommand({ TableName: ledger.tableName, Item: marshall({ pk: 'account#1', balance: 10 }) }));
    const ledgerStream = ledger.streamArn ?? '';
    const [record] = await readTableStream(streams, ledgerStream);
    const consumerFunctions = [
      { functionName: 'shipment-notifier', consumer: 'shipment-notifier', sourceArn: orders.streamArn ?? '' },
      { functionName: 'ledger-auditor', consumer: 'ledger-auditor', sourceArn: ledgerStream },
    ];
    const topology = topologyOf({ dlq, sources: [{ role: 'on-failure', arn: orders.streamArn ?? '' }], consumerFunctions });
    const took: BatchHandler = async () => ({ batchItemFailures: [] });
    const lambda = inProcessLambda({ 'shipment-notifier': took, 'ledger-auditor': took });
    await sendToDlq(dlq, onFailureRecord({ kind: 'dynamodb-stream', condition: 'RetryAttemptsExhausted', functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:ledger-auditor', streamArn: ledgerStream, shardId: await shardOf(ledgerStream), records: [tableRecordPosition(record)], approximateInvokeCount: 3 }));

    const result = await redrive(contextOf(clients, streams, topology, clients.sqs, lambda), dlq);

    expect(lambda.invocations).toEqual([]);
    expect(result).toMatchObject({ redriven: 0, refused: 1, failed: 0 });
    expect(refusals(result)).toEqual([expect.objectContaining({ target: ledgerStream, reason: expect.stringMatching(NOT_A_SOURCE) })]);
    expect(await visible(clients.sqs, dlq.url)).toBe(1);
  });

  async function shardOf(streamArn: string): Promise<string> {
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    return StreamDescription?.Shards?.[0]?.ShardId ?? '';
  }

  function tableRecordPosition(record: DynamoDBRecord | undefined): { sequenceNumber: string; arrivalMs: number } {
    return { sequenceNumber: record?.dynamodb?.SequenceNumber ?? '', arrivalMs: (record?.dynamodb?.ApproximateCreationDateTime ?? 0) * 1000 };
  }
});

describe('a missing permission', () => {
  const denied = (action: string, resource: string) => () => serviceError('AccessDenied', 403, `User: arn:aws:sts::000000000000:assumed-role/ops/me is not authorized to perform: ${action.toLowerCase()} on resource: ${resource} because no identity-based policy allows the ${action.toLowerCase()} action`);

  async function threeFailures(): Promise<PageViewConsumer & { context: DlqContext }> {
    const consumer = await pageViewConsumer(clients, 'denied');
    await publishToSqs(clients.sqs, consumer.queue.url, ['a', 'b', 'c'].map((id) => outgoingMessage(pageViewV2(id))));
    await consumeQueue(clients.sqs, consumer.queue, consumer.before);
    const topology = topologyOf({ dlq: consumer.dlq, sources: [{ role: 'redrive', arn: consumer.queue.arn }], queues: [consumer.queue] });
    return { ...consumer, context: contextOf(clients, streams, topology) };
  }

  test('denied on the first call (reading the DLQ), the redrive refuses with the permission it lacks and changes nothing', async () => {
    const setup = await threeFailures();
    const sqs = sqsClient(testEndpoints().sqs);
    injectFaults(sqs, { commandName: 'ReceiveMessageCommand', error: denied('sqs:ReceiveMessage', setup.dlq.arn) });

    const run = redrive({ ...setup.context, clients: { ...setup.context.clients, sqs } }, setup.dlq);

    await expect(run).rejects.toMatchObject({ name: 'PermissionDeniedError', message: expect.stringContaining(`lacks sqs:ReceiveMessage on ${setup.dlq.arn}`) });
    sqs.destroy();
    expect(await visible(clients.sqs, setup.dlq.url)).toBe(3);
  });

  test('denied on the first republish, the redrive stops there, names the permission, and leaves every message in the DLQ', async () => {
    const setup = await threeFailures();
    const sqs = sqsClient(testEndpoints().sqs);
    injectFaults(sqs, { commandName: 'SendMessageCommand', error: denied('sqs:SendMessage', setup.queue.arn) });

    const result = await redrive({ ...setup.context, clients: { ...setup.context.clients, sqs } }, setup.dlq);
    sqs.destroy();

    expect(result).toMatchObject({ redriven: 0, failed: 1, missingPermission: { action: 'sqs:SendMessage', resource: setup.queue.arn }, stoppedEarly: expect.stringContaining(`lacks sqs:SendMessage on ${setup.queue.arn}`) });
    expect(result.details).toHaveLength(1);
    expect(await visible(clients.sqs, setup.dlq.url)).toBe(3);
    expect(await visible(clients.sqs, setup.queue.url)).toBe(0);
  });

  test('denied on the delete after a republish, the redrive stops at that one message and names the permission', async () => {
    const setup = await threeFailures();
    const sqs = sqsClient(testEndpoints().sqs);
    injectFaults(sqs, { commandName: 'DeleteMessageCommand', error: denied('sqs:DeleteMessage', setup.dlq.arn) });

    const result = await redrive({ ...setup.context, clients: { ...setup.context.clients, sqs } }, setup.dlq);
    sqs.destroy();

    expect(result).toMatchObject({ redriven: 0, failed: 1, missingPermission: { action: 'sqs:DeleteMessage', resource: setup.dlq.arn } });
    expect(result.details).toHaveLength(1);
    expect(await visible(clients.sqs, setup.dlq.url)).toBe(3);
    expect(await visible(clients.sqs, setup.queue.url)).toBe(1);
  });
});
