/**
 * The producer library: envelopes whose event id derives from the business key, and batch
 * publishes that resend only what failed, with the same bodies (so the same event ids).
 *
 * The SQS and Kinesis clients are fakes whose `send` records commands and scripts partial
 * failures: what is under test is our retry logic, not the services. Sleeps are injected.
 */
import type { KinesisClient, PutRecordsRequestEntry } from '@aws-sdk/client-kinesis';
import type { SendMessageBatchRequestEntry, SQSClient } from '@aws-sdk/client-sqs';
import { parseEnvelope } from '../../../../lambdas/runtime/events/envelope';
import { PermanentError, PublishError, PublishRejectedError } from '../../../../lambdas/runtime/core/errors';
import { eventIdFor } from '../../../../lambdas/runtime/events/event-id';
import { createEnvelope, outgoingMessage, publishToKinesis, publishToSqs, type OutgoingMessage } from '../../../../lambdas/runtime/producing/producer';
import { asClient, awsError, FakeClient, recordingSleep, type RecordedCommand } from '../../../helpers/fakes';

const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/page-views';

function views(count: number): OutgoingMessage[] {
  return Array.from({ length: count }, (_, n) => outgoingMessage(createEnvelope({ type: 'page.viewed', businessKey: `home:${n}`, source: 'test', payload: { pageId: 'home' }, occurredAt: '2026-11-30T10:00:00Z' })));
}

const sqsEntries = (command: RecordedCommand) => command.input.Entries as SendMessageBatchRequestEntry[];
const kinesisEntries = (command: RecordedCommand) => command.input.Records as PutRecordsRequestEntry[];

/** An SQS fake that fails the given entry ids (by call number) and accepts the rest. */
function sqsFailing(failuresByCall: Record<number, { Id: string; SenderFault: boolean; Code: string }[]>): FakeClient {
  return new FakeClient((command, call) => {
    const failed = failuresByCall[call] ?? [];
    const failedIds = new Set(failed.map((failure) => failure.Id));
    return { Successful: sqsEntries(command).filter((entry) => !failedIds.has(String(entry.Id))).map((entry) => ({ Id: entry.Id, MessageId: `sqs-${entry.Id}` })), Failed: failed };
  });
}

/** An SQS fake that rejects one entry as the sender's fault on every call, as SQS does with a body it cannot take. */
function sqsRejectingAsSenderFault(id: string, code: string): FakeClient {
  return new FakeClient((command) => {
    const entries = sqsEntries(command);
    return {
      Successful: entries.filter((entry) => entry.Id !== id).map((entry) => ({ Id: entry.Id, MessageId: `sqs-${entry.Id}` })),
      Failed: entries.filter((entry) => entry.Id === id).map((entry) => ({ Id: entry.Id, SenderFault: true, Code: code })),
    };
  });
}

describe('createEnvelope', () => {
  test('derives the eventId from the type and the business key', () => {
    const envelope = createEnvelope({ type: 'order.shipped', businessKey: 'o-42', source: 'orders', payload: { orderId: 'o-42' }, occurredAt: '2026-11-30T10:00:00Z' });
    expect(envelope).toEqual({ eventId: eventIdFor('order.shipped', 'o-42'), type: 'order.shipped', occurredAt: '2026-11-30T10:00:00Z', source: 'orders', payload: { orderId: 'o-42' } });
  });

  test('a retry of the same publish gets the same eventId, whatever else changes', () => {
    const first = createEnvelope({ type: 'order.shipped', businessKey: 'o-42', source: 'orders', payload: { at: 1 } });
    const retry = createEnvelope({ type: 'order.shipped', businessKey: 'o-42', source: 'orders-v2', payload: { at: 2 } });
    expect(retry.eventId).toBe(first.eventId);
  });

  test('occurredAt defaults to now, as an ISO timestamp the consumer accepts', () => {
    jest.useFakeTimers({ now: new Date('2026-11-30T10:11:12.345Z') });
    try {
      const envelope = createEnvelope({ type: 'page.viewed', businessKey: 'home:1', source: 'web', payload: { pageId: 'home' } });
      expect(envelope.occurredAt).toBe('2026-11-30T10:11:12.345Z');
      expect(parseEnvelope(outgoingMessage(envelope).body)).toEqual(envelope);
    } finally {
      jest.useRealTimers();
    }
  });

  test('outgoingMessage serialises the envelope and partitions by event id unless told otherwise', () => {
    const envelope = createEnvelope({ type: 'order.shipped', businessKey: 'o-42', source: 'orders', payload: {} });
    expect(outgoingMessage(envelope)).toEqual({ body: JSON.stringify(envelope), partitionKey: envelope.eventId, eventId: envelope.eventId });
    expect(outgoingMessage(envelope, 'o-42').partitionKey).toBe('o-42');
  });
});

