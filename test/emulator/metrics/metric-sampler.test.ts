/**
 * The sampler turns local mode's sources into datapoints: a counter's growth since the last sample
 * (nothing when it did not grow, as an idle source publishes nothing on AWS), and a gauge's
 * current value each time it is asked for.
 */
import { MetricSampler, MetricStore, type CounterSource, type GaugeGroup, type MetricKey } from '../../../emulator/metrics';

const NOW = new Date('2026-11-30T10:00:00.000Z').getTime();
const EVER: [number, number] = [0, Number.MAX_SAFE_INTEGER];

const invocations: MetricKey = { namespace: 'AWS/Lambda', metricName: 'Invocations', dimensions: { FunctionName: 'page-view-counter' } };
const queueMetric = (queueName: string, metricName: string): MetricKey => ({ namespace: 'AWS/SQS', metricName, dimensions: { QueueName: queueName } });
const visible = (queueName: string): MetricKey => queueMetric(queueName, 'ApproximateNumberOfMessagesVisible');
const inFlight = (queueName: string): MetricKey => queueMetric(queueName, 'ApproximateNumberOfMessagesNotVisible');

/** A counter whose reading the test sets. */
function counter(key: MetricKey, start = 0): CounterSource & { value: number } {
  const source = { key, value: start, read: () => source.value };
  return source;
}

/** A queue's depth gauges whose values the test sets, and how often they were read. */
function depth(queueName: string, values: readonly unknown[] = [0, 0]): GaugeGroup & { values: readonly unknown[]; reads: number } {
  const group = {
    keys: [visible(queueName), inFlight(queueName)],
    values,
    reads: 0,
    read: async () => {
      group.reads += 1;
      return group.values as readonly number[];
    },
  };
  return group;
}

