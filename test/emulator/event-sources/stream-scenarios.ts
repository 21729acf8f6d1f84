/**
 * The behaviours every stream mapping must show, run against Kinesis (kinesalite) and DynamoDB
 * Streams (DynamoDB Local) by their own test files, so the two run in parallel.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { LOCAL_REGION } from '../../../emulator/engines';
import { untilQuiet } from '../../../emulator/event-sources/drain';
import { streamBatchInfoOf, type StreamOnFailureRecord } from '../../../aws/lambda/on-failure-record';
import { StreamMapping } from '../../../emulator/event-sources/stream-mapping';
import type { StreamMappingClients, StreamMappingConfig } from '../../../emulator/event-sources/stream-mapping-config';
import type { StreamKind } from '../../../aws/streams/stream-reader';
import { createQueue, receiveAll, uniqueName, type CreatedQueue } from '../../helpers/engines';
import { pollUntil } from '../../helpers/poll';
import { failedItems, recordingFunction, returned, threw, whileRunning, type RecordingFunction } from './support';

export const FUNCTION_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:mapped';

/** A fresh single-shard stream that a test writes to and reads deliveries from. */
export interface StreamUnderTest<R> {
  readonly kind: StreamKind;
  readonly streamArn: string;
  readonly streamName?: string;
  /** Writes one record per payload, in this order, to the stream's one shard. */
  put(payloads: readonly string[]): Promise<void>;
  /** The payload a delivered record carries. */
  payloadOf(record: R): string;
  /** The record's sequence number, the identifier of a partial batch response. */
  sequenceNumberOf(record: R): string;
}

/** How to make streams of one kind. */
export interface StreamSource<R> {
  readonly name: string;
  readonly clients: () => StreamMappingClients & { readonly sqs: SQSClient };
  create(): Promise<StreamUnderTest<R>>;
}

/** A mapping with the settings a test needs: quick polls, no retry delay. */
export function mappingFor<R>(stream: StreamUnderTest<R>, fn: RecordingFunction<R>, clients: StreamMappingClients, overrides: Partial<StreamMappingConfig> = {}): StreamMapping {
  return new StreamMapping({
    kind: stream.kind,
    streamArn: stream.streamArn,
    streamName: stream.streamName,
    region: LOCAL_REGION,
    functionArn: FUNCTION_ARN,
    batchSize: 10,
    bisectBatchOnFunctionError: false,
    maximumRetryAttempts: 2,
    maximumRecordAgeSeconds: -1,
    reportBatchItemFailures: true,
    startingPosition: 'TRIM_HORIZON',
    pollIntervalMs: 50,
    retryDelayMs: 0,
    shardRefreshMs: 200,
    invoke: fn.invoke,
    clients,
    ...overrides,
  });
}

/** Resolves once `check` holds, polling. */
export async function until(check: () => boolean, what: string): Promise<void> {
  await pollUntil(async () => (check() ? true : undefined), what);
}

/** Waits until the mapping has been idle for a while: nothing in flight, nothing new read. */
export async function settled(mapping: StreamMapping): Promise<void> {
  await untilQuiet([mapping], { quietMs: 300, timeoutMs: 10_000 });
}

