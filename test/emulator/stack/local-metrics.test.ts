/**
 * What local mode measures of a stack, under CloudWatch's names: the depth and age of its queues,
 * its functions' invocations and errors, its mappings' event counts, and the runtime's EMF
 * namespace; and, for what nothing local produces, the reason its alarm is not evaluated. No
 * engine is started here: only the counters are sampled, and the queues' gauges are left alone.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { LocalFunction, LocalFunctionStats } from '../../../emulator/functions';
import type { SqsMappingStats } from '../../../emulator/event-sources/sqs-mapping';
import type { StreamMappingStats } from '../../../emulator/event-sources/stream-mapping-config';
import { MetricStore, type MetricKey } from '../../../emulator/metrics';
import type { FunctionSpec } from '../../../emulator/stack/functions';
import { localMetrics, type LocalMetrics } from '../../../emulator/stack/local-metrics';
import type { MappingSpec } from '../../../emulator/stack/mappings';
import { asClient, FakeClient } from '../../helpers/fakes';
import { provisionedStack } from '../../helpers/provisioned-stack';

const others = new Map([
  ['CounterFn', { ref: 'S-CounterFn-1a2b', attributes: {} }],
  ['OrdersFn', { ref: 'S-OrdersFn-3c4d', attributes: {} }],
  ['CounterMapping', { ref: 'uuid-counter-mapping', attributes: {} }],
  ['OrdersMapping', { ref: 'uuid-orders-mapping', attributes: {} }],
  ['RebuildMapping', { ref: 'uuid-rebuild-mapping', attributes: {} }],
]);
const stack = provisionedStack(['Source', 'Dlq'], others);

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const functionStats = (): Mutable<LocalFunctionStats> => ({ invocations: 0, coldStarts: 0, errors: 0, timeouts: 0, crashes: 0, initFailures: 0, peakEnvironmentLoad: 0 });
const sqsStats = (): Mutable<SqsMappingStats> => ({ batches: 0, deliveries: 0, duplicateDeliveries: 0, crashes: 0, visibilityOutlived: 0, deleted: 0, invocationErrors: 0, invalidResponses: 0, failedInvokeEvents: 0 });
const streamStats = (): Mutable<StreamMappingStats> => ({ batches: 0, deliveries: 0, duplicateDeliveries: 0, crashes: 0, retries: 0, bisections: 0, onFailureMessages: 0, recordsSkipped: 0, invocationErrors: 0, invalidResponses: 0, failedInvokeEvents: 0 });

/** A function whose stats the test sets; localMetrics reads nothing of a LocalFunction but `stats()`. */
function fakeFunction(stats: LocalFunctionStats): LocalFunction {
  return { stats: () => ({ ...stats }) } as unknown as LocalFunction;
}

/** A mapping whose stats the test sets; localMetrics reads only these fields of a MappingSpec. */
function fakeMapping(logicalId: string, source: MappingSpec['source'], functionLogicalId: string, stats: SqsMappingStats | StreamMappingStats): MappingSpec {
  return { logicalId, source, functionLogicalId, mapping: { stats } } as unknown as MappingSpec;
}

const functionSpec = (logicalId: string, environment: Record<string, string> = {}): FunctionSpec => ({ logicalId, name: others.get(logicalId)?.ref ?? logicalId, assetDir: '', handler: 'index.handler', runtime: 'nodejs24.x', timeoutSeconds: 1, templateTimeoutSeconds: 30, memoryMb: 128, environment });

interface Fixture {
  readonly metrics: LocalMetrics;
  readonly store: MetricStore;
  readonly sqs: FakeClient;
  readonly counter: Mutable<LocalFunctionStats>;
  readonly orders: Mutable<LocalFunctionStats>;
  readonly counterMapping: Mutable<SqsMappingStats>;
  readonly ordersMapping: Mutable<StreamMappingStats>;
}

/** The stack above: CounterFn fed by an SQS mapping, OrdersFn by a Kinesis one that publishes its metrics under `Orders`, and a mapping that is off. */
function fixture(): Fixture {
  const [counter, orders, counterMapping, ordersMapping] = [functionStats(), functionStats(), sqsStats(), streamStats()];
  const store = new MetricStore();
  const sqs = new FakeClient();
  const metrics = localMetrics({
    stack,
    functions: new Map([['CounterFn', fakeFunction(counter)], ['OrdersFn', fakeFunction(orders)]]),
    functionSpecs: [functionSpec('CounterFn'), functionSpec('OrdersFn', { POWERTOOLS_METRICS_NAMESPACE: 'Orders' })],
    mappings: [fakeMapping('CounterMapping', 'sqs', 'CounterFn', counterMapping), fakeMapping('OrdersMapping', 'kinesis', 'OrdersFn', ordersMapping)],
    disabledMappings: ['RebuildMapping'],
    store,
    sqs: asClient<SQSClient>(sqs),
    fauxqs: asClient<SQSClient>(new FakeClient()),
    timeScale: 1 / 60,
  });
  return { metrics, store, sqs, counter, orders, counterMapping, ordersMapping };
}

