/**
 * The demo's fix-and-redrive phase redrives every DLQ of the stack, not only the page views':
 * schema violations and every transient runtime failure (RetriesExhaustedError, OutOfTimeError,
 * EffectInProgressError) from the queue consumer's DLQ, and Lambda's on-failure pointers from the
 * Kinesis and DynamoDB Streams consumers' DLQs. Malformed bodies stay. A copy of the stack on the
 * engines of this Jest run, its DLQs filled by hand.
 */
import { PutRecordCommand } from '@aws-sdk/client-kinesis';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { createEnvelope, SourceKind } from '../../../lambdas/runtime';
import { describeFailure } from '../../../lambdas/runtime/failures/failure-context';
import { DlqReason, type FailureEnvelope } from '../../../aws/dlq-format';
import { redriveEveryDlq } from '../../../emulator/demo/redrive-phase';
import { currentState } from '../../../emulator/demo/settle';
import { dlqDepth } from '../../../emulator/demo/state';
import { dynamoDbStreamReader, onFailureRecord, type StreamRead, type StreamReader } from '../../../emulator/event-sources';
import { LOCAL_REGION } from '../../../emulator/engines';
import { output } from '../../../emulator/stack/outputs';
import { startLocalStack, type LocalStack } from '../../../emulator/stack/runtime';
import { sharedEngines, uniqueName } from '../../helpers/engines';
import { pollUntil } from '../../helpers/poll';
import { copyAssembly, ensureAssembly, removeCopies, SYNTH_TIMEOUT_MS } from '../stack/assembly-copy';

let stack: LocalStack;
beforeAll(async () => {
  await ensureAssembly();
  stack = await startLocalStack({ engines: sharedEngines(), synthesized: copyAssembly(), nameSuffix: `-${uniqueName('r')}` });
}, SYNTH_TIMEOUT_MS);
afterAll(async () => {
  await stack?.stop();
  removeCopies();
});

function queueArn(url: string): string {
  const queue = [...stack.resources.queues.values()].find((candidate) => candidate.url === url);
  if (!queue) throw new Error(`no queue ${url}`);
  return queue.arn;
}

function dlqNameOf(outputName: string): string {
  const url = output(stack.outputs, outputName);
  return [...stack.resources.queues.values()].find((queue) => queue.url === url)?.name ?? url;
}

/** A page view that failed on the counter's last attempt with `name`, as the runtime wraps it. */
function pageViewFailure(name: string, kind: 'transient' | 'permanent', body: string): FailureEnvelope {
  const error = Object.assign(new Error(`${name} in a test`), { name });
  const envelope = describeFailure({
    consumer: 'page-view-counter',
    reason: kind === 'transient' ? DlqReason.LAST_ATTEMPT : DlqReason.PERMANENT,
    error,
    record: { kind: SourceKind.SQS, itemIdentifier: uniqueName('m'), sourceArn: queueArn(output(stack.outputs, 'PageViewsQueueUrl')), receiveCount: 5, original: { body, encoding: 'utf8' }, raw: {} as never },
    eventId: (JSON.parse(body) as { eventId?: string }).eventId,
    now: new Date(),
  });
  return { ...envelope, error: { ...envelope.error, kind } };
}

async function sendToDlq(outputName: string, body: unknown): Promise<void> {
  await stack.clients.sqs.send(new SendMessageCommand({ QueueUrl: output(stack.outputs, outputName), MessageBody: JSON.stringify(body) }));
}

function pageView(pageId: string): string {
  return JSON.stringify(createEnvelope({ type: 'page.viewed', source: 'test', businessKey: uniqueName('view'), occurredAt: '2026-11-28T10:00:00.000Z', payload: { pageId } }));
}

/** The ARN local mode gave the function whose logical id starts with `prefix`: what Lambda's pointers name. */
function functionArnOf(prefix: string): string {
  const logicalId = [...stack.functionSpecs.keys()].find((id) => id.startsWith(prefix)) ?? '';
  return String(stack.resources.context.resources.get(logicalId)?.attributes.Arn);
}

/** Puts an order change on the stream, and the pointer Lambda would send for it. */
async function kinesisPointer(orderId: string): Promise<unknown> {
  const body = JSON.stringify(createEnvelope({ type: 'order.status-changed', source: 'test', businessKey: `${orderId}:1`, occurredAt: '2026-11-28T10:00:00.000Z', payload: { orderId, status: 'CREATED', version: 1 } }));
  const streamName = output(stack.outputs, 'OrdersStreamName');
  const put = await stack.clients.kinesis.send(new PutRecordCommand({ StreamName: streamName, PartitionKey: orderId, Data: Buffer.from(body) }));
  const stream = [...stack.resources.streams.values()].find((candidate) => candidate.name === streamName);
  return onFailureRecord({ kind: 'kinesis', condition: 'RetryAttemptsExhausted', functionArn: functionArnOf('OrderProjection'), streamArn: stream?.arn ?? '', shardId: put.ShardId ?? '', records: [{ sequenceNumber: put.SequenceNumber ?? '', arrivalMs: Date.now() }], approximateInvokeCount: 4 });
}

