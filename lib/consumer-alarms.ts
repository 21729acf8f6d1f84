/**
 * The alarms a consumer has besides its DLQ's depth: what an on-call engineer asks once the DLQ
 * alarm is not the question. Each notifies the alarm topic on ALARM and on OK, counts one-minute
 * periods, takes missing data as healthy (an idle consumer publishes nothing), and is a prop to
 * tune (`{ threshold, periods }`) or turn off (`false`).
 *
 * - `errors` (`AWS/Lambda Errors`): the runtime reports a failed record in its batch response and
 *   does not throw, so a function error is an init failure, a timeout or a bug.
 * - `throttles` (`AWS/Lambda Throttles`): the function did not get the concurrency its mapping asked
 *   for; events wait.
 * - `conflictingDuplicates` (the runtime's `ConflictingDuplicates`): a producer reused an
 *   `eventId` for different content; the second one was dropped as a duplicate.
 * - `failedInvokeEvents` (the mapping's `FailedInvokeEventCount`): invocations failed or reported
 *   failed records for 5 minutes in a row: retries are not clearing it.
 * - `droppedEvents` (streams; `DroppedEventCount`): the mapping gave records up (retries exhausted
 *   or too old); they went to the on-failure destination.
 * - `oldestMessageAge` (queues; `AWS/SQS ApproximateAgeOfOldestMessage`): the oldest message is
 *   older than all its retries could take (visibility timeout x max receive count): it waits
 *   because the consumer does not keep up, not because it is being retried.
 *
 * The mapping metrics exist only when the mapping lists `EventCount` in its `MetricsConfig`,
 * which every consumer's mapping does (`MAPPING_METRICS`).
 */
import { mappingMetric, runtimeMetric } from './consumer-metrics';
import { Duration, Token } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { MetricType, type IFunction, type MetricsConfig } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { MetricName } from '../aws/metrics';
import { notifyOnAlarmAndOk } from './alarm-actions';
import { checkDurationRange, checkIntegerRange, formatDuration } from './validation';

/** What every mapping of a consumer publishes: Lambda's event counts (polled, invoked, failed, dropped, ...). */
export const MAPPING_METRICS: MetricsConfig = { metrics: [MetricType.EVENT_COUNT] };

/** How sensitive one alarm is. */
export interface AlarmTuning {
  /**
   * The alarm fires above this count per minute.
   * @default 0
   * @range 0 or more (a fraction is allowed: CloudWatch compares the per-minute sum)
   */
  readonly threshold?: number;
  /**
   * One-minute periods in a row above the threshold before it fires.
   * @default - per alarm, see {@link CONSUMER_ALARM_DEFAULTS}
   * @range 1..60, a whole number
   */
  readonly periods?: number;
}

/** How sensitive the oldest-message alarm is. */
export interface OldestMessageAgeTuning {
  /**
   * The alarm fires when the oldest message is older than this.
   * @default - visibility timeout x max receive count (1 hour when either is a token at synth)
   * @range 1 second..14 days (SQS's longest retention)
   */
  readonly threshold?: Duration;
  /**
   * One-minute periods in a row above the threshold.
   * @default 3 (`CONSUMER_ALARM_DEFAULTS.oldestMessageAgePeriods`)
   * @range 1..60, a whole number
   */
  readonly periods?: number;
}

/** The alarms of a consumer besides its DLQ's; `false` turns one off. */
export interface ConsumerAlarmsProps {
  /**
   * The function's errors (`AWS/Lambda Errors`): an init failure, a timeout or a bug, since the
   * runtime reports a failed record in its batch response instead of throwing.
   * @default { threshold: 0, periods: 1 }
   */
  readonly errors?: AlarmTuning | false;
  /**
   * The function's throttles (`AWS/Lambda Throttles`): the mapping asked for concurrency the
   * function did not get, and events wait.
   * @default { threshold: 0, periods: 1 }
   */
  readonly throttles?: AlarmTuning | false;
  /**
   * The runtime's `ConflictingDuplicates`: a producer reused an `eventId` for different content,
   * and the second event was dropped as a duplicate.
   * @default { threshold: 0, periods: 1 }
   */
  readonly conflictingDuplicates?: AlarmTuning | false;
  /**
   * The mapping's `FailedInvokeEventCount`: invocations failed, or reported failed records, for
   * the periods in a row, so retries are not clearing them.
   * @default { threshold: 0, periods: 5 }
   */
  readonly failedInvokeEvents?: AlarmTuning | false;
  /** Stream consumers only. @default { threshold: 0, periods: 1 } */
  readonly droppedEvents?: AlarmTuning | false;
  /** Queue consumers only. @default { threshold: visibility timeout x max receive count, periods: 3 } */
  readonly oldestMessageAge?: OldestMessageAgeTuning | false;
}

