/**
 * Writing failure wrappers to the DLQ. SQS is a fake whose `send` records SendMessage commands (or
 * throws): what is under test is the message we build and how we react to a failed send.
 */
import type { SendMessageCommandInput, SQSClient } from '@aws-sdk/client-sqs';
import { SQS_LIMITS } from '../../../../aws/limits';
import { ATTRIBUTE_CONTEXT_FORMAT, DlqAttribute, DlqSender } from '../../../../lambdas/runtime/failures/dlq';

const SQS_MAX_MESSAGE_BYTES = SQS_LIMITS.maxMessageBytes;
import { parseEnvelope } from '../../../../lambdas/runtime/events/envelope';
import { DlqSendError, SchemaViolationError, TransientError } from '../../../../lambdas/runtime/core/errors';
import { describeFailure } from '../../../../lambdas/runtime/failures/failure-context';
import { DlqReason, FAILURE_FORMAT, type FailureEnvelope } from '../../../../aws/dlq-format';
import { fromDynamoDbRecord, fromKinesisRecord, fromSqsRecord, type SourceRecord } from '../../../../lambdas/runtime/decoding/records';
import { dynamoRecord, kinesisRecord, pageView, sqsRecord } from '../../../helpers/events';
import { sqsViolations } from '../../../helpers/sqs-rules';
import { asClient, awsError, FakeClient, recordingSleep } from '../../../helpers/fakes';

const DLQ_URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/page-views-dlq';
const NOW = new Date('2026-11-30T12:00:00.000Z');
/** When the test records were sent (`sqsRecord`'s SentTimestamp, `dynamoRecord`'s ApproximateCreationDateTime). */
const SENT_AT = new Date(1_764_496_800_000).toISOString();

function failureOf(body: unknown, error: unknown = new SchemaViolationError('page.viewed', ['pageId: Required']), eventId?: string): FailureEnvelope {
  const record = fromSqsRecord(sqsRecord(body, { messageId: 'm-1', receiveCount: 2 }));
  return describeFailure({ consumer: 'page-view-counter', reason: DlqReason.PERMANENT, error, record, eventId, eventType: 'page.viewed', now: NOW });
}

function attributesOf(sqs: FakeClient): Record<string, string | undefined> {
  const attributes = sqs.commands[0].input.MessageAttributes as Record<string, { DataType: string; StringValue?: string }>;
  return Object.fromEntries(Object.entries(attributes).map(([name, value]) => [name, value.StringValue]));
}

