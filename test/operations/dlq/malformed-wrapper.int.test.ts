/**
 * Malformed wrappers on the engines: anyone who can send to a DLQ can post a body that claims the
 * wrapper format without its layout. inspect lists it, a redrive leaves it in the DLQ, names it in
 * its summary and goes on with the other messages.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { FAILURE_FORMAT, FAILURE_FORMAT_VERSION, type FailureEnvelope } from '../../../aws/dlq-format';
import { formatRedrive } from '../../../operations/cli/dlq-output';
import { inspectQueue, redriveQueue, type DlqContext } from '../../../operations/dlq';
import { createQueue, uniqueName, type CreatedQueue } from '../../helpers/engines';
import { contextOf, dlqTestClients, drainBodies, FAST_SWEEP, topologyOf, visible } from './support';

const { clients, streams } = dlqTestClients();

interface Setup {
  readonly source: CreatedQueue;
  readonly dlq: CreatedQueue;
  readonly context: DlqContext;
}

async function setUp(): Promise<Setup> {
  const source = await createQueue(clients.sqs, uniqueName('malformed-source'));
  const dlq = await createQueue(clients.sqs, uniqueName('malformed-dlq'));
  const topology = topologyOf({ dlq, sources: [{ role: 'redrive', arn: source.arn }], queues: [source] });
  return { source, dlq, context: contextOf(clients, streams, topology) };
}

function validWrapper(source: CreatedQueue): FailureEnvelope {
  return {
    format: FAILURE_FORMAT,
    version: FAILURE_FORMAT_VERSION,
    consumer: 'page-view-counter',
    reason: 'permanent',
    error: { name: 'SchemaViolationError', message: 'bad page', kind: 'permanent' },
    attempts: 1,
    firstFailureAt: new Date().toISOString(),
    lastFailureAt: new Date().toISOString(),
    source: { kind: 'sqs', arn: source.arn, itemIdentifier: 'm-0' },
    original: { body: '{"page":"home"}', encoding: 'utf8' },
  };
}

/** The format alone; and one that names a source but keeps no original to send. */
const MALFORMED = (source: CreatedQueue): unknown[] => [{ format: FAILURE_FORMAT }, { ...validWrapper(source), original: undefined }];

async function fill(setup: Setup): Promise<void> {
  for (const body of [...MALFORMED(setup.source), validWrapper(setup.source)]) await clients.sqs.send(new SendMessageCommand({ QueueUrl: setup.dlq.url, MessageBody: JSON.stringify(body) }));
}

test('inspect lists malformed wrappers as such, beside the valid one', async () => {
  const setup = await setUp();
  await fill(setup);
  const inspection = await inspectQueue({ ...setup.context, queue: setup.dlq.url }, { sweep: FAST_SWEEP });
  expect(inspection.total).toBe(3);
  const malformed = inspection.groups.filter((group) => group.kind === 'malformed');
  expect(malformed.map((group) => group.count).reduce((a, b) => a + b, 0)).toBe(2);
  expect(malformed.map((group) => group.example.message).join('\n')).toMatch(/version is missing/);
  expect(malformed.map((group) => group.example.message).join('\n')).toMatch(/original is missing/);
  for (const group of malformed) expect(group.example.source).toMatch(/^sent by \S+/);
  expect(inspection.groups.find((group) => group.kind === 'wrapper')).toMatchObject({ errorType: 'SchemaViolationError', count: 1 });
  expect(await visible(clients.sqs, setup.dlq.url)).toBe(3);
});

test('a redrive leaves malformed wrappers in the DLQ, names them, and redrives the rest', async () => {
  const setup = await setUp();
  await fill(setup);
  const result = await redriveQueue({ ...setup.context, queue: setup.dlq.url }, { sweep: FAST_SWEEP });
  expect(result).toMatchObject({ redriven: 1, failed: 2, stoppedEarly: undefined });
  const failed = result.details.filter((detail) => detail.status === 'failed');
  expect(failed.map((detail) => detail.kind)).toEqual(['malformed', 'malformed']);
  for (const detail of failed) expect(detail.reason).toMatch(/is not a valid wrapper .*: a redrive leaves it in the DLQ/);
  expect(formatRedrive('stack S', result)).toMatch(/ {2}failed +\S+ {2}MalformedFailureWrapper: claims the effectively-once\/failure format/);
  expect((await drainBodies(clients.sqs, setup.source.url)).map((message) => message.Body)).toEqual(['{"page":"home"}']);
  expect(await visible(clients.sqs, setup.dlq.url)).toBe(2);
});
