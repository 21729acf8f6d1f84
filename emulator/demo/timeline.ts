/**
 * What happened over a demo run, period by period: the data behind the HTML report's charts
 * (`npm run demo -- --html FILE`). Built from local mode's metrics (the functions' EMF lines, the
 * mappings' counts, the queues' depth) and the alarm evaluator's transitions.
 */
import type { AlarmStateValue } from '../alarms';

/** One period of one consumer; counts are Sums over the period, depth is the period's Maximum. */
export interface ConsumerPoint {
  /** The period's start, in ms since the run's start. */
  readonly atMs: number;
  /** Records the mapping handed to the function (`InvokedEventCount`), duplicates and retries included. */
  readonly deliveries: number;
  /** Events the runtime skipped as already applied (`DuplicatesSkipped`). */
  readonly duplicates: number;
  /** Events whose effect the runtime applied (`EventsProcessed`). */
  readonly effects: number;
  /** Messages its DLQ held (visible + in flight); 0 when it has none or no sample was taken. */
  readonly dlqDepth: number;
}

/** One consumer's series. */
export interface ConsumerTimeline {
  readonly name: string;
  /** `sqs`, `sqs-fifo`, `sns-sqs`, `kinesis` or `dynamodb-stream`. */
  readonly source: string;
  /** Oldest first, one per period, without gaps. */
  readonly points: readonly ConsumerPoint[];
  /** The names of this consumer's alarms (its DLQ's and its ConsumerAlarms'). */
  readonly alarms: readonly string[];
}

/** One alarm's states over the run. */
export interface AlarmTimeline {
  readonly alarmName: string;
  /** What it watches, e.g. `AWS/SQS ApproximateAgeOfOldestMessage` or `visible + inFlight`. */
  readonly metric: string;
  /** False for an alarm local mode cannot evaluate: it has no states. */
  readonly evaluated: boolean;
  /** The state from each time on, oldest first; the first is INSUFFICIENT_DATA at 0. */
  readonly states: readonly { readonly atMs: number; readonly state: AlarmStateValue }[];
}

/** A moment the run moved on (publishing, the first drain, the fix and redrive). */
export interface PhaseMark {
  readonly atMs: number;
  readonly phase: string;
}

export interface DemoTimeline {
  /** The local length of one period (one template minute, compressed). */
  readonly periodMs: number;
  /** The run's length, in ms. */
  readonly durationMs: number;
  readonly consumers: readonly ConsumerTimeline[];
  readonly alarms: readonly AlarmTimeline[];
  readonly phases: readonly PhaseMark[];
}
