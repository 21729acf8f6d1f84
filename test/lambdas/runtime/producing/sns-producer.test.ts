/**
 * Publishing to SNS for fan-out: one Publish per message with its event id as a message
 * attribute, at most 8 in flight, a transient failure resent with the same body and a refusal
 * that is the sender's fault not resent. The SNS client is a fake whose `send` records commands and
 * scripts failures (the fan-out through a real topic: test/emulator/stack/fan-out.int.test.ts).
 */
import type { SNSClient } from '@aws-sdk/client-sns';
import { classifyError } from '../../../../lambdas/runtime/core/classify';
import { FailureKind } from '../../../../lambdas/runtime/core/errors';
import { createEnvelope, outgoingMessage, type OutgoingMessage } from '../../../../lambdas/runtime/producing/producer';
import { publishToSns } from '../../../../lambdas/runtime/producing/sns-producer';
import { asClient, awsError, FakeClient, recordingSleep } from '../../../helpers/fakes';

const TOPIC_ARN = 'arn:aws:sns:us-east-1:000000000000:orders';

function shipments(count: number): OutgoingMessage[] {
  return Array.from({ length: count }, (_, n) => outgoingMessage(createEnvelope({ type: 'order.shipped', businessKey: `o-${n}`, source: 'test', payload: { orderId: `o-${n}` }, occurredAt: '2026-12-01T10:00:00Z' })));
}

const published = (sns: FakeClient) => sns.commandsNamed('PublishCommand').map((command) => command.input);

test('one Publish per message, its body as it is and its event id as the eventId attribute', async () => {
  const sns = new FakeClient(() => ({ MessageId: 'sns-1' }));
  const messages = shipments(3);
  expect(await publishToSns(asClient<SNSClient>(sns), TOPIC_ARN, messages)).toEqual({ sent: 3, retried: 0 });
  expect(published(sns)).toEqual(messages.map((message) => ({ TopicArn: TOPIC_ARN, Message: message.body, MessageAttributes: { eventId: { DataType: 'String', StringValue: message.eventId } } })));
});

test('a message without an event id is published without the attribute', async () => {
  const sns = new FakeClient(() => ({ MessageId: 'sns-1' }));
  await publishToSns(asClient<SNSClient>(sns), TOPIC_ARN, [{ body: '{"plain":true}' }]);
  expect(published(sns)).toEqual([{ TopicArn: TOPIC_ARN, Message: '{"plain":true}', MessageAttributes: undefined }]);
});

test('at most 8 publishes are in flight at once', async () => {
  let inFlight = 0;
  let most = 0;
  const sns = new FakeClient(async () => {
    inFlight += 1;
    most = Math.max(most, inFlight);
    await new Promise((resolve) => setImmediate(resolve));
    inFlight -= 1;
    return { MessageId: 'sns' };
  });
  expect(await publishToSns(asClient<SNSClient>(sns), TOPIC_ARN, shipments(20))).toEqual({ sent: 20, retried: 0 });
  expect(most).toBe(8);
  expect(sns.commands).toHaveLength(20);
});

test('a throttled publish is resent after a backoff with the same body, so the same event id', async () => {
  const sleep = recordingSleep();
  const sns = new FakeClient((_command, call) => {
    if (call === 1) throw awsError('Throttling', 400, 'Rate exceeded');
    return { MessageId: `sns-${call}` };
  });
  const [message] = shipments(1);
  expect(await publishToSns(asClient<SNSClient>(sns), TOPIC_ARN, [message as OutgoingMessage], { sleep })).toEqual({ sent: 1, retried: 1 });
  expect(published(sns).map((input) => input.Message)).toEqual([message?.body, message?.body]);
  expect(sleep.delays).toHaveLength(1);
});

test('a publish SNS refuses as the sender\'s fault is not resent', async () => {
  const sns = new FakeClient(() => {
    throw awsError('InvalidParameter', 400, 'Invalid parameter: Message too long');
  });
  await expect(publishToSns(asClient<SNSClient>(sns), TOPIC_ARN, shipments(1), { sleep: recordingSleep() })).rejects.toMatchObject({ name: 'InvalidParameter' });
  expect(sns.commands).toHaveLength(1);
});

test('a publish still failing after maxAttempts throws the last attempt\'s error, which the consumer takes as transient', async () => {
  const sns = new FakeClient(() => {
    throw awsError('InternalError', 500);
  });
  const publishing = publishToSns(asClient<SNSClient>(sns), TOPIC_ARN, shipments(1), { maxAttempts: 3, sleep: recordingSleep() });
  await expect(publishing).rejects.toMatchObject({ name: 'InternalError' });
  expect(sns.commands).toHaveLength(3);
  expect(classifyError(await publishing.catch((error: unknown) => error))).toBe(FailureKind.TRANSIENT);
});
