/**
 * The consumer loop: decode, drop in-batch duplicates, apply through the strategy, settle failures
 * (DLQ or batchItemFailures) for SQS, Kinesis and DynamoDB Streams batches.
 *
 * The strategy is an in-memory fake that implements `Strategy` and decides each event's outcome
 * from its page id. The DLQ is a real `DlqSender` over a fake SQS client whose `send` records
 * commands (or throws): what is under test is the runtime's behaviour, not SQS's. Metrics and
 * logs go to a recording, silent Observability so that nothing reaches stdout.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { z } from 'zod';
import { createConsumer, type BatchEvent, type ConsumerOptions } from '../../../lambdas/runtime/consumer';
import { DlqSender } from '../../../lambdas/runtime/dlq';
import { NotAttemptedError, PermanentError, UnsupportedSourceError } from '../../../lambdas/runtime/errors';
import { DlqReason, type FailureEnvelope } from '../../../aws/dlq-format';
import { MetricName } from '../../../lambdas/runtime/observability';
import { SourceKind } from '../../../lambdas/runtime/records';
import { route, type ConsumedEvent, type Routes } from '../../../lambdas/runtime/routes';
import type { AcceptedEvent, Outcome, Strategy } from '../../../lambdas/runtime/strategies';
import { VisibilityBackoff } from '../../../lambdas/runtime/visibility';
import { dynamoEvent, dynamoRecord, kinesisEvent, kinesisRecord, pageView, sqsEvent, sqsRecord, TEST_QUEUE_ARN } from '../../helpers/events';
import { asClient, awsError, FakeClient, noSleep, recordingObservability } from '../../helpers/fakes';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const NOW = new Date('2026-11-30T12:00:00.000Z');
const DLQ_URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/page-views-dlq';

/** Page ids that make the fake strategy fail or skip; any other page id is applied. */
const THROTTLED = 'throttled';
const DECLINED = 'declined';
const STALE = 'stale';

function pageIdOf(event: ConsumedEvent<unknown>): string {
  const payload = event.payload as { pageId?: string; newImage?: { pageId?: string } };
  return payload.pageId ?? payload.newImage?.pageId ?? '';
}

function outcomeFor(event: ConsumedEvent<unknown>): Outcome {
  switch (pageIdOf(event)) {
    case THROTTLED:
      return { status: 'failed', error: awsError('ProvisionedThroughputExceededException', 400) };
    case DECLINED:
      return { status: 'failed', error: new PermanentError('the effect can never apply') };
    case STALE:
      return { status: 'skipped', reason: 'older version' };
    default:
      return { status: 'applied' };
  }
}

/** A strategy that records what it was given and decides outcomes with `outcomeFor`. */
class FakeStrategy implements Strategy<string> {
  public readonly calls: { events: ConsumedEvent<unknown>[]; ordered: boolean }[] = [];
  public readonly handled: string[] = [];

  public async apply(events: readonly AcceptedEvent<string>[], run: { readonly ordered: boolean }): Promise<Map<number, Outcome>> {
    this.calls.push({ events: events.map((accepted) => accepted.event), ordered: run.ordered });
    return new Map(events.map((accepted) => {
      this.handled.push(accepted.invoke());
      return [accepted.index, outcomeFor(accepted.event)];
    }));
  }

  public get seen(): ConsumedEvent<unknown>[] {
    return this.calls.flatMap((call) => call.events);
  }
}

const ROUTES: Routes<string> = {
  'page.viewed': route(z.object({ pageId: z.string().min(1) }), (event) => `page ${event.payload.pageId}`),
  'dynamodb.MODIFY': route(z.object({ newImage: z.object({ pageId: z.string() }) }), (event) => `change ${event.payload.newImage.pageId}`),
};

