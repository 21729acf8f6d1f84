import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { notifyOnAlarmAndOk } from './alarm-actions';

/**
 * A queue's messages held, visible + in flight (each its Maximum per minute): what the DLQ alarm
 * watches, and what the dashboard draws beside it.
 */
export function heldMessages(queue: IQueue, label: string): MathExpression {
  const period = Duration.minutes(1);
  return new MathExpression({
    expression: `${DLQ_HELD_METRICS.visible} + ${DLQ_HELD_METRICS.inFlight}`,
    label,
    period,
    usingMetrics: {
      [DLQ_HELD_METRICS.visible]: queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period }),
      [DLQ_HELD_METRICS.inFlight]: queue.metricApproximateNumberOfMessagesNotVisible({ statistic: 'Maximum', period }),
    },
  });
}

/** Props of {@link DlqAlarm}. */
export interface DlqAlarmProps {
  /** The dead-letter queue to watch. */
  readonly queue: IQueue;
  /** The topic notified when the queue gets a message, and again when it is empty. */
  readonly topic: ITopic;
  /**
   * The alarm's description, shown in the notification.
   * @default - names the queue and says that any message is a question
   */
  readonly description?: string;
}

/** The ids of the metrics the alarm adds up, as its metric math names them. */
export const DLQ_HELD_METRICS = { visible: 'visible', inFlight: 'inFlight' } as const;

/**
 * Alarms as soon as a dead-letter queue holds a message. A DLQ's normal depth is zero: anything
 * else is a question for a human, so a single one-minute datapoint is enough, and the OK action
 * tells the same people when the queue is drained.
 *
 * "Holds" counts the messages in flight too (visible + not visible, one metric math expression):
 * whoever reads a DLQ (`eo dlq inspect`, a redrive, a colleague's console) hides what it receives
 * for its visibility timeout, and an alarm on the visible ones alone would send OK, then ALARM
 * again, while no message ever left.
 */
export class DlqAlarm extends Construct {
  /** The CloudWatch alarm. */
  public readonly alarm: Alarm;

  constructor(scope: Construct, id: string, props: DlqAlarmProps) {
    super(scope, id);
    this.alarm = this.addAlarm(props);
    notifyOnAlarmAndOk(this.alarm, props.topic);
  }

  private addAlarm(props: DlqAlarmProps): Alarm {
    const held = heldMessages(props.queue, 'Messages held (visible + in flight)');
    return held.createAlarm(this, 'Alarm', {
      alarmDescription: props.description ?? `Messages are waiting in dead-letter queue ${props.queue.node.path}.`,
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      datapointsToAlarm: 1,
      // An empty queue publishes no datapoints in some periods: that is the healthy state.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }
}
