/**
 * CloudWatch's evaluation of a static-threshold alarm: "M out of N" datapoints against the
 * threshold, with the alarm's treatment of missing data, and the state reason in CloudWatch's words.
 */
import { AlarmState, type AlarmStateValue, type ComparisonOperator, type Datapoint, type MetricAlarm } from './types';

/** The outcome of one evaluation. */
export interface Evaluation {
  readonly state: AlarmStateValue;
  readonly reason: string;
}

type Rule = Pick<MetricAlarm, 'comparisonOperator' | 'threshold' | 'evaluationPeriods' | 'datapointsToAlarm' | 'treatMissingData'>;

const PHRASES: Readonly<Record<ComparisonOperator, string>> = {
  GreaterThanThreshold: 'greater than',
  GreaterThanOrEqualToThreshold: 'greater than or equal to',
  LessThanThreshold: 'less than',
  LessThanOrEqualToThreshold: 'less than or equal to',
};

/** True when `value` is on the alarming side of the threshold. */
export function isBreaching(rule: Pick<Rule, 'comparisonOperator' | 'threshold'>, value: number): boolean {
  switch (rule.comparisonOperator) {
    case 'GreaterThanThreshold':
      return value > rule.threshold;
    case 'GreaterThanOrEqualToThreshold':
      return value >= rule.threshold;
    case 'LessThanThreshold':
      return value < rule.threshold;
    case 'LessThanOrEqualToThreshold':
      return value <= rule.threshold;
  }
}

/**
 * The state that the last `evaluationPeriods` datapoints (oldest first; fewer at the start, the
 * rest counting as missing) call for. `notBreaching` and `breaching` substitute missing
 * datapoints; `missing` and `ignore` judge the datapoints present, a simplification of AWS, which
 * also looks back beyond the window. With none present, `missing` gives INSUFFICIENT_DATA and
 * `ignore` keeps the current state.
 */
export function evaluateAlarm(rule: Rule, window: readonly Datapoint[], current: AlarmStateValue): Evaluation {
  const present = window.flatMap((point) => (point.value === undefined ? [] : [point.value]));
  const missing = Math.max(0, rule.evaluationPeriods - present.length);
  const breaches = present.filter((value) => isBreaching(rule, value)).length;
  if (missing === 0 || rule.treatMissingData === 'notBreaching' || rule.treatMissingData === 'breaching') {
    const counted = breaches + (rule.treatMissingData === 'breaching' ? missing : 0);
    return decide(rule, window, current, counted >= rule.datapointsToAlarm ? AlarmState.ALARM : AlarmState.OK);
  }
  if (present.length === 0) {
    const state = rule.treatMissingData === 'missing' ? AlarmState.INSUFFICIENT_DATA : current;
    return { state, reason: `Insufficient Data: ${plural(missing, 'datapoint was', 'datapoints were')} unknown.` };
  }
  const alarming = breaches >= Math.min(rule.datapointsToAlarm, present.length);
  return decide(rule, window, current, alarming ? AlarmState.ALARM : AlarmState.OK);
}

function decide(rule: Rule, window: readonly Datapoint[], current: AlarmStateValue, state: AlarmStateValue): Evaluation {
  return { state, reason: thresholdReason(rule, window, current, state) };
}

/**
 * CloudWatch's reason, e.g. `Threshold Crossed: 1 out of the last 1 datapoints [3.0 (30/11/26
 * 10:00:00)] was greater than the threshold (0.0) (minimum 1 datapoint for OK -> ALARM transition).`
 */
export function thresholdReason(rule: Rule, window: readonly Datapoint[], from: AlarmStateValue, to: AlarmStateValue): string {
  const present = window.filter((point): point is Datapoint & { value: number } => point.value !== undefined).reverse();
  const alarming = to === AlarmState.ALARM;
  if (present.length === 0) return missingReason(rule, alarming);
  const matching = present.filter((point) => isBreaching(rule, point.value) === alarming).length;
  const points = present.map((point) => `${formatDouble(point.value)} (${reasonTime(point.timestamp)})`).join(', ');
  const verb = matching === 1 ? 'was' : 'were';
  const comparison = `${alarming ? '' : 'not '}${PHRASES[rule.comparisonOperator]}`;
  const minimum = `minimum ${plural(rule.datapointsToAlarm, 'datapoint', 'datapoints')} for ${from} -> ${to} transition`;
  return `Threshold Crossed: ${matching} out of the last ${present.length} datapoints [${points}] ${verb} ${comparison} the threshold (${formatDouble(rule.threshold)}) (${minimum}).`;
}

function missingReason(rule: Rule, alarming: boolean): string {
  const periods = plural(rule.evaluationPeriods, 'period', 'periods');
  const treated = plural(rule.evaluationPeriods, 'missing datapoint was', 'missing datapoints were');
  return `Threshold Crossed: no datapoints were received for ${periods} and ${treated} treated as [${alarming ? 'Breaching' : 'NonBreaching'}].`;
}

/** Doubles as CloudWatch prints them: `0.0`, `3.0`, `2.5`. */
export function formatDouble(value: number): string {
  return Number.isInteger(value) ? value.toFixed(1) : String(value);
}

/** `dd/MM/yy HH:mm:ss` in UTC, as in CloudWatch's state reasons. */
function reasonTime(date: Date): string {
  const [year, month, day] = date.toISOString().slice(0, 10).split('-');
  return `${day}/${month}/${year?.slice(2)} ${date.toISOString().slice(11, 19)}`;
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}