describe('publishToSqs', () => {
  test('sends 10 entries per batch, each with its body and its eventId attribute', async () => {
    const sqs = sqsFailing({});
    const messages = views(25);
    const result = await publishToSqs(asClient<SQSClient>(sqs), QUEUE_URL, messages, { sleep: recordingSleep() });

    expect(result).toEqual({ sent: 25, retried: 0 });
    expect(sqs.commands.map((command) => sqsEntries(command).length)).toEqual([10, 10, 5]);
    const entries = sqs.commands.flatMap(sqsEntries);
    expect(entries.map((entry) => entry.MessageBody)).toEqual(messages.map((message) => message.body));
    expect(entries.map((entry) => entry.MessageAttributes?.eventId?.StringValue)).toEqual(messages.map((message) => message.eventId));
    expect(new Set(entries.map((entry) => entry.Id)).size).toBe(25);
    expect(sqs.commands.every((command) => command.input.QueueUrl === QUEUE_URL)).toBe(true);
  });

  test('resends only the entries that failed, with unchanged bodies, after a jittered wait', async () => {
    const sqs = sqsFailing({ 1: [{ Id: '1', SenderFault: false, Code: 'InternalError' }, { Id: '3', SenderFault: false, Code: 'ServiceUnavailable' }] });
    const sleep = recordingSleep();
    const messages = views(5);
    const result = await publishToSqs(asClient<SQSClient>(sqs), QUEUE_URL, messages, { sleep, baseMs: 100 });

    expect(result).toEqual({ sent: 5, retried: 2 });
    const [first, second, ...more] = sqs.commands;
    expect(more).toEqual([]);
    expect(sqsEntries(first)).toHaveLength(5);
    const resent = sqsEntries(second);
    expect(resent.map((entry) => entry.Id)).toEqual(['1', '3']);
    expect(resent.map((entry) => entry.MessageBody)).toEqual([messages[1].body, messages[3].body]);
    expect(resent.map((entry) => JSON.parse(String(entry.MessageBody)).eventId)).toEqual([messages[1].eventId, messages[3].eventId]);
    expect(resent).toEqual([sqsEntries(first)[1], sqsEntries(first)[3]]);
    expect(sleep.delays).toHaveLength(1);
    expect(sleep.delays[0]).toBeGreaterThanOrEqual(0);
    expect(sleep.delays[0]).toBeLessThan(100);
  });

  test('after maxAttempts, PublishError names the entries that never got through', async () => {
    const alwaysFailing = { Id: '2', SenderFault: false, Code: 'InternalError' };
    const sqs = sqsFailing({ 1: [alwaysFailing], 2: [alwaysFailing], 3: [alwaysFailing] });
    const sleep = recordingSleep();
    const error = await publishToSqs(asClient<SQSClient>(sqs), QUEUE_URL, views(4), { sleep, maxAttempts: 3 }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PublishError);
    expect((error as PublishError).failedIds).toEqual(['2']);
    expect((error as PublishError).message).toContain('after 3 attempts');
    expect(sqs.commands).toHaveLength(3);
    expect(sleep.delays).toHaveLength(2);
  });

  test('a whole request that fails transiently is sent again in full', async () => {
    const sqs = new FakeClient((command, call) => {
      if (call === 1) throw awsError('ThrottlingException', 400);
      return { Successful: sqsEntries(command).map((entry) => ({ Id: entry.Id })), Failed: [] };
    });
    const result = await publishToSqs(asClient<SQSClient>(sqs), QUEUE_URL, views(3), { sleep: recordingSleep() });
    expect(result).toEqual({ sent: 3, retried: 3 });
    expect(sqsEntries(sqs.commands[1])).toEqual(sqsEntries(sqs.commands[0]));
  });

  test('a whole request that fails permanently is thrown at once', async () => {
    const denied = awsError('AccessDenied', 403);
    const sqs = new FakeClient(() => {
      throw denied;
    });
    await expect(publishToSqs(asClient<SQSClient>(sqs), QUEUE_URL, views(3), { sleep: recordingSleep() })).rejects.toBe(denied);
    expect(sqs.commands).toHaveLength(1);
  });

  test('entries rejected as the sender\'s fault are not retried: PublishError at once, naming them', async () => {
    const sqs = sqsRejectingAsSenderFault('1', 'InvalidMessageContents');
    const sleep = recordingSleep();
    const error = await publishToSqs(asClient<SQSClient>(sqs), QUEUE_URL, views(3), { sleep, maxAttempts: 5 }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PublishRejectedError);
    expect((error as PublishRejectedError).rejectedIds).toEqual(['1']);
    expect((error as PublishRejectedError).message).toContain('InvalidMessageContents');
    expect(sqs.commands.length).toBe(1);
    expect(sleep.delays).toEqual([]);
  });

  test('entries accepted beside a sender fault are never sent twice', async () => {
    const sqs = sqsRejectingAsSenderFault('1', 'InvalidMessageContents');
    await publishToSqs(asClient<SQSClient>(sqs), QUEUE_URL, views(3), { sleep: recordingSleep(), maxAttempts: 3 }).catch(() => undefined);
    const sendsOfEntry0 = sqs.commands.flatMap(sqsEntries).filter((entry) => entry.Id === '0');
    expect(sendsOfEntry0.length).toBe(1);
  });

  test('nothing to publish, nothing sent', async () => {
    const sqs = sqsFailing({});
    expect(await publishToSqs(asClient<SQSClient>(sqs), QUEUE_URL, [])).toEqual({ sent: 0, retried: 0 });
    expect(sqs.commands).toEqual([]);
  });

  test('a message without an eventId (a deliberately broken body) is sent without the attribute', async () => {
    const sqs = sqsFailing({});
    await publishToSqs(asClient<SQSClient>(sqs), QUEUE_URL, [{ body: 'not json' }], { sleep: recordingSleep() });
    expect(sqsEntries(sqs.commands[0])[0]).toEqual({ Id: '0', MessageBody: 'not json', MessageAttributes: undefined });
  });
});