beforeEach(() => {
  jest.useFakeTimers({ now: NOW, doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'] });
});
afterEach(() => {
  jest.useRealTimers();
});

describe('counters', () => {
  test('the reading when the sampler is made is the baseline: only growth after it is recorded', async () => {
    const calls = counter(invocations, 40);
    const sampler = new MetricSampler(new MetricStore(), [calls], []);
    calls.value = 43;
    await sampler.sample();
    expect(sampler.store.datapoints(invocations, ...EVER)).toEqual([{ at: NOW, value: 3 }]);
  });

  test('each sample records what the counter grew by since the last one, at the time of the sample', async () => {
    const calls = counter(invocations);
    const sampler = new MetricSampler(new MetricStore(), [calls], []);
    calls.value = 2;
    await sampler.sample();
    jest.advanceTimersByTime(250);
    calls.value = 7;
    await sampler.sample();
    expect(sampler.store.datapoints(invocations, ...EVER)).toEqual([{ at: NOW, value: 2 }, { at: NOW + 250, value: 5 }]);
    expect(sampler.store.statistic(invocations, 'Sum', ...EVER)).toBe(7);
  });

  test('an idle counter records nothing: its period has missing data, not a zero', async () => {
    const calls = counter(invocations, 5);
    const sampler = new MetricSampler(new MetricStore(), [calls], []);
    await sampler.sample();
    jest.advanceTimersByTime(250);
    calls.value = 6;
    await sampler.sample();
    jest.advanceTimersByTime(250);
    await sampler.sample();
    expect(sampler.store.datapoints(invocations, ...EVER)).toEqual([{ at: NOW + 250, value: 1 }]);
    expect(sampler.store.statistic(invocations, 'Sum', NOW + 251, NOW + 1000)).toBeUndefined();
  });

  test('counters are sampled whatever keys are asked for', async () => {
    const calls = counter(invocations);
    const sampler = new MetricSampler(new MetricStore(), [calls], []);
    calls.value = 1;
    await sampler.sample([]);
    calls.value = 3;
    await sampler.sample([visible('dlq')]);
    expect(sampler.store.statistic(invocations, 'Sum', ...EVER)).toBe(3);
  });
});

describe('gauges', () => {
  test('a gauge group is read only when one of its keys is asked for, and records all of its keys', async () => {
    const [dlq, source] = [depth('dlq', [2, 1]), depth('source', [9, 4])];
    const sampler = new MetricSampler(new MetricStore(), [], [dlq, source]);
    expect(await sampler.sample([inFlight('dlq'), invocations])).toEqual([]);
    expect([dlq.reads, source.reads]).toEqual([1, 0]);
    expect(sampler.store.datapoints(visible('dlq'), ...EVER)).toEqual([{ at: NOW, value: 2 }]);
    expect(sampler.store.datapoints(inFlight('dlq'), ...EVER)).toEqual([{ at: NOW, value: 1 }]);
    expect(sampler.store.has(visible('source'), ...EVER)).toBe(false);
  });

  test('every gauge group is read when no keys are given, and none for an empty list', async () => {
    const [dlq, source] = [depth('dlq'), depth('source')];
    const sampler = new MetricSampler(new MetricStore(), [], [dlq, source]);
    await sampler.sample();
    expect([dlq.reads, source.reads]).toEqual([1, 1]);
    await sampler.sample([]);
    expect([dlq.reads, source.reads]).toEqual([1, 1]);
  });

  test('each sample of a gauge is a datapoint, zeros included', async () => {
    const dlq = depth('dlq', [0, 0]);
    const sampler = new MetricSampler(new MetricStore(), [], [dlq]);
    await sampler.sample();
    jest.advanceTimersByTime(100);
    dlq.values = [3, 0];
    await sampler.sample();
    expect(sampler.store.datapoints(visible('dlq'), ...EVER)).toEqual([{ at: NOW, value: 0 }, { at: NOW + 100, value: 3 }]);
    expect(sampler.store.statistic(visible('dlq'), 'Maximum', ...EVER)).toBe(3);
  });

  test('a failing gauge group is one of the failures returned, and the other groups and the counters are still recorded', async () => {
    const calls = counter(invocations);
    const broken: GaugeGroup = { keys: [visible('broken')], read: () => Promise.reject(new Error('ServiceUnavailable')) };
    const dlq = depth('dlq', [1, 0]);
    const sampler = new MetricSampler(new MetricStore(), [calls], [broken, dlq]);
    calls.value = 1;
    const failures = await sampler.sample();
    expect(failures).toEqual([new Error('ServiceUnavailable')]);
    expect(sampler.store.keys().map((key) => key.metricName).sort()).toEqual(['ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesVisible', 'Invocations']);
    expect(sampler.store.has(visible('broken'), ...EVER)).toBe(false);
  });

  test.each([
    ['a string', ['2', 0]],
    ['NaN', [Number.NaN, 0]],
    ['too few values', [2]],
  ])('a gauge group that gives %s fails, naming the metric, and records none of its keys', async (_, values) => {
    const dlq = depth('dlq', values);
    const other = depth('other', [5, 5]);
    const sampler = new MetricSampler(new MetricStore(), [], [dlq, other]);
    const failures = await sampler.sample();
    expect(failures).toHaveLength(1);
    expect(String(failures[0])).toMatch(/^Error: AWS\/SQS\/ApproximateNumberOfMessages(Not)?Visible\{QueueName=dlq\}: the sample gave no number \(given .+\)$/);
    expect(sampler.store.has(visible('dlq'), ...EVER)).toBe(false);
    expect(sampler.store.has(inFlight('dlq'), ...EVER)).toBe(false);
    expect(sampler.store.has(visible('other'), ...EVER)).toBe(true);
  });
});

test('datapoints others recorded in the store (EMF lines) are read through the sampler too, by the position they were recorded at', () => {
  const store = new MetricStore();
  const conflicts: MetricKey = { namespace: 'EffectivelyOnce', metricName: 'ConflictingDuplicates', dimensions: { service: 'order-processor' } };
  const sampler = new MetricSampler(store, [], []);
  const before = sampler.position();
  store.put(conflicts, 2, NOW);
  store.put(conflicts, 3, NOW);
  expect(sampler.position()).toBe(before + 2);
  expect(sampler.statisticBetween(conflicts, 'Sum', before, before + 2)).toBe(5);
  expect(sampler.statisticBetween(conflicts, 'Sum', before + 1, before + 2)).toBe(3);
  expect(sampler.statisticBetween(conflicts, 'Sum', before + 2, before + 2)).toBeUndefined();
});
