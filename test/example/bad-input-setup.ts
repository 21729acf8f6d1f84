/**
 * What the bad-input tests share: a page-view-counter on fresh tables and queues, delivery through
 * the real queue, and readers of the DLQ and of the metrics and error log.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { createPageViewCounter, type PageViewCounterConfig } from '../../example/handlers/page-view-counter';
import { publishToSqs, type BatchHandler, type OutgoingMessage } from '../../lambdas/runtime';
import { isFailureEnvelope, type FailureEnvelope } from '../../aws/dlq-format';
import { MetricName } from '../../lambdas/runtime/core/observability';
import type { LocalClients } from '../../emulator/engines';
import { pageView, sqsEvent } from '../helpers/events';
import { createQueue, uniqueName, type CreatedQueue } from '../helpers/engines';
import { idempotencyTable, pkTable, receiveAsLambdaRecords } from '../helpers/fixtures';

/** SQS's limit on a message: the body plus every attribute's name, type and value. */
export const SQS_LIMIT_BYTES = 1_048_576;
export const noWait = { sleep: async () => undefined, maxAttempts: 3 };

/** Every consumer's metrics and error log lines (Powertools is silenced in tests, but still called). */
export function observabilitySpies() {
  const metrics = jest.spyOn(Metrics.prototype, 'addMetric');
  const errors = jest.spyOn(Logger.prototype, 'error');
  return {
    conflicts: () => metrics.mock.calls.filter(([name]) => name === MetricName.CONFLICTING_DUPLICATES).reduce((sum, [, , value]) => sum + value, 0),
    errors: () => errors.mock.calls,
  };
}

export function recordWithBody(records: readonly SQSRecord[], body: string): SQSRecord {
  const found = records.find((record) => record.body === body);
  if (!found) throw new Error(`no record with body ${body.slice(0, 80)}`);
  return found;
}

export const twoGoodViews = () => [pageView('good', 'a'), pageView('good', 'b')];
export const TWO_COUNTED = { 'page#good': 2, 'day#2026-11-30': 2 };

export interface CounterSetup {
  readonly handler: BatchHandler;
  readonly countersTable: string;
  readonly idempotencyTable: string;
  readonly queue: CreatedQueue;
  readonly dlq: CreatedQueue;
}

/**
 * The helpers that reach the engines, over the clients a test file creates in its `beforeAll`
 * (`clientsOf` is called at use, when they exist).
 */
export function badInputHelpers(clientsOf: () => LocalClients) {
  /** Fresh tables and queues for a page-view-counter, whose DLQ is also the queue's redrive target. */
  async function counterSetUp(overrides: Partial<PageViewCounterConfig> = {}, maxReceiveCount = 6): Promise<CounterSetup> {
    const dlq = await createQueue(clientsOf().sqs, uniqueName('bad-inputs-dlq'));
    const [idempotency, counters, queue] = await Promise.all([
      idempotencyTable(clientsOf().dynamodb),
      pkTable(clientsOf().dynamodb, 'counters'),
      createQueue(clientsOf().sqs, uniqueName('bad-inputs'), { VisibilityTimeout: '30', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount }) }),
    ]);
    const config = { countersTable: counters.tableName, idempotencyTable: idempotency, dlqUrl: dlq.url, sourceQueueUrl: queue.url, maxAttempts: 5, clients: clientsOf(), retry: noWait };
    return { handler: createPageViewCounter({ ...config, ...overrides }), countersTable: counters.tableName, idempotencyTable: idempotency, queue, dlq };
  }

  /** Sends the messages through the real queue and hands the consumer all of them in one batch, as Lambda would. */
  async function deliver(setup: CounterSetup, messages: readonly OutgoingMessage[]) {
    await publishToSqs(clientsOf().sqs, setup.queue.url, messages);
    return deliverQueued(setup, messages.length);
  }

  async function deliverQueued(setup: CounterSetup, count: number) {
    const records = await receiveAsLambdaRecords(clientsOf().sqs, setup.queue, count);
    expect(records).toHaveLength(count);
    return { records, response: await setup.handler(sqsEvent(...records)) };
  }

  /** What a queue holds now, received once each. The handler awaited its DLQ sends, so one sweep of short polls finds them all. */
  async function sweep(queueUrl: string): Promise<Message[]> {
    const received: Message[] = [];
    for (;;) {
      const { Messages = [] } = await clientsOf().sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, MessageAttributeNames: ['All'] }));
      if (Messages.length === 0) return received;
      received.push(...Messages);
    }
  }

  /** The DLQ's failure wrappers; anything else there fails the test. */
  async function dlqContents(queueUrl: string): Promise<FailureEnvelope[]> {
    return (await sweep(queueUrl)).map((message) => {
      const body: unknown = JSON.parse(message.Body ?? '');
      if (!isFailureEnvelope(body)) throw new Error(`DLQ message is not a failure wrapper: ${message.Body?.slice(0, 200)}`);
      return body;
    });
  }

  return { counterSetUp, deliver, deliverQueued, sweep, dlqContents };
}
