/**
 * Writing failure wrappers to the DLQ. SQS is a fake whose `send` records SendMessage commands (or
 * throws): what is under test is the message we build and how we react to a failed send.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { ATTRIBUTE_CONTEXT_FORMAT, DlqAttribute, DlqSender, SQS_MAX_MESSAGE_BYTES } from '../../lambdas/runtime/dlq';
import { DlqSendError, SchemaViolationError, TransientError } from '../../lambdas/runtime/errors';
import { describeFailure, DlqReason, FAILURE_FORMAT, type FailureEnvelope } from '../../lambdas/runtime/failureContext';
import { fromSqsRecord } from '../../lambdas/runtime/records';
import { pageView, sqsRecord } from '../helpers/events';
import { asClient, awsError, FakeClient, recordingSleep } from './fakes';

const DLQ_URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/page-views-dlq';
const NOW = new Date('2026-11-30T12:00:00.000Z');

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

  test('cuts a long error message to 1024 characters in the attribute; the body keeps it whole', async () => {
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
