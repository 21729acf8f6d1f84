import { Queue, QueueEncryption, type RedriveAllowPolicy } from 'aws-cdk-lib/aws-sqs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { DLQ_RETENTION } from './defaults';
import { DlqAlarm } from './dlq-alarm';

/** Options of {@link addMonitoredDlq}. */
export interface MonitoredDlqOptions {
  /** The consumer whose failures the queue holds, for the alarm's description. */
  readonly consumerName: string;
  /** The topic the depth alarm notifies. */
  readonly alarmTopic: ITopic;
  /** Which queues may name this one as their dead-letter queue. */
  readonly redriveAllowPolicy: RedriveAllowPolicy;
  /** A FIFO DLQ, for a FIFO source (SQS allows no other): named, since a FIFO queue's name must end in `.fifo`. */
  readonly fifo?: { readonly queueName: string };
}

/** A consumer's dead-letter queue and the alarm on its depth. */
export interface MonitoredDlq {
  readonly queue: Queue;
  readonly alarm: DlqAlarm;
}

/**
 * Adds a consumer's dead-letter queue (ids `Dlq` and `DlqAlarm` in `scope`): encrypted, TLS only,
 * kept for the SQS maximum, and alarmed on its first message. Every DLQ is made here, so none
 * can exist without its alarm.
 */
export function addMonitoredDlq(scope: Construct, options: MonitoredDlqOptions): MonitoredDlq {
  const queue = new Queue(scope, 'Dlq', {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: DLQ_RETENTION,
    redriveAllowPolicy: options.redriveAllowPolicy,
    ...(options.fifo && { fifo: true, queueName: options.fifo.queueName }),
  });
  const alarm = new DlqAlarm(scope, 'DlqAlarm', {
    queue,
    topic: options.alarmTopic,
    description:
      `Consumer ${options.consumerName} has messages in its dead-letter queue. ` +
      'Each one is an event that was not processed: triage it, fix the cause, then redrive.',
  });
  return { queue, alarm };
}
