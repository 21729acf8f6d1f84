/**
 * Local mode's CloudWatch: datapoints per metric, oldest first, and the statistics an alarm or the
 * demo's report takes over a half-open range of time, `[from, to)`.
 */
import { MetricStore, METRIC_STORE_DEFAULTS, metricId, type MetricKey, type Statistic } from '../../../emulator/metrics';

const errors: MetricKey = { namespace: 'AWS/Lambda', metricName: 'Errors', dimensions: { FunctionName: 'page-view-counter' } };

/** A store holding `values` for `errors`, one a millisecond from 1000. */
function storeWith(...values: number[]): MetricStore {
  const store = new MetricStore();
  values.forEach((value, index) => store.put(errors, value, 1000 + index));
  return store;
}

test.each([
  ['Sum', 9],
  ['Maximum', 5],
  ['Minimum', 1],
  ['Average', 3],
  ['SampleCount', 3],
] as const)('%s over the datapoints in range is %d', (statistic: Statistic, expected) => {
  expect(storeWith(3, 5, 1).statistic(errors, statistic, 1000, 1003)).toBe(expected);
});

test('the range includes its start and excludes its end', () => {
  const store = storeWith(3, 5, 1, 7);
  expect(store.statistic(errors, 'Sum', 1001, 1003)).toBe(6);
  expect(store.datapoints(errors, 1001, 1003)).toEqual([{ at: 1001, value: 5 }, { at: 1002, value: 1 }]);
});

test.each(['Sum', 'Maximum', 'Minimum', 'Average', 'SampleCount'] as const)('%s of a range without datapoints is undefined, as CloudWatch reports missing data', (statistic) => {
  const store = storeWith(3);
  expect(store.statistic(errors, statistic, 1001, 2000)).toBeUndefined();
  expect(store.statistic({ ...errors, metricName: 'Throttles' }, statistic, 0, 2000)).toBeUndefined();
  expect(store.has(errors, 1001, 2000)).toBe(false);
  expect(store.has(errors, 1000, 1001)).toBe(true);
});

test('dimensions given in another order address the same metric', () => {
  const byMapping = { namespace: 'AWS/Lambda', metricName: 'PolledEventCount', dimensions: { EventSourceMappingUUID: 'uuid-1', FunctionName: 'f' } };
  const reordered = { namespace: 'AWS/Lambda', metricName: 'PolledEventCount', dimensions: { FunctionName: 'f', EventSourceMappingUUID: 'uuid-1' } };
  const store = new MetricStore();
  store.put(byMapping, 2, 1000);
  store.put(reordered, 3, 1001);
  expect(metricId(reordered)).toBe(metricId(byMapping));
  expect(metricId(byMapping)).toBe('AWS/Lambda/PolledEventCount{EventSourceMappingUUID=uuid-1,FunctionName=f}');
  expect(store.statistic(reordered, 'Sum', 0, 2000)).toBe(5);
  expect(store.keys()).toHaveLength(1);
});

test.each([
  ['a comma and an equals sign in a dimension value', { ...errors, dimensions: { FunctionName: 'f,Resource=g' } }, { ...errors, dimensions: { FunctionName: 'f', Resource: 'g' } }],
  ['a slash in the metric name', { namespace: 'App', metricName: 'Sub/Errors', dimensions: {} }, { namespace: 'App/Sub', metricName: 'Errors', dimensions: {} }],
  ['a backslash before a separator', { ...errors, dimensions: { A: 'x\\', B: 'y' } }, { ...errors, dimensions: { A: 'x\\,B=y' } }],
] as const)('two metrics whose parts would run together (%s) keep apart', (_case, first: MetricKey, second: MetricKey) => {
  expect(metricId(first)).not.toBe(metricId(second));
  const store = new MetricStore();
  store.put(first, 1, 1000);
  store.put(second, 10, 1000);
  expect([store.statistic(first, 'Sum', 0, 2000), store.statistic(second, 'Sum', 0, 2000)]).toEqual([1, 10]);
  expect(store.keys()).toHaveLength(2);
});

test('the names of AWS\'s own metrics read as they are', () => {
  expect(metricId({ namespace: 'AWS/SQS', metricName: 'ApproximateAgeOfOldestMessage', dimensions: { QueueName: 'orders-dlq.fifo' } })).toBe('AWS/SQS/ApproximateAgeOfOldestMessage{QueueName=orders-dlq.fifo}');
});

test('metrics that differ in a dimension value are kept apart', () => {
  const store = new MetricStore();
  store.put(errors, 1, 1000);
  store.put({ ...errors, dimensions: { FunctionName: 'order-processor' } }, 4, 1000);
  expect(store.statistic(errors, 'Sum', 0, 2000)).toBe(1);
  expect(store.keys().map((key) => key.dimensions.FunctionName).sort()).toEqual(['order-processor', 'page-view-counter']);
});

test('datapoints put out of order are kept in time order', () => {
  const store = new MetricStore();
  store.put(errors, 3, 3000);
  store.put(errors, 1, 1000);
  store.put(errors, 2, 2000);
  store.put(errors, 4, 2000);
  expect(store.datapoints(errors, 0, 5000)).toEqual([{ at: 1000, value: 1 }, { at: 2000, value: 2 }, { at: 2000, value: 4 }, { at: 3000, value: 3 }]);
});

test('a datapoint put without a time is recorded now', () => {
  jest.useFakeTimers({ now: new Date('2026-11-30T10:00:00.000Z') });
  try {
    const store = new MetricStore();
    store.put(errors, 1);
    expect(store.datapoints(errors, 0, Number.MAX_SAFE_INTEGER)).toEqual([{ at: Date.parse('2026-11-30T10:00:00.000Z'), value: 1 }]);
  } finally {
    jest.useRealTimers();
  }
});

test('past the per-metric cap the oldest datapoints are dropped, whatever order they came in', () => {
  const store = new MetricStore(3);
  [2000, 4000, 1000, 3000, 5000].forEach((at) => store.put(errors, at / 1000, at));
  expect(store.datapoints(errors, 0, 10_000).map((point) => point.at)).toEqual([3000, 4000, 5000]);
  const other = { ...errors, metricName: 'Invocations' };
  store.put(other, 1, 1000);
  expect(store.datapoints(other, 0, 10_000)).toHaveLength(1);
});

test('the default cap keeps a long session of datapoints per metric', () => {
  expect(METRIC_STORE_DEFAULTS.maxDatapointsPerMetric).toBe(100_000);
});

test.each([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])('a datapoint of %d is refused, naming the metric', (value) => {
  const store = new MetricStore();
  expect(() => store.put(errors, value, 1000)).toThrow(new RangeError(`AWS/Lambda/Errors{FunctionName=page-view-counter}: a datapoint must be a finite number (given ${value})`));
  expect(store.keys()).toEqual([]);
});

test.each([0, -1, 1.5, Number.NaN])('fails if maxDatapointsPerMetric is %d', (cap) => {
  expect(() => new MetricStore(cap)).toThrow(new RangeError(`maxDatapointsPerMetric must be a whole number >= 1 (given ${cap})`));
});
