/**
 * DLQ tooling under test on the shared engines: a stack topology made of the test's own queues,
 * streams and tables, and helpers that move messages as the event source mappings would.
 */
import { ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { Context, DynamoDBRecord, SQSRecord } from 'aws-lambda';
import type { BatchHandler } from '../../../lambdas/runtime';
import { destroyClients, lambdaClient, LOCAL_REGION, type LocalClients } from '../../../emulator/engines';
import { sqsLambdaRecord } from '../../../aws/lambda/event-records';
import { deleteMessages, depthOf } from '../../../aws/sqs/peek';
import type { ConsumerFunction, ConsumerWindow, DlqContext, DlqInfo, DlqSource, QueueRef, StackTopology, StreamRef, TableRef } from '../../../operations/dlq';
import { receiveAll, testClients, testLambdaEndpoint, type CreatedQueue } from '../../helpers/engines';
import { lambdaContext } from '../../helpers/events';
import { tableStreamsClient } from '../../helpers/streams';

/** The shared engines' clients, and a Lambda client of the global gateways' Invoke API (which serves no function). */
export type DlqTestClients = LocalClients & { readonly lambda: LambdaClient };

/** Clients of the shared engines for one test file (a DynamoDB Streams client too), destroyed after its tests. */
export function dlqTestClients(): { readonly clients: DlqTestClients; readonly streams: DynamoDBStreamsClient } {
  const clients = { ...testClients(), lambda: lambdaClient(testLambdaEndpoint()) };
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
  readonly consumerFunctions?: readonly ConsumerFunction[];
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
    consumerFunctions: parts.consumerFunctions ?? [],
  };
}

function queueRef(queue: CreatedQueue): QueueRef {
  return { name: queue.url.split('/').pop() ?? queue.url, url: queue.url, arn: queue.arn };
}

/**
 * The context the operations get; `sqs` may carry test middleware; `lambda` runs the consumers a
 * redrive invokes (by default the global gateways' Invoke API, which serves no function).
 */
export function contextOf(clients: DlqTestClients, dynamodbStreams: DynamoDBStreamsClient, topology: StackTopology, sqs: SQSClient = clients.sqs, lambda: LambdaClient = clients.lambda): DlqContext {
  return { clients: { sqs, kinesis: clients.kinesis, dynamodb: clients.dynamodb, s3: clients.s3, dynamodbStreams, lambda, region: LOCAL_REGION }, topology };
}

/** One synchronous invocation, as the in-process Lambda saw it. */
export interface Invocation {
  readonly functionName: string;
  readonly event: { readonly Records: DynamoDBRecord[] };
}

/**
 * A Lambda client whose `Invoke` runs the named consumer handler in this process, on the shared
 * engines, and answers as Lambda does (the result as payload; a throw as `FunctionError`). A fake
 * of the Invoke API only (the payload and the client context), so that the redrive's own tests need no local stack: the handlers, their
 * dedup and their DLQ sends are real. Local mode's Invoke API is tested against a running stack
 * (test/emulator).
 */
export function inProcessLambda(handlers: Readonly<Record<string, BatchHandler>>): LambdaClient & { readonly invocations: Invocation[] } {
  const invocations: Invocation[] = [];
  const send = async (command: { input: { FunctionName?: string; Payload?: Uint8Array; ClientContext?: string } }) => {
    const functionName = command.input.FunctionName ?? '';
    const event = JSON.parse(Buffer.from(command.input.Payload ?? new Uint8Array()).toString('utf8')) as Invocation['event'];
    invocations.push({ functionName, event });
    const handler = handlers[functionName];
    if (handler === undefined) throw Object.assign(new Error(`Function not found: ${functionName}`), { name: 'ResourceNotFoundException' });
    try {
      const clientContext = command.input.ClientContext === undefined ? undefined : (JSON.parse(Buffer.from(command.input.ClientContext, 'base64').toString('utf8')) as Context['clientContext']);
      return { StatusCode: 200, Payload: Buffer.from(JSON.stringify(await handler(event, { ...lambdaContext(functionName), clientContext }))) };
    } catch (error) {
      return { StatusCode: 200, FunctionError: 'Unhandled', Payload: Buffer.from(JSON.stringify({ errorType: (error as Error).name, errorMessage: (error as Error).message })) };
    }
  };
  return Object.assign({ send, destroy: () => undefined }, { invocations }) as unknown as LambdaClient & { readonly invocations: Invocation[] };
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