describe('DlqSender.send', () => {
  test('sends the wrapper as the body, with the context also in filterable attributes', async () => {
    const sqs = new FakeClient(() => ({ MessageId: 'x' }));
    const envelope = pageView('home', 'v-1');
    const failure = failureOf({ ...envelope, payload: {} }, undefined, envelope.eventId);
    await new DlqSender(asClient<SQSClient>(sqs), DLQ_URL).send(failure);

    expect(sqs.commands).toHaveLength(1);
    const { input, name } = sqs.commands[0];
    expect(name).toBe('SendMessageCommand');
    expect(input.QueueUrl).toBe(DLQ_URL);
    expect(JSON.parse(String(input.MessageBody))).toEqual(JSON.parse(JSON.stringify(failure)));
    expect(attributesOf(sqs)).toEqual({
      [DlqAttribute.FORMAT]: FAILURE_FORMAT,
      [DlqAttribute.CONSUMER]: 'page-view-counter',
      [DlqAttribute.ERROR_NAME]: 'SchemaViolationError',
      [DlqAttribute.ERROR_MESSAGE]: failure.error.message,
      [DlqAttribute.REASON]: 'permanent',
      [DlqAttribute.EVENT_ID]: envelope.eventId,
      [DlqAttribute.ATTEMPTS]: '2',
      [DlqAttribute.FAILED_AT]: NOW.toISOString(),
      [DlqAttribute.FIRST_SENT_AT]: SENT_AT,
    });
  });

  test('stays within SQS\'s 10 message attributes, all of type String', async () => {
    const sqs = new FakeClient();
    await new DlqSender(asClient<SQSClient>(sqs), DLQ_URL).send(failureOf('x', new Error('e'), 'evt-1'));
    const attributes = Object.values(sqs.commands[0].input.MessageAttributes as Record<string, { DataType: string }>);
    expect(attributes.length).toBeLessThanOrEqual(10);
    expect(attributes.every((attribute) => attribute.DataType === 'String')).toBe(true);
  });

  test('leaves out the event id attribute when the body yielded none, and names an empty message', async () => {
    const sqs = new FakeClient();
    await new DlqSender(asClient<SQSClient>(sqs), DLQ_URL).send(failureOf('not json', new Error('')));
    const attributes = attributesOf(sqs);
    expect(attributes).not.toHaveProperty(DlqAttribute.EVENT_ID);
    expect(attributes[DlqAttribute.ERROR_MESSAGE]).toBe('(no message)');
  });

  test('cuts a long error message to 1,024 bytes in the attribute; the body keeps it whole', async () => {
    const sqs = new FakeClient();
    const message = 'x'.repeat(5_000);
    await new DlqSender(asClient<SQSClient>(sqs), DLQ_URL).send(failureOf('{}', new Error(message)));
    expect(attributesOf(sqs)[DlqAttribute.ERROR_MESSAGE]).toHaveLength(1_024);
    expect(JSON.parse(String(sqs.commands[0].input.MessageBody)).error.message).toBe(message);
  });

  test('a wrapper too large for SQS degrades to the original body with the context in attributes', async () => {
    const sqs = new FakeClient();
    // Each quote costs 2 bytes in the original body and 4 once the wrapper escapes the body again.
    const original = JSON.stringify({ ...pageView('home', 'v-1'), payload: { blob: '"'.repeat(300_000) } });
    expect(Buffer.byteLength(original)).toBeLessThan(SQS_MAX_MESSAGE_BYTES);
    const failure = failureOf(original);
    expect(Buffer.byteLength(JSON.stringify(failure))).toBeGreaterThan(SQS_MAX_MESSAGE_BYTES);

    await new DlqSender(asClient<SQSClient>(sqs), DLQ_URL).send(failure);
    expect(sqs.commands[0].input.MessageBody).toBe(original);
    expect(attributesOf(sqs)).toMatchObject({ [DlqAttribute.FORMAT]: ATTRIBUTE_CONTEXT_FORMAT, [DlqAttribute.ERROR_NAME]: 'SchemaViolationError', [DlqAttribute.REASON]: 'permanent' });
  });

  // The fallback keeps the original body only: without this attribute the next redrive could not
  // tell that the event's first copy was sent long before this one (operations/dlq/dedup-window.ts).
  test.each<[string, SourceRecord, string]>([
    ['an SQS record: its SentTimestamp', fromSqsRecord(sqsRecord('x')), SENT_AT],
    ['a copy a redrive republished: the first-sent time it carries, not its own SentTimestamp', fromSqsRecord({ ...sqsRecord('x'), messageAttributes: { eoFirstSentAt: { dataType: 'String', stringValue: '2025-11-01T08:00:00.000Z', stringListValues: [], binaryListValues: [] } } }), '2025-11-01T08:00:00.000Z'],
    ['a DynamoDB stream record: its ApproximateCreationDateTime', fromDynamoDbRecord(dynamoRecord({ eventName: 'INSERT', newImage: { pk: 'a' } })), SENT_AT],
  ])('every DLQ message says when the event was first sent, for %s', async (_, record, sentAt) => {
    const sqs = new FakeClient();
    await new DlqSender(asClient<SQSClient>(sqs), DLQ_URL).send(describeFailure({ consumer: 'c', reason: DlqReason.PERMANENT, error: new Error('e'), record, now: NOW }));
    expect(attributesOf(sqs)[DlqAttribute.FIRST_SENT_AT]).toBe(sentAt);
  });

  test('a Kinesis record says nothing of when it was first sent: the runtime keeps no arrival time of it', async () => {
    const sqs = new FakeClient();
    await new DlqSender(asClient<SQSClient>(sqs), DLQ_URL).send(describeFailure({ consumer: 'c', reason: DlqReason.PERMANENT, error: new Error('e'), record: fromKinesisRecord(kinesisRecord('x')), now: NOW }));
    expect(attributesOf(sqs)).not.toHaveProperty(DlqAttribute.FIRST_SENT_AT);
  });

  test('a wrapper that fits only without its attributes degrades too, since SQS counts attribute names, types and values in the 1 MiB', async () => {
    const sqs = new FakeClient();
    const bodyOfSize = (padding: number) => JSON.stringify({ ...pageView('home', 'v-1'), payload: { blob: 'a'.repeat(padding) } });
    const wrapperBytes = (padding: number) => Buffer.byteLength(JSON.stringify(failureOf(bodyOfSize(padding))));
    const padding = SQS_MAX_MESSAGE_BYTES - 50 - wrapperBytes(0);
    expect(wrapperBytes(padding)).toBe(SQS_MAX_MESSAGE_BYTES - 50);

    await new DlqSender(asClient<SQSClient>(sqs), DLQ_URL).send(failureOf(bodyOfSize(padding)));
    const { MessageBody, MessageAttributes } = sqs.commands[0].input as { MessageBody: string; MessageAttributes: Record<string, { DataType: string; StringValue: string }> };
    const attributeBytes = Object.entries(MessageAttributes).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + Buffer.byteLength(value.DataType) + Buffer.byteLength(value.StringValue), 0);
    expect(Buffer.byteLength(MessageBody) + attributeBytes).toBeLessThanOrEqual(SQS_MAX_MESSAGE_BYTES);
  });

  test('retries a transient send failure and succeeds', async () => {
    const sqs = new FakeClient((_command, call) => {
      if (call === 1) throw awsError('ServiceUnavailable', 503);
      return { MessageId: 'x' };
    });
    const sleep = recordingSleep();
    await new DlqSender(asClient<SQSClient>(sqs), DLQ_URL, { sleep }).send(failureOf('{}'));
    expect(sqs.commands).toHaveLength(2);
    expect(sleep.delays).toHaveLength(1);
  });

  test('a send that keeps failing becomes a DlqSendError (transient) naming the record and the queue, with the cause', async () => {
    const sqs = new FakeClient(() => {
      throw awsError('InternalError', 500, 'We encountered an internal error');
    });
    const error = await new DlqSender(asClient<SQSClient>(sqs), DLQ_URL, { sleep: recordingSleep(), maxAttempts: 3 }).send(failureOf('{}')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DlqSendError);
    expect(error).toBeInstanceOf(TransientError);
    expect((error as Error).message).toContain('m-1');
    expect((error as Error).message).toContain(DLQ_URL);
    expect((error as Error).message).toContain('We encountered an internal error');
    expect((error as Error).cause).toBeDefined();
    expect(sqs.commands).toHaveLength(3);
  });

  test('a permanent send failure is not retried', async () => {
    const sqs = new FakeClient(() => {
      throw awsError('AWS.SimpleQueueService.NonExistentQueue', 400);
    });
    await expect(new DlqSender(asClient<SQSClient>(sqs), DLQ_URL, { sleep: recordingSleep() }).send(failureOf('{}'))).rejects.toBeInstanceOf(DlqSendError);
    expect(sqs.commands).toHaveLength(1);
  });
});