interface Harness {
  readonly handle: (event: BatchEvent) => Promise<string[]>;
  readonly strategy: FakeStrategy;
  readonly dlqClient: FakeClient;
  readonly observability: ReturnType<typeof recordingObservability>;
  /** The wrappers the DLQ received, parsed. */
  readonly dlqMessages: () => FailureEnvelope[];
}

function harness(source: SourceKind, options: Partial<ConsumerOptions<string>> & { dlqClient?: FakeClient; withoutDlq?: boolean } = {}): Harness {
  const strategy = new FakeStrategy();
  const dlqClient = options.dlqClient ?? new FakeClient(() => ({ MessageId: 'dlq-msg' }));
  const observability = recordingObservability();
  const consumer = createConsumer<string>({
    name: 'test-consumer',
    source,
    routes: ROUTES,
    strategy,
    dlq: options.withoutDlq ? undefined : new DlqSender(asClient<SQSClient>(dlqClient), DLQ_URL, { sleep: noSleep }),
    observability,
    now: () => NOW,
    ...options,
  });
  return {
    handle: async (event) => (await consumer(event)).batchItemFailures.map((failure) => failure.itemIdentifier),
    strategy,
    dlqClient,
    observability,
    dlqMessages: () => dlqClient.commandsNamed('SendMessageCommand').map((command) => JSON.parse(String(command.input.MessageBody)) as FailureEnvelope),
  };
}

describe('SQS: poison records go to the DLQ and never fail the batch', () => {
  test('poison among good records: the poison goes to the DLQ with its context and is not reported; the good ones are applied', async () => {
    const { handle, strategy, dlqMessages, dlqClient, observability } = harness(SourceKind.SQS);
    const good1 = pageView('home', 'v-1');
    const good2 = pageView('about', 'v-2');
    const unknownType = { ...pageView('home', 'v-3'), type: 'page.clicked' };
    const badSchema = { ...pageView('home', 'v-4'), payload: { pageId: 42 } };

    const failures = await handle(sqsEvent(
      sqsRecord(good1, { messageId: 'm-good-1' }),
      sqsRecord('{"eventId": "truncated', { messageId: 'm-not-json' }),
      sqsRecord(unknownType, { messageId: 'm-unknown-type' }),
      sqsRecord(good2, { messageId: 'm-good-2' }),
      sqsRecord(badSchema, { messageId: 'm-bad-schema' }),
    ));

    expect(failures).toEqual([]);
    expect(strategy.seen.map((event) => event.eventId)).toEqual([good1.eventId, good2.eventId]);
    expect(strategy.handled).toEqual(['page home', 'page about']);

    const messages = dlqMessages();
    expect(messages.map((message) => [message.source.itemIdentifier, message.reason, message.error.name])).toEqual([
      ['m-not-json', DlqReason.PERMANENT, 'InvalidEnvelopeError'],
      ['m-unknown-type', DlqReason.PERMANENT, 'UnknownEventTypeError'],
      ['m-bad-schema', DlqReason.PERMANENT, 'SchemaViolationError'],
    ]);
    expect(messages[0]).toMatchObject({ consumer: 'test-consumer', original: { body: '{"eventId": "truncated' }, error: { details: { problem: 'not-json' } } });
    expect(messages[0].eventId).toBeUndefined();
    expect(messages[1]).toMatchObject({ eventId: unknownType.eventId, eventType: 'page.clicked', error: { details: { knownTypes: ['page.viewed', 'dynamodb.MODIFY'] } } });
    expect(messages[2].error.details?.issues).toEqual([expect.stringMatching(/^pageId: /)]);
    expect(dlqClient.commands.every((command) => command.input.QueueUrl === DLQ_URL)).toBe(true);

    expect(observability.counts.get(MetricName.SENT_TO_DLQ)).toBe(3);
    expect(observability.counts.get(MetricName.PERMANENT_FAILURES)).toBe(3);
    expect(observability.counts.get(MetricName.PROCESSED)).toBe(2);
  });

  test('a batch of only poison: every record in the DLQ, nothing reported, the strategy sees nothing', async () => {
    const { handle, strategy, dlqMessages } = harness(SourceKind.SQS);
    const failures = await handle(sqsEvent(sqsRecord(''), sqsRecord('[]'), sqsRecord('null'), sqsRecord({ ...pageView('x', 'y'), payload: 'text' })));
    expect(failures).toEqual([]);
    expect(dlqMessages()).toHaveLength(4);
    expect(strategy.seen).toEqual([]);
  });

  test('a permanent failure of the effect goes to the DLQ too, with the event named', async () => {
    const { handle, dlqMessages } = harness(SourceKind.SQS);
    const declined = pageView(DECLINED, 'v-1');
    expect(await handle(sqsEvent(sqsRecord(declined, { messageId: 'm-1' })))).toEqual([]);
    expect(dlqMessages()).toEqual([expect.objectContaining({ reason: DlqReason.PERMANENT, eventId: declined.eventId, eventType: 'page.viewed' })]);
  });

  test('when the DLQ send fails, the record IS reported, so that SQS redelivers it instead of losing it', async () => {
    const dlqClient = new FakeClient(() => {
      throw awsError('InternalError', 500);
    });
    const { handle, observability } = harness(SourceKind.SQS, { dlqClient });
    const failures = await handle(sqsEvent(sqsRecord(pageView('home', 'v-1'), { messageId: 'm-good' }), sqsRecord('not json', { messageId: 'm-poison' })));
    expect(failures).toEqual(['m-poison']);
    expect(dlqClient.commands.length).toBeGreaterThan(1);
    expect(observability.counts.get(MetricName.SENT_TO_DLQ)).toBeUndefined();
  });

  test('when the DLQ refuses the send outright (access denied), the record is reported after one try', async () => {
    const dlqClient = new FakeClient(() => {
      throw awsError('AccessDenied', 403);
    });
    const { handle } = harness(SourceKind.SQS, { dlqClient });
    expect(await handle(sqsEvent(sqsRecord('not json', { messageId: 'm-poison' })))).toEqual(['m-poison']);
    expect(dlqClient.commands).toHaveLength(1);
  });

  test('without a DLQ a poison record is reported rather than dropped', async () => {
    const { handle } = harness(SourceKind.SQS, { withoutDlq: true });
    expect(await handle(sqsEvent(sqsRecord('not json', { messageId: 'm-poison' }), sqsRecord(pageView('home', 'v-1'))))).toEqual(['m-poison']);
  });
});

