/**
 * Publishing to an ordered target keeps each order key's publish order through partial failures:
 * an SQS FIFO queue per message group, a Kinesis stream per partition key, an SNS FIFO topic per
 * message group. The scenario that breaks it: a request holds two entries of one key, the earlier
 * is refused (throttled, an internal error) and the later accepted, and the resend of the earlier
 * lands after it. The clients are fakes over an `AcceptedLog` (test/helpers/fakes.ts) that refuse
 * the entries a test names and log what they accept per key: no local engine fails single entries
 * of a batch on demand. Sleeps are injected.
 */
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { SendMessageBatchRequestEntry, SQSClient } from '@aws-sdk/client-sqs';
import type { SNSClient } from '@aws-sdk/client-sns';
import fc from 'fast-check';
import { PublishError, PublishRejectedError } from '../../../../lambdas/runtime/core/errors';
import { createEnvelope, outgoingMessage, publishToKinesis, publishToSqs, type OutgoingMessage } from '../../../../lambdas/runtime/producing/producer';
import { publishToSns } from '../../../../lambdas/runtime/producing/sns-producer';
import { AcceptedLog, asClient, FakeClient, fifoQueueFake, fifoTopicFake, kinesisStreamFake, noSleep, recordingSleep, type RecordedCommand } from '../../../helpers/fakes';

const FIFO_QUEUE = 'https://sqs.us-east-1.amazonaws.com/000000000000/ledger.fifo';
const FIFO_TOPIC = 'arn:aws:sns:us-east-1:000000000000:ledger.fifo';
const STREAM = 'orders';

/** Ledger entries, one per key given, numbered per key in publish order (`A#1`, `A#2`, `B#1`, ...). */
function entries(...keys: string[]): OutgoingMessage[] {
  const counts = new Map<string, number>();
  return keys.map((key) => {
    counts.set(key, (counts.get(key) ?? 0) + 1);
    const label = `${key}#${counts.get(key)}`;
    return outgoingMessage(createEnvelope({ type: 'ledger.entry', businessKey: label, source: 'test', payload: { label }, occurredAt: '2026-12-01T10:00:00Z' }), key);
  });
}

/** Each key's labels in publish order: what every ordered target must end up with. */
function publishOrder(messages: readonly OutgoingMessage[]): Map<string, string[]> {
  const order = new Map<string, string[]>();
  for (const message of messages) order.set(message.partitionKey ?? '', [...(order.get(message.partitionKey ?? '') ?? []), labelOf(message.body)]);
  return order;
}

/** What the target accepted, per key, by label (`A#1`), so that a failure reads as the order it got. */
function accepted(log: AcceptedLog): Map<string, string[]> {
  return new Map([...log.byKey].map(([key, bodies]) => [key, bodies.map(labelOf)]));
}

const labelOf = (body: string): string => (JSON.parse(body) as { payload: { label: string } }).payload.label;

/** Refuses the bodies of the given messages this many times each before accepting them. */
function refusing(times: number, ...refused: (OutgoingMessage | undefined)[]): AcceptedLog {
  const bodies = new Set(refused.map((message) => message?.body));
  return new AcceptedLog((body) => (bodies.has(body) ? times : 0));
}

const sqsEntries = (command: RecordedCommand) => command.input.Entries as SendMessageBatchRequestEntry[];
const sum = (counts: readonly number[]) => counts.reduce((total, count) => total + count, 0);
const requestSizes = (client: FakeClient, field: 'Entries' | 'Records') => client.commands.map((command) => (command.input[field] as unknown[]).length);