const key = (namespace: string, metricName: string, dimensions: Record<string, string>): MetricKey => ({ namespace, metricName, dimensions });
const ofQueue = (metricName: string, queueName = 'S-Dlq') => key('AWS/SQS', metricName, { QueueName: queueName });
const ofFunction = (metricName: string, functionName = 'S-CounterFn-1a2b') => key('AWS/Lambda', metricName, { FunctionName: functionName });
const ofMapping = (metricName: string, uuid = 'uuid-counter-mapping') => key('AWS/Lambda', metricName, { EventSourceMappingUUID: uuid });

describe('measurability', () => {
  const { measurability } = fixture().metrics;

  test.each<[string, MetricKey]>([
    ['the visible messages of a stack queue', ofQueue('ApproximateNumberOfMessagesVisible')],
    ['the messages in flight of a stack queue', ofQueue('ApproximateNumberOfMessagesNotVisible', 'S-Source')],
    ['the age of the oldest message of a stack queue', ofQueue('ApproximateAgeOfOldestMessage')],
    ['the invocations of a stack function, by its name', ofFunction('Invocations')],
    ['the errors of a stack function', ofFunction('Errors', 'S-OrdersFn-3c4d')],
    ...['PolledEventCount', 'InvokedEventCount', 'FailedInvokeEventCount', 'DeletedEventCount'].map((name): [string, MetricKey] => [`${name} of an SQS mapping, by its UUID`, ofMapping(name)]),
    ...['PolledEventCount', 'InvokedEventCount', 'FailedInvokeEventCount', 'DroppedEventCount'].map((name): [string, MetricKey] => [`${name} of a Kinesis mapping, by its UUID`, ofMapping(name, 'uuid-orders-mapping')]),
    // Off (a rebuilt generation's): it polls and publishes nothing, and its alarms see no data, as on AWS.
    ...['FailedInvokeEventCount', 'DroppedEventCount'].map((name): [string, MetricKey] => [`${name} of a mapping that is off`, ofMapping(name, 'uuid-rebuild-mapping')]),
    ['a runtime metric in the EffectivelyOnce namespace', key('EffectivelyOnce', 'ConflictingDuplicates', { service: 'page-view-counter' })],
    ["a runtime metric in a function's own POWERTOOLS_METRICS_NAMESPACE", key('Orders', 'EventsProcessed', { service: 'orders' })],
  ])('local mode measures %s', (_, metric) => {
    expect(measurability(metric)).toEqual({ measured: true });
  });

  test.each([
    ['Throttles of a stack function', ofFunction('Throttles'), 'local functions do not throttle: an invocation waits for a free execution environment'],
    ['IteratorAge of a stack function', ofFunction('IteratorAge', 'S-OrdersFn-3c4d'), 'local mode does not measure iterator age: DynamoDB Local rounds record times to the minute, which compressed time reads as hours'],
    ['another Lambda metric of a stack function', ofFunction('Duration'), 'local mode counts Invocations and Errors of a function'],
    ['a function the stack does not have', ofFunction('Errors', 'S-Gone'), 'S-Gone is not a function of the stack'],
    ['a stack function named by its logical id', ofFunction('Errors', 'CounterFn'), 'CounterFn is not a function of the stack'],
    ['a queue the stack does not have', ofQueue('ApproximateNumberOfMessagesVisible', 'S-Gone'), 'S-Gone is not a queue of the stack'],
    ['an SQS metric without a QueueName', key('AWS/SQS', 'ApproximateNumberOfMessagesVisible', {}), 'no QueueName is not a queue of the stack'],
    ['an SQS metric local mode does not sample', ofQueue('NumberOfMessagesSent'), 'local mode samples ApproximateNumberOfMessagesVisible, ApproximateNumberOfMessagesNotVisible, ApproximateAgeOfOldestMessage of a queue'],
    ['a mapping the stack does not have', ofMapping('PolledEventCount', 'uuid-gone'), 'the mapping is not one of the stack'],
    ['a stack mapping named by its logical id', ofMapping('PolledEventCount', 'CounterMapping'), 'the mapping is not one of the stack'],
    ['DroppedEventCount of an SQS mapping', ofMapping('DroppedEventCount'), 'local mode counts PolledEventCount, InvokedEventCount, FailedInvokeEventCount, DeletedEventCount of a sqs mapping'],
    ['DeletedEventCount of a Kinesis mapping', ofMapping('DeletedEventCount', 'uuid-orders-mapping'), 'local mode counts PolledEventCount, InvokedEventCount, FailedInvokeEventCount, DroppedEventCount of a kinesis mapping'],
    ['a Lambda metric by neither function nor mapping', key('AWS/Lambda', 'ConcurrentExecutions', {}), 'nothing local publishes AWS/Lambda ConcurrentExecutions'],
    ['another namespace', key('AWS/DynamoDB', 'ThrottledRequests', { TableName: 'S-Counters' }), 'nothing local publishes AWS/DynamoDB ThrottledRequests'],
  ])('local mode does not measure %s, and says why', (_, metric, reason) => {
    expect(measurability(metric)).toEqual({ measured: false, reason });
  });
});