describe('transient failures are reported with the identifier Lambda expects', () => {
  test('SQS: the messageId; nothing goes to the DLQ', async () => {
    const { handle, dlqMessages, observability } = harness(SourceKind.SQS);
    const failures = await handle(sqsEvent(sqsRecord(pageView('home', 'v-1'), { messageId: 'm-ok' }), sqsRecord(pageView(THROTTLED, 'v-2'), { messageId: 'm-throttled' })));
    expect(failures).toEqual(['m-throttled']);
    expect(dlqMessages()).toEqual([]);
    expect(observability.counts.get(MetricName.TRANSIENT_FAILURES)).toBe(1);
  });

  test('Kinesis: kinesis.sequenceNumber', async () => {
    const { handle } = harness(SourceKind.KINESIS);
    const failures = await handle(kinesisEvent(kinesisRecord(pageView('home', 'v-1'), { sequenceNumber: '49590000000000000001' }), kinesisRecord(pageView(THROTTLED, 'v-2'), { sequenceNumber: '49590000000000000002' })));
    expect(failures).toEqual(['49590000000000000002']);
  });

  test('DynamoDB Streams: dynamodb.SequenceNumber', async () => {
    const { handle } = harness(SourceKind.DYNAMODB_STREAM);
    const failures = await handle(dynamoEvent(
      dynamoRecord({ eventName: 'MODIFY', newImage: { pk: 'p#1', pageId: 'home' }, sequenceNumber: '300000000001' }),
      dynamoRecord({ eventName: 'MODIFY', newImage: { pk: 'p#2', pageId: THROTTLED }, sequenceNumber: '300000000002' }),
    ));
    expect(failures).toEqual(['300000000002']);
  });

  test('SQS: a reported message gets a jittered visibility timeout; a message sent to the DLQ does not', async () => {
    const sqs = new FakeClient(() => ({ Successful: [], Failed: [] }));
    const visibility = new VisibilityBackoff(asClient<SQSClient>(sqs), { random: () => 0.5 });
    const { handle } = harness(SourceKind.SQS, { visibility });
    await handle(sqsEvent(sqsRecord(pageView(THROTTLED, 'v-1'), { messageId: 'm-throttled', receiveCount: 3 }), sqsRecord('poison', { messageId: 'm-poison' })));

    const [change] = sqs.commandsNamed('ChangeMessageVisibilityBatchCommand');
    expect(sqs.commands).toHaveLength(1);
    expect(change.input).toEqual({
      QueueUrl: 'https://sqs.us-east-1.amazonaws.com/000000000000/page-views',
      Entries: [{ Id: '0', ReceiptHandle: 'handle-m-throttled', VisibilityTimeout: 4 }],
    });
  });
});