/** Every on-failure message on the queue, parsed (waits briefly, so a second message would show). */
export async function onFailureMessages(sqs: SQSClient, queue: CreatedQueue): Promise<StreamOnFailureRecord[]> {
  const messages = await receiveAll(sqs, queue.url, { max: 10, waitMs: 300 });
  return messages.map((message) => JSON.parse(message.Body ?? '') as StreamOnFailureRecord);
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

/** Defines the shared stream mapping tests for one source. */
export function describeStreamMapping<R>(source: StreamSource<R>): void {
  describe(`${source.name} mapping`, () => {
    let clients: ReturnType<StreamSource<R>['clients']>;
    beforeAll(() => {
      clients = source.clients();
    });

    const payloads = (stream: StreamUnderTest<R>, fn: RecordingFunction<R>): string[][] => fn.batches.map((batch) => batch.map((record) => stream.payloadOf(record)));
    const sequenceOf = (stream: StreamUnderTest<R>, fn: RecordingFunction<R>, payload: string): string => {
      const record = fn.batches.flat().find((candidate) => stream.payloadOf(candidate) === payload);
      return record === undefined ? 'missing' : stream.sequenceNumberOf(record);
    };
    const withPayload = (stream: StreamUnderTest<R>, payload: string) => (records: R[]): boolean => records.some((record) => stream.payloadOf(record) === payload);

    test('a partial batch response restarts from the lowest failed sequence number', async () => {
      const stream = await source.create();
      await stream.put(['r1', 'r2', 'r3', 'r4', 'r5']);
      const fn = recordingFunction<R>((records, call) => {
        const sequence = (payload: string): string => stream.sequenceNumberOf(records.find((record) => stream.payloadOf(record) === payload) ?? records[0]!);
        return call === 1 ? failedItems(sequence('r5'), sequence('r3')) : returned();
      });
      const mapping = mappingFor(stream, fn, clients);
      await whileRunning(mapping, async () => {
        await until(() => fn.batches.length >= 2, 'a retry');
        await settled(mapping);
      });
      expect(payloads(stream, fn)).toEqual([['r1', 'r2', 'r3', 'r4', 'r5'], ['r3', 'r4', 'r5']]);
      expect(mapping.stats).toMatchObject({ retries: 1, deliveries: 8, onFailureMessages: 0 });
    });

    test('an identifier that is not in the batch fails the whole batch', async () => {
      const stream = await source.create();
      await stream.put(['a', 'b']);
      const fn = recordingFunction<R>((_records, call) => (call === 1 ? failedItems('1234567890') : returned()));
      const mapping = mappingFor(stream, fn, clients);
      await whileRunning(mapping, async () => {
        await until(() => fn.batches.length >= 2, 'a retry');
        await settled(mapping);
      });
      expect(payloads(stream, fn)).toEqual([['a', 'b'], ['a', 'b']]);
      expect(mapping.stats).toMatchObject({ invalidResponses: 1, retries: 1 });
    });

    test('bisect on function error isolates a poison record, which alone goes to the on-failure queue', async () => {
      const [stream, dlq] = await Promise.all([source.create(), createQueue(clients.sqs, uniqueName('on-failure'))]);
      await stream.put(['a', 'b', 'poison', 'd']);
      const fn = recordingFunction<R>((records) => (withPayload(stream, 'poison')(records) ? threw('poison') : returned()));
      const mapping = mappingFor(stream, fn, clients, { bisectBatchOnFunctionError: true, maximumRetryAttempts: 1, onFailureQueueUrl: dlq.url });
      await whileRunning(mapping, async () => {
        await until(() => fn.batches.some(withPayload(stream, 'd')) && mapping.stats.onFailureMessages === 1, 'the poison record to be isolated');
        await settled(mapping);
      });
      expect(payloads(stream, fn)).toEqual([['a', 'b', 'poison', 'd'], ['a', 'b'], ['poison', 'd'], ['poison'], ['poison'], ['d']]);
      expect(mapping.stats).toMatchObject({ bisections: 2, retries: 1, onFailureMessages: 1, recordsSkipped: 1 });
      const [message, ...others] = await onFailureMessages(clients.sqs, dlq);
      expect(others).toHaveLength(0);
      const poison = sequenceOf(stream, fn, 'poison');
      expect(message && streamBatchInfoOf(message)).toMatchObject({ startSequenceNumber: poison, endSequenceNumber: poison, batchSize: 1 });
      expect(message?.requestContext).toMatchObject({ condition: 'RetryAttemptsExhausted', approximateInvokeCount: 2 });
    });

    test("retry exhaustion sends exactly one on-failure message in AWS's format, and the shard moves on", async () => {
      const [stream, dlq] = await Promise.all([source.create(), createQueue(clients.sqs, uniqueName('on-failure'))]);
      await stream.put(['a', 'b', 'c']);
      const fn = recordingFunction<R>((records) => (withPayload(stream, 'b')(records) ? threw() : returned()));
      const mapping = mappingFor(stream, fn, clients, { maximumRetryAttempts: 2, onFailureQueueUrl: dlq.url });
      let shardId = '';
      await whileRunning(mapping, async () => {
        await until(() => mapping.stats.onFailureMessages === 1, 'an on-failure message');
        shardId = mapping.shardIds[0] ?? '';
        await stream.put(['d']);
        await until(() => fn.batches.some(withPayload(stream, 'd')), 'the next record');
        await settled(mapping);
      });
      expect(payloads(stream, fn)).toEqual([['a', 'b', 'c'], ['a', 'b', 'c'], ['a', 'b', 'c'], ['d']]);
      const messages = await onFailureMessages(clients.sqs, dlq);
      expect(messages).toEqual([expectedOnFailure(stream, shardId, {
        condition: 'RetryAttemptsExhausted',
        approximateInvokeCount: 3,
        startSequenceNumber: sequenceOf(stream, fn, 'a'),
        endSequenceNumber: sequenceOf(stream, fn, 'c'),
        batchSize: 3,
      })]);
    });

    test('records older than the maximum record age go to the on-failure queue without invoking', async () => {
      const [stream, dlq] = await Promise.all([source.create(), createQueue(clients.sqs, uniqueName('on-failure'))]);
      await stream.put(['old-1', 'old-2']);
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const fn = recordingFunction<R>();
      const mapping = mappingFor(stream, fn, clients, { maximumRecordAgeSeconds: 1, onFailureQueueUrl: dlq.url });
      await whileRunning(mapping, async () => {
        await until(() => mapping.stats.onFailureMessages === 1, 'an on-failure message');
        await settled(mapping);
      });
      expect(fn.batches).toEqual([]);
      expect(mapping.stats).toMatchObject({ recordsSkipped: 2, deliveries: 0 });
      const [message, ...others] = await onFailureMessages(clients.sqs, dlq);
      expect(others).toHaveLength(0);
      expect(message?.requestContext).toMatchObject({ condition: 'RecordAgeExceeded', approximateInvokeCount: 0 });
      expect(message && streamBatchInfoOf(message)).toMatchObject({ batchSize: 2 });
    });

    test('LATEST skips what was written before the mapping started', async () => {
      const stream = await source.create();
      await stream.put(['before']);
      const fn = recordingFunction<R>();
      const mapping = mappingFor(stream, fn, clients, { startingPosition: 'LATEST' });
      await whileRunning(mapping, async () => {
        // Give the shard poller time to take its LATEST iterator before writing.
        await until(() => mapping.shardIds.length === 1, 'the shard to be polled');
        await new Promise((resolve) => setTimeout(resolve, 300));
        await stream.put(['after']);
        await until(() => fn.batches.length === 1, 'the new record');
        await settled(mapping);
      });
      expect(payloads(stream, fn)).toEqual([['after']]);
    });

    test('the duplicate fault invokes a batch twice; crashAfterInvoke makes it be read again', async () => {
      const stream = await source.create();
      await stream.put(['a', 'b']);
      let decisions = 0;
      const faults = { decide: () => (++decisions === 1 ? { duplicate: true } : decisions === 2 ? { crashAfterInvoke: true } : {}) };
      const fn = recordingFunction<R>();
      const mapping = mappingFor(stream, fn, clients, { faults });
      await whileRunning(mapping, async () => {
        await until(() => fn.batches.length >= 2, 'the duplicate delivery');
        await stream.put(['c']);
        await until(() => fn.batches.some(withPayload(stream, 'c')), 'the next record');
        await settled(mapping);
      });
      // Delivered twice by the duplicate, the batch was acknowledged; so the crash hit the next batch.
      expect(payloads(stream, fn)).toEqual([['a', 'b'], ['a', 'b'], ['c'], ['c']]);
      expect(mapping.stats).toMatchObject({ batches: 3, deliveries: 6, duplicateDeliveries: 2, crashes: 1, retries: 0 });
    });
  });
}

function expectedOnFailure<R>(stream: StreamUnderTest<R>, shardId: string, range: {
  condition: string;
  approximateInvokeCount: number;
  startSequenceNumber: string;
  endSequenceNumber: string;
  batchSize: number;
}): unknown {
  const { condition, approximateInvokeCount, ...batch } = range;
  const info = {
    shardId,
    ...batch,
    approximateArrivalOfFirstRecord: expect.stringMatching(ISO_TIME),
    approximateArrivalOfLastRecord: expect.stringMatching(ISO_TIME),
    streamArn: stream.streamArn,
  };
  return {
    requestContext: { requestId: expect.any(String), functionArn: FUNCTION_ARN, condition, approximateInvokeCount },
    responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
    version: '1.0',
    timestamp: expect.stringMatching(ISO_TIME),
    [stream.kind === 'kinesis' ? 'KinesisBatchInfo' : 'DDBStreamBatchInfo']: info,
  };
}