describe('counters', () => {
  const EVER: [number, number] = [0, Number.MAX_SAFE_INTEGER];

  test("a function's Errors are its errors, timeouts and crashes, and the batches its mappings' crash fault killed", async () => {
    const { metrics, store, counter, counterMapping, ordersMapping } = fixture();
    Object.assign(counter, { invocations: 10, errors: 2, timeouts: 1, crashes: 1, initFailures: 1 });
    counterMapping.crashes = 3;
    ordersMapping.crashes = 5;
    await metrics.sampler.sample([]);
    expect(store.statistic(ofFunction('Errors'), 'Sum', ...EVER)).toBe(7);
    expect(store.statistic(ofFunction('Invocations'), 'Sum', ...EVER)).toBe(10);
    expect(store.statistic(ofFunction('Errors', 'S-OrdersFn-3c4d'), 'Sum', ...EVER)).toBe(5);
  });

  test("a mapping's counts are recorded by its UUID: an SQS mapping's deletions, a stream mapping's dropped records", async () => {
    const { metrics, store, counterMapping, ordersMapping } = fixture();
    Object.assign(counterMapping, { deliveries: 12, failedInvokeEvents: 2, deleted: 10 });
    Object.assign(ordersMapping, { deliveries: 30, failedInvokeEvents: 4, recordsSkipped: 3 });
    await metrics.sampler.sample([]);
    const sums = (uuid: string, names: string[]) => names.map((name) => store.statistic(ofMapping(name, uuid), 'Sum', ...EVER));
    expect(sums('uuid-counter-mapping', ['PolledEventCount', 'InvokedEventCount', 'FailedInvokeEventCount', 'DeletedEventCount', 'DroppedEventCount'])).toEqual([12, 12, 2, 10, undefined]);
    expect(sums('uuid-orders-mapping', ['PolledEventCount', 'InvokedEventCount', 'FailedInvokeEventCount', 'DroppedEventCount', 'DeletedEventCount'])).toEqual([30, 30, 4, 3, undefined]);
  });

  test('each sample records what the stats grew by since the last one, and an idle stack records nothing', async () => {
    const { metrics, store, counter, counterMapping } = fixture();
    await metrics.sampler.sample([]);
    expect(store.keys()).toEqual([]);
    Object.assign(counter, { invocations: 4, errors: 1 });
    await metrics.sampler.sample([]);
    Object.assign(counter, { invocations: 6, timeouts: 1 });
    counterMapping.crashes = 1;
    await metrics.sampler.sample([]);
    expect(store.datapoints(ofFunction('Invocations'), ...EVER).map((point) => point.value)).toEqual([4, 2]);
    expect(store.datapoints(ofFunction('Errors'), ...EVER).map((point) => point.value)).toEqual([1, 2]);
    expect(store.keys().map((metric) => metric.metricName).sort()).toEqual(['Errors', 'Invocations']);
  });

  test('what the stats held when the metrics were made is the baseline', async () => {
    const stats = { ...functionStats(), invocations: 50, errors: 5 };
    const store = new MetricStore();
    const metrics = localMetrics({ stack, functions: new Map([['CounterFn', fakeFunction(stats)]]), functionSpecs: [], mappings: [], store, sqs: asClient<SQSClient>(new FakeClient()), fauxqs: asClient<SQSClient>(new FakeClient()), timeScale: 1 });
    stats.invocations = 53;
    await metrics.sampler.sample([]);
    expect(store.statistic(ofFunction('Invocations'), 'Sum', ...EVER)).toBe(3);
    expect(store.has(ofFunction('Errors'), ...EVER)).toBe(false);
  });

  test('sampling Lambda metrics alone reads no queue', async () => {
    const { metrics, sqs, counter } = fixture();
    counter.errors = 1;
    expect(await metrics.sampler.sample([ofFunction('Errors')])).toEqual([]);
    expect(sqs.commands).toEqual([]);
  });
});