describe('SQS: the last attempt', () => {
  test.each([
    [4, 5, false],
    [5, 5, true],
    [7, 5, true],
    [1, 1, true],
  ])('receive count %i with maxAttempts %i: sent to the DLQ = %s', async (receiveCount, maxAttempts, toDlq) => {
    const { handle, dlqMessages } = harness(SourceKind.SQS, { maxAttempts });
    const failures = await handle(sqsEvent(sqsRecord(pageView(THROTTLED, 'v-1'), { messageId: 'm-1', receiveCount })));
    expect(failures).toEqual(toDlq ? [] : ['m-1']);
    expect(dlqMessages()).toHaveLength(toDlq ? 1 : 0);
  });

  test('the last-attempt wrapper carries the reason, the attempts and the failure times', async () => {
    const { handle, dlqMessages } = harness(SourceKind.SQS, { maxAttempts: 5 });
    const event = pageView(THROTTLED, 'v-1');
    await handle(sqsEvent(sqsRecord(event, { messageId: 'm-1', receiveCount: 5 })));
    expect(dlqMessages()[0]).toMatchObject({
      reason: DlqReason.LAST_ATTEMPT,
      attempts: 5,
      eventId: event.eventId,
      firstFailureAt: new Date(1_764_496_800_000).toISOString(),
      lastFailureAt: NOW.toISOString(),
      error: { name: 'ProvisionedThroughputExceededException', kind: 'transient' },
      source: { kind: 'sqs', arn: TEST_QUEUE_ARN, itemIdentifier: 'm-1' },
    });
  });

  test('without maxAttempts a transient failure is reported however often it came back', async () => {
    const { handle, dlqMessages } = harness(SourceKind.SQS);
    expect(await handle(sqsEvent(sqsRecord(pageView(THROTTLED, 'v-1'), { messageId: 'm-1', receiveCount: 50 })))).toEqual(['m-1']);
    expect(dlqMessages()).toEqual([]);
  });

  test('maxAttempts does not apply to streams: Lambda does not count their deliveries', async () => {
    const { handle, dlqMessages } = harness(SourceKind.KINESIS, { maxAttempts: 1 });
    expect(await handle(kinesisEvent(kinesisRecord(pageView(THROTTLED, 'v-1'), { sequenceNumber: '1' })))).toEqual(['1']);
    expect(dlqMessages()).toEqual([]);
  });
});

