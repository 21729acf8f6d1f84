import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { notifyOnAlarmAndOk } from './alarm-actions';
import { STREAM_CONSUMER_DEFAULTS } from './defaults';
import { checkDurationRange, formatDuration } from './validation';

/** Props of {@link IteratorAgeAlarm}. */
export interface IteratorAgeAlarmProps {
  /** The stream consumer's function. */
  readonly function: IFunction;
  /** The topic notified when the consumer falls behind, and again when it catches up. */
  readonly topic: ITopic;
  /**
   * Iterator age above which the consumer counts as falling behind.
   * @default 1 minute (`STREAM_CONSUMER_DEFAULTS.iteratorAgeThreshold`)
   * @range 1 second..7 days
   */
  readonly threshold?: Duration;
  /**
   * The alarm's description, shown in the notification.
   * @default - names the function and the threshold
   */
  readonly description?: string;
}

/**
 * Alarms when a stream consumer falls behind its stream (`AWS/Lambda IteratorAge`, Maximum).
 * A poison record that blocks a shard shows here long before it reaches the on-failure queue.
 */
export class IteratorAgeAlarm extends Construct {
  /** The CloudWatch alarm. */
  public readonly alarm: Alarm;

  constructor(scope: Construct, id: string, props: IteratorAgeAlarmProps) {
    super(scope, id);
    checkDurationRange('threshold', props.threshold, Duration.seconds(1), Duration.days(7));
    this.alarm = this.addAlarm(props);
    notifyOnAlarmAndOk(this.alarm, props.topic);
  }

  private addAlarm(props: IteratorAgeAlarmProps): Alarm {
    const threshold = props.threshold ?? STREAM_CONSUMER_DEFAULTS.iteratorAgeThreshold;
    const age = props.function.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(1) });
    return age.createAlarm(this, 'Alarm', {
      alarmDescription:
        props.description ??
        `${props.function.node.path} is more than ${formatDuration(threshold)} behind its stream.`,
      threshold: threshold.toMilliseconds(),
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      datapointsToAlarm: 1,
      // No invocations means no datapoints, and an idle consumer is not behind.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }
}