describe('publishToSqs to a FIFO queue', () => {
  test('a message refused while a later one of its group would be accepted still arrives first', async () => {
    const messages = entries('A', 'A', 'B', 'A');
    const log = refusing(2, messages[0]);
    const sqs = fifoQueueFake(log);
    await publishToSqs(asClient<SQSClient>(sqs), FIFO_QUEUE, messages, { sleep: recordingSleep() });
    expect(accepted(log)).toEqual(publishOrder(messages));
  });

  test('messages of distinct groups share requests: 25 groups, 3 requests, as to a standard queue', async () => {
    const messages = entries(...Array.from({ length: 25 }, (_, n) => `G${n}`));
    const sqs = fifoQueueFake(new AcceptedLog());
    await publishToSqs(asClient<SQSClient>(sqs), FIFO_QUEUE, messages, { sleep: recordingSleep() });
    expect(requestSizes(sqs, 'Entries')).toEqual([10, 10, 5]);
  });

  test('n messages of one group take n requests of one message, and no wait', async () => {
    const messages = entries(...Array.from({ length: 25 }, () => 'A'));
    const sleep = recordingSleep();
    const sqs = fifoQueueFake(new AcceptedLog());
    await publishToSqs(asClient<SQSClient>(sqs), FIFO_QUEUE, messages, { sleep });
    expect(requestSizes(sqs, 'Entries')).toEqual(Array.from({ length: 25 }, () => 1));
    expect(sleep.delays).toEqual([]);
  });

  test('a message SQS rejects as the sender\'s fault is thrown, and no later message of its group is sent', async () => {
    const messages = entries('A', 'B', 'A');
    const sqs = fifoQueueFake(new AcceptedLog());
    sqs.respondWith((command) => ({
      Successful: sqsEntries(command).filter((entry) => entry.Id !== '0').map((entry) => ({ Id: entry.Id, MessageId: 'm' })),
      Failed: sqsEntries(command).filter((entry) => entry.Id === '0').map((entry) => ({ Id: entry.Id, SenderFault: true, Code: 'InvalidMessageContents' })),
    }));
    const error = await publishToSqs(asClient<SQSClient>(sqs), FIFO_QUEUE, messages, { sleep: recordingSleep() }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PublishRejectedError);
    expect(sqs.commands.flatMap(sqsEntries).map((entry) => entry.Id)).toEqual(['0', '1']);
  });

  test('after maxAttempts, PublishError names the failing message and the later ones of its group, which were never sent', async () => {
    const messages = entries('A', 'B', 'A');
    const sqs = fifoQueueFake(refusing(Infinity, messages[0]));
    const error = await publishToSqs(asClient<SQSClient>(sqs), FIFO_QUEUE, messages, { sleep: recordingSleep(), maxAttempts: 3 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PublishError);
    expect((error as PublishError).failedIds).toEqual(['0', '2']);
    expect(sqs.commands.flatMap(sqsEntries).map((entry) => entry.Id)).toEqual(['0', '1', '0', '0']);
  });
});

describe('publishToKinesis', () => {
  test('a record refused while a later one of its partition key would be accepted still arrives first', async () => {
    const messages = entries('order-1', 'order-1', 'order-2', 'order-1');
    const log = refusing(1, messages[0], messages[1]);
    const kinesis = kinesisStreamFake(log);
    await publishToKinesis(asClient<KinesisClient>(kinesis), STREAM, messages, { sleep: recordingSleep() });
    expect(accepted(log)).toEqual(publishOrder(messages));
  });

  test('records of distinct keys share requests: 600 keys, 2 requests', async () => {
    const kinesis = kinesisStreamFake(new AcceptedLog());
    await publishToKinesis(asClient<KinesisClient>(kinesis), STREAM, entries(...Array.from({ length: 600 }, (_, n) => `order-${n}`)), { sleep: recordingSleep() });
    expect(requestSizes(kinesis, 'Records')).toEqual([500, 100]);
  });

  test('when nothing is refused, records go out in publish order whatever their keys, a request ending before a key\'s second record', async () => {
    const messages = entries('order-1', 'order-1', 'order-2', 'order-3', 'order-1');
    const kinesis = kinesisStreamFake(new AcceptedLog());
    await publishToKinesis(asClient<KinesisClient>(kinesis), STREAM, messages, { sleep: recordingSleep() });
    expect(requestSizes(kinesis, 'Records')).toEqual([1, 3, 1]);
    const sent = kinesis.commands.flatMap((command) => (command.input.Records as { Data: Uint8Array }[]).map((record) => labelOf(Buffer.from(record.Data).toString('utf8'))));
    expect(sent).toEqual(messages.map((message) => labelOf(message.body)));
  });

  test('n records of one key take n requests; a refusal costs one more', async () => {
    const messages = entries(...Array.from({ length: 20 }, () => 'order-1'));
    const kinesis = kinesisStreamFake(refusing(1, messages[7]));
    await publishToKinesis(asClient<KinesisClient>(kinesis), STREAM, messages, { sleep: recordingSleep() });
    expect(requestSizes(kinesis, 'Records')).toEqual(Array.from({ length: 21 }, () => 1));
  });

  test('after maxAttempts, PublishError names the failing record and the later ones of its key', async () => {
    const messages = entries('order-1', 'order-2', 'order-1');
    const kinesis = kinesisStreamFake(refusing(Infinity, messages[0]));
    const error = await publishToKinesis(asClient<KinesisClient>(kinesis), STREAM, messages, { sleep: recordingSleep(), maxAttempts: 2 }).catch((caught: unknown) => caught);
    expect((error as PublishError).failedIds).toEqual(['0', '2']);
    expect(requestSizes(kinesis, 'Records')).toEqual([2, 1]);
  });
});

describe('publishToSns to a FIFO topic', () => {
  test('each message goes in the group of its partition key, with its event id as the deduplication id', async () => {
    const [message] = entries('A');
    const sns = fifoTopicFake(new AcceptedLog());
    await publishToSns(asClient<SNSClient>(sns), FIFO_TOPIC, [message as OutgoingMessage]);
    expect(sns.commands[0]?.input).toMatchObject({ TopicArn: FIFO_TOPIC, MessageGroupId: 'A', MessageDeduplicationId: message?.eventId });
  });

  test('a publish throttled while a later one of its group is in flight still arrives first', async () => {
    const messages = entries('A', 'A', 'B', 'A');
    const log = refusing(1, messages[0]);
    await publishToSns(asClient<SNSClient>(fifoTopicFake(log)), FIFO_TOPIC, messages, { sleep: recordingSleep() });
    expect(accepted(log)).toEqual(publishOrder(messages));
  });

  test('distinct groups are published 8 at a time', async () => {
    let inFlight = 0;
    let most = 0;
    const sns = new FakeClient(async () => {
      most = Math.max(most, (inFlight += 1));
      await new Promise((resolve) => setImmediate(resolve));
      inFlight -= 1;
      return { MessageId: 'sns' };
    });
    await publishToSns(asClient<SNSClient>(sns), FIFO_TOPIC, entries(...Array.from({ length: 20 }, (_, n) => `G${n}`)));
    expect(most).toBe(8);
    expect(sns.commands).toHaveLength(20);
  });
});

/**
 * The model: whatever entries are refused, and how often, each key's log ends up in publish order,
 * every entry in it once, and every request gets one entry through or one refusal used up (so at
 * most one request per entry and per refusal). Keys are few, so that entries of one key crowd.
 */
describe('any refusals, as long as attempts last', () => {
  const scenario = fc.record({
    keys: fc.array(fc.constantFrom('A', 'B', 'C'), { minLength: 1, maxLength: 40 }),
    refusals: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 40, maxLength: 40 }),
  });

  function logFor(messages: readonly OutgoingMessage[], refusals: readonly number[]): AcceptedLog {
    const timesOf = new Map(messages.map((message, position) => [message.body, refusals[position] ?? 0]));
    return new AcceptedLog((body) => timesOf.get(body) ?? 0);
  }

  const retry = { sleep: noSleep, maxAttempts: 4 };
  test.each([
    { target: 'an SQS FIFO queue', fake: fifoQueueFake, publish: (client: FakeClient, messages: OutgoingMessage[]) => publishToSqs(asClient<SQSClient>(client), FIFO_QUEUE, messages, retry) },
    { target: 'a Kinesis stream', fake: kinesisStreamFake, publish: (client: FakeClient, messages: OutgoingMessage[]) => publishToKinesis(asClient<KinesisClient>(client), STREAM, messages, retry) },
    { target: 'an SNS FIFO topic', fake: fifoTopicFake, publish: (client: FakeClient, messages: OutgoingMessage[]) => publishToSns(asClient<SNSClient>(client), FIFO_TOPIC, messages, retry) },
  ])('$target gets each key in publish order', async ({ fake, publish }) => {
    await fc.assert(fc.asyncProperty(scenario, async ({ keys, refusals }) => {
      const messages = entries(...keys);
      const log = logFor(messages, refusals);
      const client = fake(log);
      await publish(client, messages);
      expect(accepted(log)).toEqual(publishOrder(messages));
      expect(client.commands.length).toBeLessThanOrEqual(messages.length + sum(refusals.slice(0, messages.length)));
    }));
  });
});