/** Kinesis data SQS could never carry as text: the bytes 0x00..0x1f, valid UTF-8 but not JSON. */
const CONTROL_BYTES = Buffer.from(Array.from({ length: 0x20 }, (_, byte) => byte));

/**
 * The error the runtime meets on such a record, made worse in every way SQS refuses: the real
 * JSON.parse message quotes the control bytes; then U+FFFE, U+FFFF, both lone surrogates and a
 * valid pair (which SQS accepts), and enough text to pass every attribute limit.
 */
function hostileError(): Error {
  const error = parseError(CONTROL_BYTES.toString('utf8'));
  error.message += ` \uFFFE\uFFFF lone high \uD83D, lone low \uDE00, a pair \uD83D\uDE00 ${'m'.repeat(10_000)}`;
  error.name = `Invalid\u0000Envelope\u001fError\uFFFF\uDC00`;
  return error;
}

function parseError(body: string): Error {
  try {
    parseEnvelope(body);
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the body not to parse');
}

function hostileFailure(record: SourceRecord): FailureEnvelope {
  return describeFailure({ consumer: 'order-projection', reason: DlqReason.PERMANENT, error: hostileError(), record, now: NOW });
}

async function sentInput(failure: FailureEnvelope): Promise<SendMessageCommandInput> {
  const sqs = new FakeClient();
  await new DlqSender(asClient<SQSClient>(sqs), DLQ_URL).send(failure);
  return sqs.commands[0].input as unknown as SendMessageCommandInput;
}

describe('DlqSender.send: only what SQS accepts (checked against its documented rules, not an emulator)', () => {
  test('a failure whose error holds control characters, U+FFFE/U+FFFF and lone surrogates: SQS would accept the message, and the body keeps the error exactly', async () => {
    const failure = hostileFailure(fromKinesisRecord(kinesisRecord(CONTROL_BYTES)));
    expect(failure.error.message).toContain('\u0000');
    const input = await sentInput(failure);

    expect(sqsViolations(input)).toEqual([]);
    const body = JSON.parse(String(input.MessageBody)) as FailureEnvelope;
    expect(body.error.message).toBe(failure.error.message);
    expect(body.error.name).toBe(failure.error.name);
    expect(body).toEqual(JSON.parse(JSON.stringify(failure)));
  });

  test('every attribute value is bounded in UTF-8 bytes: the error message at 1,024, the others at 256', async () => {
    const input = await sentInput(hostileFailure(fromKinesisRecord(kinesisRecord(CONTROL_BYTES))));
    const attributes = Object.entries(input.MessageAttributes ?? {});
    const bytes = (name: string) => Buffer.byteLength(String(input.MessageAttributes?.[name]?.StringValue));
    expect(bytes(DlqAttribute.ERROR_MESSAGE)).toBeLessThanOrEqual(1_024);
    expect(bytes(DlqAttribute.ERROR_MESSAGE)).toBeGreaterThan(1_020);
    for (const [name] of attributes.filter(([name]) => name !== DlqAttribute.ERROR_MESSAGE)) expect(bytes(name)).toBeLessThanOrEqual(256);
  });

  test('the attribute fallback (wrapper over 1 MiB) with a JSON original holding U+FFFF: SQS would accept it, and the body is the same JSON value', async () => {
    // A DynamoDB stream record: its original body is JSON text that may hold any Unicode string.
    const blob = `${'"'.repeat(300_000)}\uFFFF\uFFFE`;
    const failure = hostileFailure(fromDynamoDbRecord(dynamoRecord({ newImage: { pk: 'order#o-1', blob } })));
    expect(Buffer.byteLength(JSON.stringify(failure))).toBeGreaterThan(SQS_MAX_MESSAGE_BYTES);
    const input = await sentInput(failure);

    expect(sqsViolations(input)).toEqual([]);
    expect(input.MessageAttributes?.[DlqAttribute.FORMAT]?.StringValue).toBe(ATTRIBUTE_CONTEXT_FORMAT);
    expect(JSON.parse(String(input.MessageBody))).toEqual(JSON.parse(failure.original.body));
  });

  test('the attribute names follow SQS\'s naming rules', () => {
    const MessageAttributes = Object.fromEntries(Object.values(DlqAttribute).map((name) => [name, { DataType: 'String', StringValue: 'x' }]));
    expect(sqsViolations({ QueueUrl: DLQ_URL, MessageBody: 'x', MessageAttributes })).toEqual([]);
  });
});
