/**
 * The consumer loop, where failures go: poison records to the DLQ (never failing the batch),
 * transient failures to batchItemFailures under the identifier Lambda expects, the last attempt's
 * failures to the DLQ, and records that cannot be decoded treated as poison. The fakes around the
 * consumer: consumer-harness.ts.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DlqReason } from '../../../../aws/dlq-format';
import { MetricName } from '../../../../lambdas/runtime/core/observability';
import { SourceKind } from '../../../../lambdas/runtime/decoding/records';
import { VisibilityBackoff } from '../../../../lambdas/runtime/failures/visibility';
import { dynamoEvent, dynamoRecord, kinesisEvent, kinesisRecord, pageView, sqsEvent, sqsRecord, TEST_QUEUE_ARN } from '../../../helpers/events';
import { asClient, awsError, FakeClient } from '../../../helpers/fakes';
import { DECLINED, DLQ_URL, harness, NOW, THROTTLED } from './consumer-harness';

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

  test('a DynamoDB stream image with a number JavaScript cannot hold (38 digits) goes to the DLQ instead of blocking the shard', async () => {
    const { handle, dlqMessages } = harness(SourceKind.DYNAMODB_STREAM);
    const bigNumber = dynamoRecord({ newImage: { pk: 'p#1', pageId: 'home' }, sequenceNumber: '20' });
    // DynamoDB numbers go up to 38 digits and 1e125; the image carries them as strings. (1.5e40,
    // which a double holds as 1.5e40, now arrives as that number: stream-image.test.ts.)
    Object.assign(bigNumber.dynamodb?.NewImage ?? {}, { revenue: { N: '1.0000000000000000000000000000000000001e40' } });
    const failures = await handle(dynamoEvent(bigNumber, dynamoRecord({ newImage: { pk: 'p#2', pageId: 'about' }, sequenceNumber: '21' })));
    expect(failures).toEqual([]);
    expect(dlqMessages().map((message) => message.source.itemIdentifier)).toEqual(['20']);
  });
});
