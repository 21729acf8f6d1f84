/**
 * DLQ tooling under test on the shared engines: a stack topology made of the test's own queues,
 * streams and tables, and helpers that move messages as the event source mappings would.
 */
import { ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { SQSRecord } from 'aws-lambda';
import type { BatchHandler } from '../../../lambdas/runtime';
import { destroyClients, LOCAL_REGION, type LocalClients } from '../../../emulator/engines';
import { sqsLambdaRecord } from '../../../aws/lambda/event-records';
import { deleteMessages, depthOf } from '../../../aws/sqs/peek';
import type { ConsumerWindow, DlqContext, DlqInfo, DlqSource, QueueRef, StackTopology, StreamRef, TableRef } from '../../../operations/dlq';
import { receiveAll, testClients, type CreatedQueue } from '../../helpers/engines';
import { tableStreamsClient } from '../../helpers/streams';

/** Clients of the shared engines for one test file (a DynamoDB Streams client too), destroyed after its tests. */
export function dlqTestClients(): { readonly clients: LocalClients; readonly streams: DynamoDBStreamsClient } {
  const clients = testClients();
  const streams = tableStreamsClient();
  afterAll(() => {
    destroyClients(clients);
    streams.destroy();
  });
  return { clients, streams };
}

/** Reads DLQs without waiting: the engines answer at once, so an empty receive means empty. */
export const FAST_SWEEP = { receiveWaitSeconds: 0 } as const;

export interface TopologyParts {
  readonly dlq: CreatedQueue;
  readonly sources: readonly DlqSource[];
  readonly queues?: readonly CreatedQueue[];
  readonly streams?: readonly StreamRef[];
  readonly tables?: readonly TableRef[];
  /** The consumers' dedup TTLs; none: every redrive goes unchecked. */
  readonly consumerWindows?: readonly ConsumerWindow[];
}

/** A one-DLQ stack made of the test's resources. */
export function topologyOf(parts: TopologyParts): StackTopology {
  const dlq: DlqInfo = { ...queueRef(parts.dlq), sources: parts.sources };
  return {
    stackName: 'Test',
    region: LOCAL_REGION,
    outputs: { TestDlqUrl: parts.dlq.url },
    deadLetterQueues: [dlq],
    queues: [parts.dlq, ...(parts.queues ?? [])].map(queueRef),
    streams: parts.streams ?? [],
    tables: parts.tables ?? [],
    consumerWindows: parts.consumerWindows ?? [],
  };
}

function queueRef(queue: CreatedQueue): QueueRef {
  return { name: queue.url.split('/').pop() ?? queue.url, url: queue.url, arn: queue.arn };
}

/** The context the operations get; `sqs` may carry test middleware. */
export function contextOf(clients: LocalClients, dynamodbStreams: DynamoDBStreamsClient, topology: StackTopology, sqs: SQSClient = clients.sqs): DlqContext {
  return { clients: { sqs, kinesis: clients.kinesis, dynamodb: clients.dynamodb, s3: clients.s3, dynamodbStreams, region: LOCAL_REGION }, topology };
}

/** Visible messages. */
export async function visible(sqs: SQSClient, queueUrl: string): Promise<number> {
  return (await depthOf(sqs, queueUrl)).visible;
}

/**
 * Delivers everything in the queue to `handler` as a mapping would: batches of up to 10, the
 * messages not named in `batchItemFailures` deleted. Returns the records delivered.
 */
export async function consumeQueue(sqs: SQSClient, queue: CreatedQueue, handler: BatchHandler): Promise<SQSRecord[]> {
  const delivered: SQSRecord[] = [];
  for (;;) {
    const messages = await receiveAll(sqs, queue.url, { max: 10, waitMs: 300, deleteMessages: false });
    if (messages.length === 0) return delivered;
    const records = messages.map((message) => sqsLambdaRecord(message, queue.arn, LOCAL_REGION));
    const { batchItemFailures } = await handler({ Records: records });
    if (batchItemFailures.length > 0) throw new Error(`the handler failed ${batchItemFailures.length} records`);
    await deleteMessages(sqs, queue.url, messages);
    delivered.push(...records);
  }
}

/** Receives a message until SQS moves it to the DLQ (its redrive policy's maxReceiveCount). */
export async function letSqsMoveAll(sqs: SQSClient, queueUrl: string, maxReceiveCount: number): Promise<void> {
  for (let receive = 0; receive <= maxReceiveCount; receive += 1) {
    await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 0, WaitTimeSeconds: 0 }));
  }
}

/** The bodies in a queue, read and deleted. */
export async function drainBodies(sqs: SQSClient, queueUrl: string, max = 50): Promise<Message[]> {
  return receiveAll(sqs, queueUrl, { max, waitMs: 500 });
}