describe('publishToKinesis', () => {
  const STREAM = 'orders';

  /** A Kinesis fake that fails the records at the given positions (by call number). */
  function kinesisFailing(failedPositionsByCall: Record<number, number[]>): FakeClient {
    return new FakeClient((command, call) => {
      const failed = new Set(failedPositionsByCall[call] ?? []);
      const records = kinesisEntries(command).map((_, position) =>
        failed.has(position) ? { ErrorCode: 'ProvisionedThroughputExceededException', ErrorMessage: 'Rate exceeded for shard' } : { SequenceNumber: `seq-${call}-${position}`, ShardId: 'shardId-000000000000' },
      );
      return { FailedRecordCount: failed.size, Records: records };
    });
  }

  test('sends 500 records per request with their data and partition keys', async () => {
    const kinesis = kinesisFailing({});
    const messages = views(600);
    expect(await publishToKinesis(asClient<KinesisClient>(kinesis), STREAM, messages, { sleep: recordingSleep() })).toEqual({ sent: 600, retried: 0 });
    expect(kinesis.commands.map((command) => kinesisEntries(command).length)).toEqual([500, 100]);
    const records = kinesis.commands.flatMap(kinesisEntries);
    expect(records.map((record) => Buffer.from(record.Data as Uint8Array).toString('utf8'))).toEqual(messages.map((message) => message.body));
    expect(records.map((record) => record.PartitionKey)).toEqual(messages.map((message) => message.partitionKey));
    expect(kinesis.commands[0].input.StreamName).toBe(STREAM);
  });

  test('resends only the records whose result carries an ErrorCode, with the same bytes and partition keys', async () => {
    const kinesis = kinesisFailing({ 1: [0, 2] });
    const sleep = recordingSleep();
    const messages = views(4);
    const result = await publishToKinesis(asClient<KinesisClient>(kinesis), STREAM, messages, { sleep });

    expect(result).toEqual({ sent: 4, retried: 2 });
    const resent = kinesisEntries(kinesis.commands[1]);
    expect(resent.map((record) => Buffer.from(record.Data as Uint8Array).toString('utf8'))).toEqual([messages[0].body, messages[2].body]);
    expect(resent.map((record) => record.PartitionKey)).toEqual([messages[0].partitionKey, messages[2].partitionKey]);
    expect(sleep.delays).toHaveLength(1);
  });

  test('positions are re-read on each retry: a second partial failure resends the right record', async () => {
    const kinesis = kinesisFailing({ 1: [1, 3], 2: [1] });
    const messages = views(4);
    await publishToKinesis(asClient<KinesisClient>(kinesis), STREAM, messages, { sleep: recordingSleep() });
    const third = kinesisEntries(kinesis.commands[2]);
    expect(third.map((record) => Buffer.from(record.Data as Uint8Array).toString('utf8'))).toEqual([messages[3].body]);
  });

  test('after maxAttempts, PublishError names the records that never got through', async () => {
    const kinesis = kinesisFailing({ 1: [1], 2: [0], 3: [0] });
    const error = await publishToKinesis(asClient<KinesisClient>(kinesis), STREAM, views(3), { sleep: recordingSleep(), maxAttempts: 3 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PublishError);
    expect((error as PublishError).failedIds).toEqual(['1']);
    expect(kinesis.commands).toHaveLength(3);
  });

  test('a permanent failure of the request is thrown without retry', async () => {
    const kinesis = new FakeClient(() => {
      throw awsError('ResourceNotFoundException', 400);
    });
    await expect(publishToKinesis(asClient<KinesisClient>(kinesis), STREAM, views(2), { sleep: recordingSleep() })).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    expect(kinesis.commands).toHaveLength(1);
  });

  test('the last attempt\'s request failure is thrown as it is', async () => {
    const kinesis = new FakeClient(() => {
      throw awsError('InternalFailure', 500);
    });
    await expect(publishToKinesis(asClient<KinesisClient>(kinesis), STREAM, views(2), { sleep: recordingSleep(), maxAttempts: 2 })).rejects.toMatchObject({ name: 'InternalFailure' });
    expect(kinesis.commands).toHaveLength(2);
  });

  test('PublishError is transient: the caller may retry the whole publish safely, since ids do not change', () => {
    expect(new PublishError('x', ['1'])).not.toBeInstanceOf(PermanentError);
  });
});