describe('ordered sources stop at the first transient failure', () => {
  test('Kinesis: everything after the first transient failure is reported, and nothing after it goes to the DLQ', async () => {
    const { handle, dlqMessages } = harness(SourceKind.KINESIS);
    const failures = await handle(kinesisEvent(
      kinesisRecord(pageView('home', 'v-1'), { sequenceNumber: '1' }),
      kinesisRecord('poison before', { sequenceNumber: '2' }),
      kinesisRecord(pageView(THROTTLED, 'v-3'), { sequenceNumber: '3' }),
      kinesisRecord('poison after', { sequenceNumber: '4' }),
      kinesisRecord(pageView('about', 'v-5'), { sequenceNumber: '5' }),
      kinesisRecord(pageView(DECLINED, 'v-6'), { sequenceNumber: '6' }),
    ));
    expect(failures).toEqual(['3', '4', '5', '6']);
    expect(dlqMessages().map((message) => message.source.itemIdentifier)).toEqual(['2']);
  });

  test('DynamoDB Streams: the same rule', async () => {
    const { handle, dlqMessages } = harness(SourceKind.DYNAMODB_STREAM);
    const failures = await handle(dynamoEvent(
      dynamoRecord({ newImage: { pk: 'p#1', pageId: THROTTLED }, sequenceNumber: '10' }),
      dynamoRecord({ newImage: { pk: 'p#2', pageId: DECLINED }, sequenceNumber: '11' }),
      dynamoRecord({ eventName: 'INSERT', newImage: { pk: 'p#3', pageId: 'x' }, sequenceNumber: '12' }),
    ));
    expect(failures).toEqual(['10', '11', '12']);
    expect(dlqMessages()).toEqual([]);
  });

  test('a failed DLQ send on an ordered source blocks the rest of the batch too', async () => {
    const dlqClient = new FakeClient(() => {
      throw awsError('AccessDenied', 403);
    });
    const { handle } = harness(SourceKind.KINESIS, { dlqClient });
    const failures = await handle(kinesisEvent(kinesisRecord(pageView('a', '1'), { sequenceNumber: '1' }), kinesisRecord('poison', { sequenceNumber: '2' }), kinesisRecord(pageView('b', '3'), { sequenceNumber: '3' })));
    expect(failures).toEqual(['2', '3']);
  });

  test('SQS is not ordered: a transient failure does not hold back the records after it', async () => {
    const { handle, dlqMessages } = harness(SourceKind.SQS);
    const failures = await handle(sqsEvent(sqsRecord(pageView(THROTTLED, 'v-1'), { messageId: 'm-1' }), sqsRecord('poison', { messageId: 'm-2' }), sqsRecord(pageView('home', 'v-3'), { messageId: 'm-3' })));
    expect(failures).toEqual(['m-1']);
    expect(dlqMessages().map((message) => message.source.itemIdentifier)).toEqual(['m-2']);
  });

  test('the strategy is told whether the source is ordered', async () => {
    const runs: boolean[] = [];
    for (const [source, event] of [
      [SourceKind.SQS, sqsEvent(sqsRecord(pageView('a', '1')))],
      [SourceKind.KINESIS, kinesisEvent(kinesisRecord(pageView('a', '1')))],
      [SourceKind.DYNAMODB_STREAM, dynamoEvent(dynamoRecord({ newImage: { pk: 'p', pageId: 'a' } }))],
    ] as const) {
      const { handle, strategy } = harness(source);
      await handle(event);
      runs.push(strategy.calls[0].ordered);
    }
    expect(runs).toEqual([false, true, true]);
  });
});