/** The periods each alarm waits for by default, named once for the code and its docs. */
export const CONSUMER_ALARM_DEFAULTS = {
  errorsPeriods: 1,
  throttlesPeriods: 1,
  conflictingDuplicatesPeriods: 1,
  failedInvokeEventsPeriods: 5,
  droppedEventsPeriods: 1,
  oldestMessageAgePeriods: 3,
} as const;

/** A queue consumer's source, for the oldest-message alarm. */
export interface WatchedQueue {
  /** The source queue, whose `ApproximateAgeOfOldestMessage` is watched. */
  readonly queue: IQueue;
  /**
   * The queue's visibility timeout: with `maxReceiveCount`, the longest a message can take through
   * its retries, which is the alarm's default threshold.
   * @range 0 seconds..12 hours (SQS's limits)
   */
  readonly visibilityTimeout: Duration;
  /**
   * The queue's `maxReceiveCount` (its redrive policy).
   * @range 1..1000 (SQS's limits; `QueueConsumer` takes 5 or more)
   */
  readonly maxReceiveCount: number;
}

/** What {@link ConsumerAlarms} watches. */
export interface ConsumerAlarmsWiring {
  /** The consumer's name, in each alarm's description. */
  readonly consumerName: string;
  /** The service dimension of the runtime's metrics (`POWERTOOLS_SERVICE_NAME`). */
  readonly serviceName: string;
  /** The consumer's function, whose errors and throttles are watched. */
  readonly function: IFunction;
  /** The event source mapping's UUID (its `Ref`). */
  readonly mappingUuid: string;
  /** The topic every alarm notifies, on ALARM and on OK. */
  readonly topic: ITopic;
  /**
   * A queue consumer's source queue; a stream consumer has none.
   * @default - none: no oldest-message alarm
   */
  readonly queue?: WatchedQueue;
}

const PERIOD = Duration.minutes(1);
/** The oldest-message threshold when the retry span is a token at synth time. */
const UNRESOLVED_RETRY_SPAN = Duration.hours(1);
const MAX_PERIODS = 60;

/** The alarms of one consumer (ids `Errors`, `Throttles`, ... in this construct). */
export class ConsumerAlarms extends Construct {
  /** Every alarm made, by name (`errors`, `throttles`, `conflictingDuplicates`, `failedInvokeEvents`, `droppedEvents`, `oldestMessageAge`). */
  public readonly alarms: Readonly<Partial<Record<keyof ConsumerAlarmsProps, Alarm>>>;

  constructor(scope: Construct, id: string, wiring: ConsumerAlarmsWiring, props: ConsumerAlarmsProps = {}) {
    super(scope, id);
    validateConsumerAlarms(props, wiring.queue !== undefined);
    const made: Partial<Record<keyof ConsumerAlarmsProps, Alarm>> = {};
    const add = (name: keyof ConsumerAlarmsProps, alarm: Alarm | undefined): void => {
      if (alarm) made[name] = alarm;
    };
    const name = wiring.consumerName;
    add('errors', this.countAlarm('Errors', wiring, props.errors, CONSUMER_ALARM_DEFAULTS.errorsPeriods, wiring.function.metricErrors({ period: PERIOD, statistic: 'Sum' }), `${name}'s function failed: an init failure, a timeout or a bug (the runtime reports failed records without throwing).`));
    add('throttles', this.countAlarm('Throttles', wiring, props.throttles, CONSUMER_ALARM_DEFAULTS.throttlesPeriods, wiring.function.metricThrottles({ period: PERIOD, statistic: 'Sum' }), `${name}'s function was throttled: its events wait for concurrency (reserved or account concurrency, or the mapping's maximum).`));
    add('conflictingDuplicates', this.countAlarm('ConflictingDuplicates', wiring, props.conflictingDuplicates, CONSUMER_ALARM_DEFAULTS.conflictingDuplicatesPeriods, runtimeMetric(MetricName.CONFLICTING_DUPLICATES, wiring.serviceName), `A producer reused an eventId for different content at ${name}: the second event was dropped as a duplicate. Find the producer in the consumer's logs (ConflictingDuplicates).`));
    add('failedInvokeEvents', this.countAlarm('FailedInvokeEvents', wiring, props.failedInvokeEvents, CONSUMER_ALARM_DEFAULTS.failedInvokeEventsPeriods, mappingMetric('FailedInvokeEventCount', wiring.mappingUuid), `${name}'s mapping has invoked with failures for minutes on end: retries are not clearing them (a dependency down, a bug).`));
    if (wiring.queue === undefined) {
      add('droppedEvents', this.countAlarm('DroppedEvents', wiring, props.droppedEvents, CONSUMER_ALARM_DEFAULTS.droppedEventsPeriods, mappingMetric('DroppedEventCount', wiring.mappingUuid), `${name}'s mapping gave records up (retries exhausted or too old): they are in its on-failure destination.`));
    } else {
      add('oldestMessageAge', this.oldestMessageAgeAlarm(wiring, wiring.queue, props.oldestMessageAge));
    }
    this.alarms = made;
  }

