/**
 * The AlarmEvaluator on metrics other than a queue's depth: Lambda's counters, and the runtime's
 * EMF metrics. The metrics come from a MetricSampler over a MetricStore whose counters and gauges
 * hold values the test sets: a deterministic source standing in for local mode's samplers, not a
 * mock of an engine. The clock is Jest's, so that every sample and every period's close happen at
 * a millisecond the test chose. SNS is a fake that records what was published.
 */
import type { SNSClient } from '@aws-sdk/client-sns';
import { AlarmEvaluator, alarmNotification, type AlarmTransition, type MetricAlarm } from '../../../emulator/alarms';
import { emfRecorder, MetricSampler, MetricStore, type CounterSource, type GaugeGroup, type MetricKey } from '../../../emulator/metrics';
import { ABOVE_ZERO_IN_ONE_PERIOD } from '../../helpers/alarms';
import { asClient, FakeClient } from '../../helpers/fakes';

const T0 = new Date('2026-11-30T10:00:00.000Z').getTime();
const PERIOD_MS = 1_000;
const TOPIC_ARN = 'arn:aws:sns:us-east-1:000000000000:alarms';

const errors: MetricKey = { namespace: 'AWS/Lambda', metricName: 'Errors', dimensions: { FunctionName: 'page-view-counter' } };
const dlqVisible: MetricKey = { namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible', dimensions: { QueueName: 'page-views-dlq' } };
const conflicts: MetricKey = { namespace: 'EffectivelyOnce', metricName: 'ConflictingDuplicates', dimensions: { service: 'order-processor' } };

/** A static-threshold alarm on one metric: above 0 on 1 of 1 periods, missing data not breaching, no actions. */
function alarmOn(key: MetricKey, statistic: MetricAlarm['metrics'][number]['statistic'], overrides: Partial<MetricAlarm> = {}): MetricAlarm {
  return {
    alarmName: `${key.metricName}-alarm`,
    metrics: [{ key, statistic }],
    ...ABOVE_ZERO_IN_ONE_PERIOD,
    alarmActions: [],
    okActions: [],
    ...overrides,
  };
}

/** The metrics of a small stack: the function's error count and the DLQ's depth, as the test sets them. */
function stackMetrics(): { sampler: MetricSampler; errorCount: { value: number }; dlqDepth: { value: number } } {
  const errorCount = { value: 0 };
  const dlqDepth = { value: 0 };
  const counters: CounterSource[] = [{ key: errors, read: () => errorCount.value }];
  const gauges: GaugeGroup[] = [{ keys: [dlqVisible], read: async () => [dlqDepth.value] }];
  return { sampler: new MetricSampler(new MetricStore(), counters, gauges), errorCount, dlqDepth };
}

function evaluatorOf(alarms: MetricAlarm[], sampler: MetricSampler, sns = new FakeClient()): AlarmEvaluator {
  return new AlarmEvaluator({ alarms, metrics: sampler, sns: asClient<SNSClient>(sns), sampleIntervalMs: PERIOD_MS / 4, periodMs: PERIOD_MS });
}

/** Moves the clock to the end of the open period and closes it. */
async function closeNextPeriod(evaluator: AlarmEvaluator): Promise<void> {
  jest.advanceTimersByTime(PERIOD_MS);
  await evaluator.evaluateNow();
}

beforeEach(() => {
  jest.useFakeTimers({ now: T0, doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'] });
});
afterEach(() => {
  jest.useRealTimers();
});

describe('period boundaries', () => {
  test("a sample taken in the millisecond a period closes is that period's", async () => {
    const { sampler, dlqDepth } = stackMetrics();
    const alarm = alarmOn(dlqVisible, 'Maximum');
    const evaluator = evaluatorOf([alarm], sampler);
    await closeNextPeriod(evaluator);
    expect(evaluator.states()).toEqual({ [alarm.alarmName]: 'OK' });
    dlqDepth.value = 1;
    await closeNextPeriod(evaluator);
    expect(sampler.store.datapoints(dlqVisible, T0 + 2 * PERIOD_MS, T0 + 2 * PERIOD_MS + 1)).toEqual([{ at: T0 + 2 * PERIOD_MS, value: 1 }]);
    expect(evaluator.states()).toEqual({ [alarm.alarmName]: 'ALARM' });
    expect(evaluator.history().at(-1)?.datapoints).toEqual([{ timestamp: new Date(T0 + PERIOD_MS), value: 1 }]);
    dlqDepth.value = 0;
    await closeNextPeriod(evaluator);
    expect(evaluator.states()).toEqual({ [alarm.alarmName]: 'OK' });
  });

  test('a datapoint stamped with the millisecond a period closes counts in that period only, not in the next as well', async () => {
    const { sampler } = stackMetrics();
    const alarm = alarmOn(conflicts, 'Sum');
    const evaluator = evaluatorOf([alarm], sampler);
    sampler.store.put(conflicts, 1, T0 + PERIOD_MS);
    await closeNextPeriod(evaluator);
    await closeNextPeriod(evaluator);
    expect(evaluator.history().map((transition) => [transition.newState, transition.datapoints.at(-1)?.value])).toEqual([['ALARM', 1], ['OK', undefined]]);
  });

  test("a counter's growth sampled just after a period closed, in the same millisecond, counts in the next period", async () => {
    const { sampler, errorCount } = stackMetrics();
    const alarm = alarmOn(errors, 'Sum');
    const evaluator = evaluatorOf([alarm], sampler);
    await closeNextPeriod(evaluator);
    errorCount.value = 1;
    // What the evaluator's sampling timer does when it fires right after the period timer.
    await sampler.sample([errors]);
    expect(sampler.store.statistic(errors, 'Sum', T0 + PERIOD_MS, T0 + PERIOD_MS + 1)).toBe(1);
    await closeNextPeriod(evaluator);
    expect(evaluator.states()).toEqual({ [alarm.alarmName]: 'ALARM' });
  });
});

describe('a Sum alarm on a counter, 5 out of 5, missing data not breaching', () => {
  const alarm = alarmOn(errors, 'Sum', { alarmName: 'errors-5-of-5', evaluationPeriods: 5, datapointsToAlarm: 5 });

  /** Closes one period per entry, the counter growing by that much in it; the state after each. */
  async function run(growth: readonly number[]): Promise<{ states: string[]; evaluator: AlarmEvaluator }> {
    const { sampler, errorCount } = stackMetrics();
    const evaluator = evaluatorOf([alarm], sampler);
    const states: string[] = [];
    for (const grown of growth) {
      errorCount.value += grown;
      await closeNextPeriod(evaluator);
      states.push(evaluator.states()[alarm.alarmName] ?? 'none');
    }
    return { states, evaluator };
  }

  test('goes to ALARM only after five consecutive periods with errors, and back to OK after one without', async () => {
    const { states, evaluator } = await run([1, 2, 1, 1, 3, 0]);
    expect(states).toEqual(['OK', 'OK', 'OK', 'OK', 'ALARM', 'OK']);
    expect(evaluator.history().map((transition) => transition.newState)).toEqual(['OK', 'ALARM', 'OK']);
    const raised = evaluator.history()[1];
    expect(raised?.datapoints.map((point) => point.value)).toEqual([1, 2, 1, 1, 3]);
    expect(raised?.reason).toMatch(/^Threshold Crossed: 5 out of the last 5 datapoints \[3\.0 .*\] were greater than the threshold \(0\.0\) \(minimum 5 datapoints for OK -> ALARM transition\)\.$/);
    expect(evaluator.history()[2]?.datapoints.at(-1)?.value).toBeUndefined();
  });

  test('an idle period among them is missing data, which does not breach: the run of five starts again', async () => {
    const { states } = await run([1, 1, 1, 1, 0, 1, 1, 1, 1, 1]);
    expect(states).toEqual(['OK', 'OK', 'OK', 'OK', 'OK', 'OK', 'OK', 'OK', 'OK', 'ALARM']);
  });
});

test('a runtime metric recorded from an EMF line drives its alarm, and the notification names it', async () => {
  const { sampler } = stackMetrics();
  const sns = new FakeClient();
  const alarm = alarmOn(conflicts, 'Sum', { alarmName: 'order-processor-conflicting-duplicates', alarmActions: [TOPIC_ARN], okActions: [TOPIC_ARN] });
  const evaluator = evaluatorOf([alarm], sampler, sns);
  const output = emfRecorder(sampler.store, () => undefined);
  await closeNextPeriod(evaluator);
  jest.advanceTimersByTime(PERIOD_MS / 2);
  const line = { _aws: { Timestamp: Date.now(), CloudWatchMetrics: [{ Namespace: 'EffectivelyOnce', Dimensions: [['service']], Metrics: [{ Name: 'ConflictingDuplicates', Unit: 'Count' }] }] }, service: 'order-processor', ConflictingDuplicates: 1 };
  output(`${JSON.stringify(line)}\n`, { functionName: 'order-processor', stream: 'stdout' });
  await closeNextPeriod(evaluator);
  expect(evaluator.states()).toEqual({ [alarm.alarmName]: 'ALARM' });
  const published = sns.commandsNamed('PublishCommand').map((command) => command.input as { TopicArn: string; Subject: string; Message: string });
  expect(published.map(({ TopicArn, Subject }) => [TopicArn, Subject])).toEqual([
    [TOPIC_ARN, 'OK: "order-processor-conflicting-duplicates" in US East (N. Virginia)'],
    [TOPIC_ARN, 'ALARM: "order-processor-conflicting-duplicates" in US East (N. Virginia)'],
  ]);
  expect(JSON.parse(published[1]?.Message ?? '{}')).toMatchObject({ NewStateValue: 'ALARM', Trigger: { Namespace: 'EffectivelyOnce', MetricName: 'ConflictingDuplicates', Statistic: 'SUM' } });
  await closeNextPeriod(evaluator);
  expect(evaluator.states()).toEqual({ [alarm.alarmName]: 'OK' });
});

test("a single-metric alarm's notification Trigger carries its namespace, name, upper-cased statistic and dimensions in the alarm's order", () => {
  const key: MetricKey = { namespace: 'EffectivelyOnce', metricName: 'ConflictingDuplicates', dimensions: { service: 'order-processor', source: 'orders' } };
  const alarm = alarmOn(key, 'Sum', { alarmName: 'conflicts', periodSeconds: 300, evaluationPeriods: 3, datapointsToAlarm: 2, threshold: 1, comparisonOperator: 'GreaterThanOrEqualToThreshold', treatMissingData: 'missing' });
  const transition: AlarmTransition = { alarmName: 'conflicts', oldState: 'OK', newState: 'ALARM', reason: 'Threshold Crossed', timestamp: new Date(T0).toISOString(), datapoints: [], notified: [] };
  const notification = alarmNotification(alarm, transition, { region: 'eu-west-1', accountId: '123456789012', configuredAt: new Date(T0) });
  expect(notification.Trigger).toEqual({
    MetricName: 'ConflictingDuplicates',
    Namespace: 'EffectivelyOnce',
    StatisticType: 'Statistic',
    Statistic: 'SUM',
    Unit: null,
    Dimensions: [{ value: 'order-processor', name: 'service' }, { value: 'orders', name: 'source' }],
    Period: 300,
    EvaluationPeriods: 3,
    DatapointsToAlarm: 2,
    ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    Threshold: 1,
    TreatMissingData: 'missing',
    EvaluateLowSampleCountPercentile: '',
  });
  expect(notification).toMatchObject({ Region: 'EU (Ireland)', AlarmArn: 'arn:aws:cloudwatch:eu-west-1:123456789012:alarm:conflicts' });
});

test.each([
  ['Maximum', 'MAXIMUM'],
  ['Minimum', 'MINIMUM'],
  ['Average', 'AVERAGE'],
] as const)('the Trigger of an alarm on the %s names the statistic %s', (statistic, expected) => {
  const transition: AlarmTransition = { alarmName: 'x', oldState: 'OK', newState: 'ALARM', reason: '', timestamp: new Date(T0).toISOString(), datapoints: [], notified: [] };
  const notification = alarmNotification(alarmOn(errors, statistic), transition, { region: 'us-east-1', accountId: '000000000000', configuredAt: new Date(T0) });
  expect(notification.Trigger).toMatchObject({ Statistic: expected, Dimensions: [{ value: 'page-view-counter', name: 'FunctionName' }] });
});
