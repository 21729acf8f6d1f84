import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';

/** Notifies the topic when the alarm fires and again when it recovers, so that on-call sees both. */
export function notifyOnAlarmAndOk(alarm: Alarm, topic: ITopic): void {
  const action = new SnsAction(topic);
  alarm.addAlarmAction(action);
  alarm.addOkAction(action);
}