/**
 * A shard's records from its trim horizon; none when DynamoDB Local answers the read with
 * TrimmedDataAccessException, which it did once under CI's load (a fresh TRIM_HORIZON iterator,
 * read at once): the poll reads again with a new iterator. Only the setup's search for the record
 * tolerates it; the redrive under test reads the stream with its own code.
 */
async function readFromTrimHorizon(reader: StreamReader, shardId: string): Promise<Pick<StreamRead, 'records'>> {
  try {
    return await reader.read(shardId, await reader.iterator(shardId, { type: 'TRIM_HORIZON' }), 1_000);
  } catch (error) {
    if ((error as { name?: string }).name === 'TrimmedDataAccessException') return { records: [] };
    throw error;
  }
}

/** Waits for the order's change on the orders table's stream, and builds the pointer for it. */
async function tableStreamPointer(orderId: string): Promise<unknown> {
  const table = [...stack.resources.tables.values()].find((candidate) => candidate.name === output(stack.outputs, 'OrdersTableName'));
  const reader = dynamoDbStreamReader({ streams: stack.dynamodbStreams, streamArn: table?.streamArn ?? '', region: LOCAL_REGION });
  const found = await pollUntil(async () => {
    for (const shard of await reader.listShards()) {
      const { records } = await readFromTrimHorizon(reader, shard.shardId);
      const record = records.find((candidate) => JSON.stringify(candidate.lambdaRecord).includes(orderId));
      if (record) return { shardId: shard.shardId, record };
    }
    return undefined;
  }, `the change of ${orderId} on the orders table's stream`, { timeoutMs: 30_000, intervalMs: 250 });
  return onFailureRecord({ kind: 'dynamodb-stream', condition: 'RetryAttemptsExhausted', functionArn: functionArnOf('ShipmentNotifier'), streamArn: reader.streamArn, shardId: found.shardId, records: [found.record], approximateInvokeCount: 4 });
}

test('every DLQ of the stack is redriven with what the fix or time cures; malformed bodies stay', async () => {
  const pageId = uniqueName('p');
  for (const name of ['OutOfTimeError', 'EffectInProgressError', 'RetriesExhaustedError']) await sendToDlq('PageViewCounterDlqUrl', pageViewFailure(name, 'transient', pageView(pageId)));
  await sendToDlq('PageViewCounterDlqUrl', pageViewFailure('SchemaViolationError', 'permanent', pageView(pageId)));
  await sendToDlq('PageViewCounterDlqUrl', pageViewFailure('InvalidEnvelopeError', 'permanent', '{"not":"an envelope"}'));
  const orderId = uniqueName('o');
  await sendToDlq('OrderProjectionDlqUrl', await kinesisPointer(orderId));
  await sendToDlq('ShipmentNotifierDlqUrl', await tableStreamPointer(orderId));

  const redriven = await redriveEveryDlq(stack);

  // The account ledger's FIFO DLQ, the invoice payments' and the rebuilt order projection's are empty: nothing to redrive there;
  // nor in the SQL database's expiry DLQ (a schedule's: its failed calls are never redriven, the schedule runs again).
  const expiryDlq = stack.deadLetterQueues.find((dlq) => dlq.role === 'schedule')?.queue.name ?? 'the SQL expiry DLQ';
  expect(Object.fromEntries(redriven)).toEqual({
    [expiryDlq]: 0,
    [dlqNameOf('PageViewCounterDlqUrl')]: 4,
    [dlqNameOf('OrderProjectionDlqUrl')]: 1,
    [dlqNameOf('ShipmentNotifierDlqUrl')]: 1,
    [dlqNameOf('AccountLedgerDlqUrl')]: 0,
    [dlqNameOf('InvoicePaymentsDlqUrl')]: 0,
    [dlqNameOf('OrderProjectionRebuildDlqUrl')]: 0,
  });
  // The four page views were never applied: the redrive is what brings them in.
  const state = await pollUntil(async () => {
    const current = await currentState(stack);
    return current.counters[`page#${pageId}`] === 4 ? current : undefined;
  }, `the four redriven page views of ${pageId} to be counted`, { timeoutMs: 30_000, intervalMs: 250 });
  const left = state.dlqs.find((dlq) => dlq.queueName === dlqNameOf('PageViewCounterDlqUrl'));
  expect(left && dlqDepth(left)).toBe(1);
  expect(left?.failures.map((failure) => failure.error.name)).toEqual(['InvalidEnvelopeError']);
}, 120_000);
