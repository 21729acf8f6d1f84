/** The terminal's alarm lines: each alarm's state changes after its start, or why it is not evaluated. */
import { alarmStates, alarmTimelineLines, shortAlarmName } from '../../../emulator/demo/alarm-timeline';
import type { AlarmTimeline, DemoTimeline } from '../../../emulator/demo/timeline';

const errors: AlarmTimeline = {
  alarmName: 'EffectivelyOnce-PageViewCounterConsumerAlarmsErrorsD91F2716',
  metric: 'AWS/Lambda Errors',
  evaluated: true,
  states: [{ atMs: 0, state: 'INSUFFICIENT_DATA' }, { atMs: 800, state: 'OK' }, { atMs: 12_400, state: 'ALARM' }, { atMs: 40_050, state: 'OK' }],
};
const throttles: AlarmTimeline = { alarmName: 'EffectivelyOnce-PageViewCounterConsumerAlarmsThrottlesB1E4D59C', metric: 'AWS/Lambda Throttles', evaluated: false, states: [] };
const silent: AlarmTimeline = { alarmName: 'EffectivelyOnce-LedgerDlqAlarm0610ECD2', metric: 'visible + inFlight', evaluated: true, states: [{ atMs: 0, state: 'INSUFFICIENT_DATA' }] };

test('the stack name and the hash CloudFormation appends are dropped from the name', () => {
  expect(shortAlarmName(errors.alarmName)).toBe('PageViewCounterConsumerAlarmsErrors');
  expect(shortAlarmName('my-alarm')).toBe('alarm');
});

test('an alarm reads as its state changes in seconds, an alarm never evaluated as what it watches', () => {
  expect(alarmStates(errors)).toBe('OK 0.8 s, ALARM 12.4 s, OK 40.0 s');
  expect(alarmStates(throttles)).toBe('not evaluated locally (AWS/Lambda Throttles)');
  expect(alarmStates(silent)).toBe('INSUFFICIENT_DATA throughout');
});

test('the section counts the alarms evaluated and gives one aligned line per alarm', () => {
  const timeline: DemoTimeline = { periodMs: 1000, durationMs: 50_000, consumers: [], alarms: [errors, throttles, silent], phases: [] };
  expect(alarmTimelineLines(timeline).split('\n')).toEqual([
    'alarms (2 of 3 evaluated locally; state from the time shown):',
    '  PageViewCounterConsumerAlarmsErrors     OK 0.8 s, ALARM 12.4 s, OK 40.0 s',
    '  PageViewCounterConsumerAlarmsThrottles  not evaluated locally (AWS/Lambda Throttles)',
    '  LedgerDlqAlarm                          INSUFFICIENT_DATA throughout',
  ]);
});
