/**
 * Every alarm's timeline in the terminal, one line each: the states it went through and when
 * (seconds since the run started), or why local mode does not evaluate it. The first state,
 * INSUFFICIENT_DATA at 0 s, is every alarm's and is left out.
 */
import type { AlarmTimeline, DemoTimeline } from './timeline';

/** `EffectivelyOnce-PageViewCounterConsumerAlarmsErrorsD91F2716` -> `PageViewCounterConsumerAlarmsErrors`: the stack name and CloudFormation's hash suffix add nothing here. */
export function shortAlarmName(alarmName: string): string {
  return alarmName.replace(/^[^-]+-/, '').replace(/[0-9A-F]{8}$/, '');
}

/** `OK 0.8 s, ALARM 12.4 s, OK 40.1 s`, or `not evaluated locally (AWS/Lambda Throttles)`. */
export function alarmStates(alarm: AlarmTimeline): string {
  if (!alarm.evaluated) return `not evaluated locally (${alarm.metric})`;
  const changes = alarm.states.slice(1);
  if (changes.length === 0) return 'INSUFFICIENT_DATA throughout';
  return changes.map((change) => `${change.state} ${(change.atMs / 1000).toFixed(1)} s`).join(', ');
}

/** The alarms section printed after the summary table: a title line, then one line per alarm. */
export function alarmTimelineLines(timeline: DemoTimeline): string {
  const names = timeline.alarms.map((alarm) => shortAlarmName(alarm.alarmName));
  const width = Math.max(0, ...names.map((name) => name.length));
  const lines = timeline.alarms.map((alarm, index) => `  ${(names[index] ?? '').padEnd(width)}  ${alarmStates(alarm)}`);
  return [`alarms (${timeline.alarms.filter((alarm) => alarm.evaluated).length} of ${timeline.alarms.length} evaluated locally; state from the time shown):`, ...lines].join('\n');
}
