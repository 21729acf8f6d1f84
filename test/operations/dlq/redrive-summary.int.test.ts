/**
 * The redrive's summary counts each message once (issue 28): a user saw "redriving 2 message(s)"
 * with 1 selected, and "skipped 2" where one of the two was the redriven message failing again
 * during the run. Reproduced on fauxqs with the real page-view-counter, which sends a schema-2
 * view back to the DLQ as soon as the redrive republishes it.
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { outgoingMessage, publishToSqs } from '../../../lambdas/runtime';
import { ARRIVED_DURING_REDRIVE, NOT_SELECTED, redriveQueue } from '../../../operations/dlq';
import { formatRedrive } from '../../../operations/cli/dlq-output';
import { pageViewConsumer, pageViewV2, type PageViewConsumer } from './page-views';
import { consumeQueue, contextOf, dlqTestClients, FAST_SWEEP, topologyOf, visible } from './support';

const { clients, streams } = dlqTestClients();

/** An SQS client whose republish to the source queue is consumed at once by the consumer before the fix: the message fails again, into the DLQ, while the redrive still reads it. */
function failingAgainAtOnce(consumer: PageViewConsumer): SQSClient {
  const sqs = Object.create(clients.sqs) as SQSClient;
  const send = async (command: Parameters<SQSClient['send']>[0]) => {
    const output = await clients.sqs.send(command as SendMessageCommand);
    if (command instanceof SendMessageCommand && command.input.QueueUrl === consumer.queue.url) await consumeQueue(clients.sqs, consumer.queue, consumer.before);
    return output;
  };
  return Object.assign(sqs, { send });
}

test('a filtered redrive whose message fails again during the run counts it as selected, sent and back, and skips only the one not selected', async () => {
  const consumer = await pageViewConsumer(clients, 'summary');
  await publishToSqs(clients.sqs, consumer.queue.url, [outgoingMessage(pageViewV2('docs')), { body: 'not json' }]);
  await consumeQueue(clients.sqs, consumer.queue, consumer.before);
  expect(await visible(clients.sqs, consumer.dlq.url)).toBe(2);
  const topology = topologyOf({ dlq: consumer.dlq, sources: [{ role: 'redrive', arn: consumer.queue.arn }], queues: [consumer.queue] });
  const context = contextOf(clients, streams, topology, failingAgainAtOnce(consumer));

  const result = await redriveQueue({ ...context, queue: consumer.dlq.url }, { filter: { errorType: ['SchemaViolationError'] }, sweep: FAST_SWEEP });

  expect(result).toMatchObject({ selected: 1, redriven: 1, cameBack: 1, skipped: 1, failed: 0 });
  expect(result.details.map((detail) => `${detail.status}: ${detail.errorType}${detail.reason ? `, ${detail.reason}` : ''}`).sort()).toEqual([
    `came-back: SchemaViolationError, ${ARRIVED_DURING_REDRIVE}`,
    'redriven: SchemaViolationError',
    `skipped: InvalidEnvelopeError, ${NOT_SELECTED}`,
  ]);
  const summary = formatRedrive('local', result);
  expect(summary).toMatch(/\| selected by the filter\s+\| 1 /);
  expect(summary).toMatch(/\| redriven \(republished, then deleted\)\s+\| 1 /);
  expect(summary).toMatch(/\| came back during the run \(left for the next run\)\s+\| 1 /);
  expect(summary).toMatch(/\| skipped: not selected, left in the DLQ\s+\| 1 /);
  expect(summary).toMatch(/1 message\(s\) came back during the run, 1 of them an event this run sent/);
  expect(await visible(clients.sqs, consumer.dlq.url)).toBe(2);
});
