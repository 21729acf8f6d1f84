/**
 * The DynamoDB Streams redrive's invocation of a consumer: which function of the stack, the record
 * rebuilt from a wrapper, batches no larger than the mapping's, and the answer read as the mapping
 * reads it (stop at the lowest reported record; a function error or an unknown identifier fails
 * the batch). The Lambda client is a fake that records each invocation and answers as scripted:
 * what is under test is what the redrive sends and does with the answer.
 */
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { DynamoDBRecord } from 'aws-lambda';
import { recordOfOriginal, reinvoke, streamConsumerOf } from '../../../operations/dlq/stream-reinvoke';
import { MalformedEntryError } from '../../../operations/dlq/errors';
import type { ConsumerFunction, StackTopology } from '../../../operations/dlq';
import { dynamoRecord, TEST_TABLE_STREAM_ARN } from '../../helpers/events';
import { asClient, FakeClient } from '../../helpers/fakes';

const NOTIFIER: ConsumerFunction = { functionName: 'EffectivelyOnce-ShipmentNotifier-1A2B', consumer: 'shipment-notifier', sourceArn: TEST_TABLE_STREAM_ARN, batchSize: 2 };
const AUDIT: ConsumerFunction = { functionName: 'EffectivelyOnce-Audit-3C4D', consumer: 'audit', sourceArn: TEST_TABLE_STREAM_ARN };

function topology(...consumerFunctions: ConsumerFunction[]): StackTopology {
  return { stackName: 'S', region: 'us-east-1', outputs: {}, deadLetterQueues: [], queues: [], streams: [], tables: [], consumerWindows: [], consumerFunctions };
}

const records = (count: number): DynamoDBRecord[] => Array.from({ length: count }, (_, index) => dynamoRecord({ eventName: 'INSERT', newImage: { pk: `order#${index}` }, sequenceNumber: String(100 + index) }));
const answer = (payload: unknown, functionError?: string) => ({ StatusCode: 200, Payload: Buffer.from(JSON.stringify(payload)), ...(functionError && { FunctionError: functionError }) });
const sentBatches = (lambda: FakeClient) => lambda.commandsNamed('InvokeCommand').map((command) => (JSON.parse(Buffer.from(command.input.Payload as Uint8Array).toString('utf8')) as { Records: DynamoDBRecord[] }).Records.map((record) => record.dynamodb?.SequenceNumber));

describe('streamConsumerOf', () => {
  test('the function the on-failure record names, or the consumer the wrapper names', () => {
    expect(streamConsumerOf(topology(NOTIFIER, AUDIT), TEST_TABLE_STREAM_ARN, { functionArn: `arn:aws:lambda:us-east-1:000000000000:function:${AUDIT.functionName}:$LATEST` })).toBe(AUDIT);
    expect(streamConsumerOf(topology(NOTIFIER, AUDIT), TEST_TABLE_STREAM_ARN, { consumer: 'shipment-notifier' })).toBe(NOTIFIER);
  });

  test("the stream's only consumer when the entry names none", () => {
    expect(streamConsumerOf(topology(NOTIFIER), TEST_TABLE_STREAM_ARN, {})).toBe(NOTIFIER);
  });

  test.each([
    ['a function outside the stack', { functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:payments' }, [NOTIFIER]],
    ['a consumer of another source', { consumer: 'shipment-notifier' }, [{ ...NOTIFIER, sourceArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/other/stream/x' }]],
    ['no name, two consumers', {}, [NOTIFIER, AUDIT]],
  ])('refuses %s: nothing outside the stack is invoked', (_case, failedBy, consumers) => {
    expect(() => streamConsumerOf(topology(...consumers), TEST_TABLE_STREAM_ARN, failedBy)).toThrow(MalformedEntryError);
  });
});

describe('recordOfOriginal', () => {
  test("rebuilds the record a wrapper keeps: its eventID, its kind and its images, as the stream gave them", () => {
    const [record] = records(1) as [DynamoDBRecord];
    const original = { body: JSON.stringify(record.dynamodb), encoding: 'utf8' as const, attributes: { eventName: 'INSERT', eventID: record.eventID ?? '' } };
    expect(recordOfOriginal(original, TEST_TABLE_STREAM_ARN, 'us-east-1')).toEqual({ ...record, eventSourceARN: TEST_TABLE_STREAM_ARN });
  });

  test('refuses a body that is not a stream record', () => {
    expect(() => recordOfOriginal({ body: '{"Keys":{}}', encoding: 'utf8' }, TEST_TABLE_STREAM_ARN, 'us-east-1')).toThrow(MalformedEntryError);
    expect(() => recordOfOriginal({ body: 'not json', encoding: 'utf8' }, TEST_TABLE_STREAM_ARN, 'us-east-1')).toThrow(MalformedEntryError);
  });
});

describe('reinvoke', () => {
  test("sends the records in order, in batches of the mapping's size", async () => {
    const lambda = new FakeClient(() => answer({ batchItemFailures: [] }));
    expect(await reinvoke(asClient<LambdaClient>(lambda), NOTIFIER, records(5))).toEqual({ done: 5 });
    expect(sentBatches(lambda)).toEqual([['100', '101'], ['102', '103'], ['104']]);
    expect(lambda.commandsNamed('InvokeCommand').map((command) => command.input.FunctionName)).toEqual(Array(3).fill(NOTIFIER.functionName));
  });

  test('stops at the lowest record the function reports, as the mapping would resume there; later batches are not sent', async () => {
    const lambda = new FakeClient((_command, call) => answer({ batchItemFailures: call === 2 ? [{ itemIdentifier: '103' }, { itemIdentifier: '102' }] : [] }));
    expect(await reinvoke(asClient<LambdaClient>(lambda), NOTIFIER, records(5))).toEqual({ done: 2, failed: { sequenceNumber: '102', reason: 'the function reported it failed again' } });
    expect(sentBatches(lambda)).toHaveLength(2);
  });

  test('a function error fails its whole batch', async () => {
    const lambda = new FakeClient(() => answer({ errorType: 'Error', errorMessage: 'boom' }, 'Unhandled'));
    expect(await reinvoke(asClient<LambdaClient>(lambda), NOTIFIER, records(3))).toEqual({ done: 0, failed: { sequenceNumber: '100', reason: 'the function failed (Unhandled): boom' } });
  });

  test('an identifier not in the batch fails the whole batch, as it does for the mapping', async () => {
    const lambda = new FakeClient(() => answer({ batchItemFailures: [{ itemIdentifier: '999' }] }));
    expect((await reinvoke(asClient<LambdaClient>(lambda), NOTIFIER, records(2))).failed?.sequenceNumber).toBe('100');
  });

  test("keeps each request under Lambda's 6 MB synchronous payload, whatever the batch size", async () => {
    const lambda = new FakeClient(() => answer({}));
    const large = Array.from({ length: 20 }, (_, index) => dynamoRecord({ eventName: 'INSERT', newImage: { pk: `order#${index}`, blob: 'x'.repeat(380_000) }, sequenceNumber: String(200 + index) }));
    expect(await reinvoke(asClient<LambdaClient>(lambda), { ...NOTIFIER, batchSize: 100 }, large)).toEqual({ done: 20 });
    const sizes = lambda.commandsNamed('InvokeCommand').map((command) => (command.input.Payload as Uint8Array).length);
    expect(sizes.length).toBeGreaterThan(1);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(6 * 1024 * 1024);
  });
});