describe('in-batch duplicates', () => {
  test('the same eventId twice: the strategy sees the event once and both records succeed', async () => {
    const { handle, strategy, observability } = harness(SourceKind.SQS);
    const event = pageView('home', 'v-1');
    const failures = await handle(sqsEvent(sqsRecord(event, { messageId: 'm-first' }), sqsRecord(pageView('about', 'v-2')), sqsRecord(event, { messageId: 'm-producer-retry' })));
    expect(failures).toEqual([]);
    expect(strategy.seen.map((seen) => seen.eventId)).toEqual([event.eventId, pageView('about', 'v-2').eventId]);
    expect(observability.counts.get(MetricName.DUPLICATES)).toBe(1);
    expect(observability.counts.get(MetricName.PROCESSED)).toBe(2);
  });

  test('a twin of a transient failure is reported with it, so neither is lost', async () => {
    const { handle } = harness(SourceKind.SQS);
    const event = pageView(THROTTLED, 'v-1');
    expect(await handle(sqsEvent(sqsRecord(event, { messageId: 'm-1' }), sqsRecord(event, { messageId: 'm-2' })))).toEqual(['m-1', 'm-2']);
  });

  test('a twin of a permanent failure is a duplicate: the first record carries the event to the DLQ, once', async () => {
    const { handle, dlqMessages } = harness(SourceKind.SQS);
    const event = pageView(DECLINED, 'v-1');
    expect(await handle(sqsEvent(sqsRecord(event, { messageId: 'm-1' }), sqsRecord(event, { messageId: 'm-2' })))).toEqual([]);
    expect(dlqMessages().map((message) => message.source.itemIdentifier)).toEqual(['m-1']);
  });

  test('the same eventId with a different payload is still applied once, and counted as a conflicting duplicate', async () => {
    const { handle, strategy, observability } = harness(SourceKind.SQS);
    const event = pageView('home', 'v-1');
    const failures = await handle(sqsEvent(sqsRecord(event), sqsRecord({ ...event, payload: { pageId: 'about' } })));
    expect(failures).toEqual([]);
    expect(strategy.seen).toHaveLength(1);
    expect(observability.counts.get(MetricName.CONFLICTING_DUPLICATES)).toBe(1);
  });
});