  private countAlarm(id: string, wiring: ConsumerAlarmsWiring, tuning: AlarmTuning | false | undefined, defaultPeriods: number, metric: IMetric, description: string): Alarm | undefined {
    if (tuning === false) return undefined;
    return this.alarm(id, wiring.topic, metric, { threshold: tuning?.threshold ?? 0, periods: tuning?.periods ?? defaultPeriods, description });
  }

  private oldestMessageAgeAlarm(wiring: ConsumerAlarmsWiring, watched: WatchedQueue, tuning: OldestMessageAgeTuning | false | undefined): Alarm | undefined {
    if (tuning === false) return undefined;
    const threshold = tuning?.threshold ?? retriesTake(watched);
    const metric = watched.queue.metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: 'Maximum' });
    const description =
      `The oldest message in ${wiring.consumerName}'s queue is older than ${formatDuration(threshold)}, longer than all its retries take ` +
      '(visibility timeout x max receive count): the consumer is not keeping up.';
    return this.alarm('OldestMessageAge', wiring.topic, metric, { threshold: threshold.toSeconds(), periods: tuning?.periods ?? CONSUMER_ALARM_DEFAULTS.oldestMessageAgePeriods, description });
  }

  private alarm(id: string, topic: ITopic, metric: IMetric, rule: { threshold: number; periods: number; description: string }): Alarm {
    const alarm = new Alarm(this, id, {
      metric,
      alarmDescription: rule.description,
      threshold: rule.threshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: rule.periods,
      datapointsToAlarm: rule.periods,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    notifyOnAlarmAndOk(alarm, topic);
    return alarm;
  }
}

/**
 * How long a message's retries take at most: visibility timeout x max receive count. Unknown
 * until deploy when either is a token: then an hour, which the `threshold` prop overrides.
 */
function retriesTake(watched: WatchedQueue): Duration {
  if (watched.visibilityTimeout.isUnresolved() || Token.isUnresolved(watched.maxReceiveCount)) return UNRESOLVED_RETRY_SPAN;
  return Duration.seconds(watched.visibilityTimeout.toSeconds() * watched.maxReceiveCount);
}


/**
 * Checks the `alarms` prop: tunings in range, and no alarm the source does not have.
 * @throws Error naming the setting and what is accepted
 */
export function validateConsumerAlarms(props: ConsumerAlarmsProps, isQueue: boolean): void {
  if (isQueue && props.droppedEvents !== undefined) throw new Error('alarms.droppedEvents is for stream consumers: an SQS mapping drops nothing (SQS moves what fails to the DLQ)');
  if (!isQueue && props.oldestMessageAge !== undefined) throw new Error('alarms.oldestMessageAge is for queue consumers: a stream consumer has the iterator age alarm (iteratorAgeThreshold)');
  for (const [name, tuning] of Object.entries(props) as [keyof ConsumerAlarmsProps, AlarmTuning | OldestMessageAgeTuning | false | undefined][]) {
    if (tuning === undefined || tuning === false) continue;
    checkIntegerRange(`alarms.${name}.periods`, tuning.periods, 1, MAX_PERIODS);
    if (name === 'oldestMessageAge') checkDurationRange(`alarms.${name}.threshold`, (tuning as OldestMessageAgeTuning).threshold, Duration.seconds(1), Duration.days(14));
    else checkNonNegative(`alarms.${name}.threshold`, (tuning as AlarmTuning).threshold);
  }
}

function checkNonNegative(name: string, value: number | undefined): void {
  if (value === undefined) return;
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a count >= 0 (given ${value})`);
}
