/**
 * The run's timeline from what local mode recorded: per consumer and period, its mapping's
 * InvokedEventCount, the runtime's duplicates and effects (EMF, by service), and its DLQ's held
 * messages; per alarm, its states from the evaluator's transitions. The stack is hand-built: only
 * the parts the builder reads are filled in (and the cast says so).
 */
import type { AlarmTransition, MetricAlarm } from '../../../emulator/alarms';
import { buildTimeline } from '../../../emulator/demo/timeline-builder';
import { MetricStore, queueMetric } from '../../../emulator/metrics';
import type { LocalStack } from '../../../emulator/stack/runtime';
import { ABOVE_ZERO_IN_ONE_PERIOD } from '../../helpers/alarms';
import { provisionedStack } from '../../helpers/provisioned-stack';

const START = Date.UTC(2026, 11, 1, 12);
const PERIOD = 1_000;
const resources = provisionedStack(['Source', 'Dlq'], new Map([['Fn', { ref: 'S-Fn', attributes: {} }], ['Mapping', { ref: 'uuid-1', attributes: {} }]]));
const dlqName = 'S-Dlq';

function alarm(alarmName: string, key: MetricAlarm['metrics'][number]['key']): MetricAlarm {
  return { alarmName, metrics: [{ key, statistic: 'Sum' }], ...ABOVE_ZERO_IN_ONE_PERIOD, alarmActions: [], okActions: [] };
}

function transition(alarmName: string, atMs: number, newState: AlarmTransition['newState']): AlarmTransition {
  return { alarmName, oldState: 'OK', newState, reason: '', timestamp: new Date(START + atMs).toISOString(), datapoints: [], notified: [] };
}

function stackWith(store: MetricStore): LocalStack {
  const errors = alarm('S-Errors', { namespace: 'AWS/Lambda', metricName: 'Errors', dimensions: { FunctionName: 'S-Fn' } });
  const other = alarm('S-OtherErrors', { namespace: 'AWS/Lambda', metricName: 'Errors', dimensions: { FunctionName: 'S-Elsewhere' } });
  const partial = {
    alarmPeriodMs: PERIOD,
    metrics: store,
    resources,
    mappings: [{ logicalId: 'Mapping', source: 'sqs', functionLogicalId: 'Fn', sourceQueueUrl: 'http://q/S-Source' }],
    functionSpecs: new Map([['Fn', { environment: { CONSUMER_NAME: 'counter', POWERTOOLS_SERVICE_NAME: 'counter-svc', DLQ_URL: 'http://q/S-Dlq' } }]]),
    fanOut: { subscriptions: [] },
    alarms: { evaluated: [errors, other], notEvaluated: [{ alarmName: 'S-Throttles', metric: 'AWS/Lambda Throttles', reason: 'no throttling', dimensionValues: ['S-Fn'] }] },
    alarmEvaluator: { history: () => [transition('S-Errors', 900, 'OK'), transition('S-Errors', 2_100, 'ALARM'), transition('S-OtherErrors', 900, 'OK')] },
  };
  // Only what buildTimeline reads.
  return partial as unknown as LocalStack;
}

test('each period sums the counts, takes the DLQ depth as the sum of its metrics Maximums, and reads 0 where nothing was recorded', () => {
  const store = new MetricStore();
  const invoked = { namespace: 'AWS/Lambda', metricName: 'InvokedEventCount', dimensions: { EventSourceMappingUUID: 'uuid-1' } };
  const runtime = (metricName: string) => ({ namespace: 'EffectivelyOnce', metricName, dimensions: { service: 'counter-svc' } });
  store.put(invoked, 10, START + 100);
  store.put(invoked, 5, START + 900);
  store.put(runtime('EventsProcessed'), 14, START + 950);
  store.put(runtime('DuplicatesSkipped'), 1, START + 950);
  store.put(queueMetric({ name: dlqName }, 'ApproximateNumberOfMessagesVisible'), 2, START + 1_200);
  store.put(queueMetric({ name: dlqName }, 'ApproximateNumberOfMessagesVisible'), 3, START + 1_700);
  store.put(queueMetric({ name: dlqName }, 'ApproximateNumberOfMessagesNotVisible'), 1, START + 1_700);
  const timeline = buildTimeline(stackWith(store), { startedAt: START, endedAt: START + 2_500, phases: [{ atMs: 0, phase: 'publishing' }] });
  expect(timeline).toMatchObject({ periodMs: PERIOD, durationMs: 2_500, phases: [{ atMs: 0, phase: 'publishing' }] });
  const [consumer] = timeline.consumers;
  expect(consumer).toMatchObject({ name: 'counter', source: 'sqs' });
  expect(consumer?.points).toEqual([
    { atMs: 0, deliveries: 15, duplicates: 1, effects: 14, dlqDepth: 0 },
    { atMs: 1_000, deliveries: 0, duplicates: 0, effects: 0, dlqDepth: 4 },
    { atMs: 2_000, deliveries: 0, duplicates: 0, effects: 0, dlqDepth: 0 },
  ]);
});

test("a consumer's alarms are those whose dimensions name its resources; each alarm's states start INSUFFICIENT_DATA", () => {
  const timeline = buildTimeline(stackWith(new MetricStore()), { startedAt: START, endedAt: START + 3_000, phases: [] });
  expect(timeline.consumers[0]?.alarms).toEqual(['S-Errors', 'S-Throttles']);
  expect(timeline.alarms).toEqual([
    { alarmName: 'S-Errors', metric: 'AWS/Lambda Errors', evaluated: true, states: [{ atMs: 0, state: 'INSUFFICIENT_DATA' }, { atMs: 900, state: 'OK' }, { atMs: 2_100, state: 'ALARM' }] },
    { alarmName: 'S-OtherErrors', metric: 'AWS/Lambda Errors', evaluated: true, states: [{ atMs: 0, state: 'INSUFFICIENT_DATA' }, { atMs: 900, state: 'OK' }] },
    { alarmName: 'S-Throttles', metric: 'AWS/Lambda Throttles', evaluated: false, states: [] },
  ]);
});