describe('other outcomes and edge cases', () => {
  test('an empty batch gives an empty failure list and sends nothing', async () => {
    const { handle, dlqClient } = harness(SourceKind.SQS);
    expect(await handle(sqsEvent())).toEqual([]);
    expect(dlqClient.commands).toEqual([]);
  });

  test('an event without Records is treated as empty', async () => {
    const { handle } = harness(SourceKind.KINESIS);
    expect(await handle({} as BatchEvent)).toEqual([]);
  });

  test('skipped and strategy-reported duplicates are successes, counted apart', async () => {
    const strategy: Strategy<string> = {
      apply: async (events) => new Map(events.map((accepted, position) => [accepted.index, position === 0 ? { status: 'skipped', reason: 'older' } : { status: 'duplicate', conflictingPayload: true }] as const)),
    };
    const { handle, observability } = harness(SourceKind.SQS, { strategy });
    expect(await handle(sqsEvent(sqsRecord(pageView(STALE, '1')), sqsRecord(pageView('home', '2'))))).toEqual([]);
    expect(observability.counts.get(MetricName.STALE_WRITES)).toBe(1);
    expect(observability.counts.get(MetricName.DUPLICATES)).toBe(1);
    expect(observability.counts.get(MetricName.CONFLICTING_DUPLICATES)).toBe(1);
  });

  test('a NotAttemptedError from the strategy is reported like any transient failure', async () => {
    const strategy: Strategy<string> = { apply: async (events) => new Map(events.map((accepted) => [accepted.index, { status: 'failed', error: new NotAttemptedError() }])) };
    const { handle, dlqMessages } = harness(SourceKind.KINESIS, { strategy });
    expect(await handle(kinesisEvent(kinesisRecord(pageView('a', '1'), { sequenceNumber: '7' })))).toEqual(['7']);
    expect(dlqMessages()).toEqual([]);
  });

  test('the handler receives the source record and the Lambda context', async () => {
    const contexts: unknown[] = [];
    const routes: Routes<string> = { 'page.viewed': { handle: (_event, context) => (contexts.push(context), 'ok') } };
    const consumer = createConsumer<string>({ name: 'c', source: SourceKind.SQS, routes, strategy: new FakeStrategy(), observability: recordingObservability() });
    const lambdaContext = { awsRequestId: 'req-1' } as never;
    await consumer(sqsEvent(sqsRecord(pageView('home', '1'), { messageId: 'm-1' })), lambdaContext);
    expect(contexts).toEqual([{ record: expect.objectContaining({ itemIdentifier: 'm-1', kind: 'sqs' }), lambdaContext }]);
  });

  test('a strategy that breaks its contract and throws fails its events, not the invocation; metrics are flushed once', async () => {
    const strategy: Strategy<string> = { apply: async () => Promise.reject(new Error('bug in strategy')) };
    const { handle, dlqMessages, observability } = harness(SourceKind.SQS, { strategy });
    const failures = await handle(sqsEvent(sqsRecord(pageView('home', '1'), { messageId: 'm-1' }), sqsRecord('not json', { messageId: 'm-poison' })));
    // The strategy's events are reported (a plain error is transient); the poison, settled apart from the strategy, goes to the DLQ.
    expect(failures).toEqual(['m-1']);
    expect(dlqMessages().map((message) => message.source.itemIdentifier)).toEqual(['m-poison']);
    expect(observability.flushes()).toBe(1);
  });

  test('metrics are flushed once also when the invocation fails (an SQS FIFO queue is refused)', async () => {
    const observability = recordingObservability();
    const consumer = createConsumer<string>({ name: 'c', source: SourceKind.SQS, routes: ROUTES, strategy: new FakeStrategy(), observability });
    await expect(consumer(sqsEvent(sqsRecord(pageView('home', '1'), { queueArn: `${TEST_QUEUE_ARN}.fifo` })))).rejects.toThrow(UnsupportedSourceError);
    expect(observability.flushes()).toBe(1);
  });

  test('works with the default Powertools observability, quietly under POWERTOOLS_METRICS_DISABLED and a SILENT log level', async () => {
    const write = jest.spyOn(process.stdout, 'write');
    const consumer = createConsumer<string>({ name: 'default-observability', source: SourceKind.SQS, routes: ROUTES, strategy: new FakeStrategy() });
    const response = await consumer(sqsEvent(sqsRecord(pageView(THROTTLED, '1'), { messageId: 'm-1' }), sqsRecord(pageView('home', '2'))));
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-1' }] });
    expect(write).not.toHaveBeenCalled();
    write.mockRestore();
  });
});

describe('undecodable records are poison, not transient failures', () => {
  test('a decoder that throws a plain error sends the record to the DLQ as permanent', async () => {
    const decode = () => {
      throw new TypeError("Cannot read properties of undefined (reading 'S')");
    };
    const { handle, dlqMessages } = harness(SourceKind.KINESIS, { decode });
    const failures = await handle(kinesisEvent(kinesisRecord(pageView('home', '1'), { sequenceNumber: '1' })));
    expect(failures).toEqual([]);
    expect(dlqMessages()).toEqual([expect.objectContaining({ reason: DlqReason.PERMANENT, error: expect.objectContaining({ kind: 'permanent' }) })]);
  });

  test('a DynamoDB stream image with a number JavaScript cannot hold (1.5e40) goes to the DLQ instead of blocking the shard', async () => {
    const { handle, dlqMessages } = harness(SourceKind.DYNAMODB_STREAM);
    const bigNumber = dynamoRecord({ newImage: { pk: 'p#1', pageId: 'home' }, sequenceNumber: '20' });
    // DynamoDB numbers go up to 38 digits and 1e125; the image carries them as strings.
    Object.assign(bigNumber.dynamodb?.NewImage ?? {}, { revenue: { N: '1.5e40' } });
    const failures = await handle(dynamoEvent(bigNumber, dynamoRecord({ newImage: { pk: 'p#2', pageId: 'about' }, sequenceNumber: '21' })));
    expect(failures).toEqual([]);
    expect(dlqMessages().map((message) => message.source.itemIdentifier)).toEqual(['20']);
  });
});
