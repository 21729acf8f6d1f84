/**
 * The consumer loop, how a batch is worked through: ordered sources stop at the first transient
 * failure, in-batch duplicates follow their first's outcome, and the other outcomes and edge
 * cases. The fakes around the consumer: consumer-harness.ts.
 */
import { createConsumer, type BatchEvent } from '../../../../lambdas/runtime/consumer/consumer';
import { DlqReason } from '../../../../aws/dlq-format';
import { NotAttemptedError } from '../../../../lambdas/runtime/core/errors';
import { MetricName } from '../../../../lambdas/runtime/core/observability';
import { SourceKind } from '../../../../lambdas/runtime/decoding/records';
import type { Routes } from '../../../../lambdas/runtime/decoding/routes';
import type { Strategy } from '../../../../lambdas/runtime/consumer/strategy';
import { dynamoEvent, dynamoRecord, kinesisEvent, kinesisRecord, pageView, sqsEvent, sqsRecord } from '../../../helpers/events';
import { awsError, FakeClient, recordingObservability } from '../../../helpers/fakes';
import { DECLINED, FakeStrategy, harness, ROUTES, STALE, THROTTLED } from './consumer-harness';

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

  test('a twin of a transient failure is reported with it: no copy of an event that waits for redelivery is deleted', async () => {
    // Deleting the twin would be safe alone, but not beside a second invocation that holds the same
    // two messages (a visibility timeout that ended mid-batch) and took m-2 as its primary: each
    // would delete the copy it called a twin, and the event would be lost (the model-based test's
    // interleaving that found it is quoted in docs/reliability.md).
    const { handle, dlqMessages } = harness(SourceKind.SQS, { maxAttempts: 5 });
    const event = pageView(THROTTLED, 'v-1');
    expect(await handle(sqsEvent(sqsRecord(event, { messageId: 'm-1' }), sqsRecord(event, { messageId: 'm-2' })))).toEqual(['m-1', 'm-2']);
    expect(await handle(sqsEvent(sqsRecord(event, { messageId: 'm-2', receiveCount: 2 }), sqsRecord(event, { messageId: 'm-1', receiveCount: 2 })))).toEqual(['m-2', 'm-1']);
    // On the last attempt, the event goes to the DLQ once: its twin, whose handler never ran, is not sent with it.
    expect(await handle(sqsEvent(sqsRecord(event, { messageId: 'm-1', receiveCount: 5 }), sqsRecord(event, { messageId: 'm-2', receiveCount: 5 })))).toEqual([]);
    expect(dlqMessages().map((message) => message.source.itemIdentifier)).toEqual(['m-1']);
  });

  test("a twin on the queue's final receive, its primary reported, goes to the DLQ labelled not attempted", async () => {
    const { handle, dlqMessages } = harness(SourceKind.SQS, { maxAttempts: 5, maxReceiveCount: 5 });
    const event = pageView(THROTTLED, 'v-1');
    expect(await handle(sqsEvent(sqsRecord(event, { messageId: 'm-1', receiveCount: 1 }), sqsRecord(event, { messageId: 'm-2', receiveCount: 5 })))).toEqual(['m-1']);
    expect(dlqMessages().map((message) => [message.source.itemIdentifier, message.reason, message.error.name])).toEqual([['m-2', DlqReason.NOT_ATTEMPTED, 'NotAttemptedError']]);
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

  test('the handler receives the source record, the Lambda context and the deadline\'s signal', async () => {
    const contexts: unknown[] = [];
    const routes: Routes<string> = { 'page.viewed': { handle: (_event, context) => (contexts.push(context), 'ok') } };
    const consumer = createConsumer<string>({ name: 'c', source: SourceKind.SQS, routes, strategy: new FakeStrategy(), observability: recordingObservability() });
    const lambdaContext = { awsRequestId: 'req-1' } as never;
    await consumer(sqsEvent(sqsRecord(pageView('home', '1'), { messageId: 'm-1' })), lambdaContext);
    // A context whose clock reads nothing: a signal that never aborts (deadline-signal.test.ts has one that does).
    expect(contexts).toHaveLength(1);
    const [{ signal, ...rest }] = contexts as [{ signal: AbortSignal }];
    expect(rest).toEqual({ record: expect.objectContaining({ itemIdentifier: 'm-1', kind: 'sqs' }), lambdaContext });
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(signal.aborted).toBe(false);
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

  test('metrics are flushed once also when the invocation fails (a stream record without its sequence number)', async () => {
    const observability = recordingObservability();
    const consumer = createConsumer<string>({ name: 'c', source: SourceKind.DYNAMODB_STREAM, routes: ROUTES, strategy: new FakeStrategy(), observability });
    await expect(consumer({ Records: [{ eventID: 'e-1', eventName: 'INSERT', dynamodb: {} }] } as BatchEvent)).rejects.toThrow('DynamoDB stream record has no dynamodb.SequenceNumber');
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
