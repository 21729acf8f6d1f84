/**
 * An SQS queue's gauges as CloudWatch names them (`AWS/SQS`, by `QueueName`): its depth, from
 * the queue's attributes, and the age of its oldest message, from a local-only attribute of
 * fauxqs (SQS has no attribute for it, and a receive would hide the messages).
 */
import { GetQueueAttributesCommand, type QueueAttributeName, type SQSClient } from '@aws-sdk/client-sqs';
import type { GaugeGroup } from './metric-sampler';
import type { MetricKey } from './types';

/** The SQS attribute behind each depth metric (`ApproximateNumberOfMessages` is the API's name for the visible messages). */
export const DEPTH_ATTRIBUTES = {
  ApproximateNumberOfMessagesVisible: 'ApproximateNumberOfMessages',
  ApproximateNumberOfMessagesNotVisible: 'ApproximateNumberOfMessagesNotVisible',
} as const;

/** The depth metrics, visible then in flight: what a DLQ's alarm adds up. */
export const QUEUE_DEPTH_METRIC_NAMES = Object.keys(DEPTH_ATTRIBUTES) as (keyof typeof DEPTH_ATTRIBUTES)[];

/** The queue metrics local mode samples. */
export const QUEUE_METRIC_NAMES: readonly string[] = [...QUEUE_DEPTH_METRIC_NAMES, 'ApproximateAgeOfOldestMessage'];

/** A queue as the gauges read it. */
export interface GaugedQueue {
  readonly name: string;
  readonly url: string;
}

/** `AWS/SQS <metricName>` of the queue. */
export function queueMetric(queue: Pick<GaugedQueue, 'name'>, metricName: string): MetricKey {
  return { namespace: 'AWS/SQS', metricName, dimensions: { QueueName: queue.name } };
}

/** The queue's visible and in-flight messages, read in one `GetQueueAttributes`. */
export function queueDepthGauges(sqs: SQSClient, queue: GaugedQueue): GaugeGroup {
  return {
    keys: QUEUE_DEPTH_METRIC_NAMES.map((name) => queueMetric(queue, name)),
    read: async () => {
      const attributes = QUEUE_DEPTH_METRIC_NAMES.map((name) => DEPTH_ATTRIBUTES[name]);
      const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queue.url, AttributeNames: attributes }));
      return attributes.map((attribute) => {
        const value = Number(Attributes?.[attribute]);
        if (!Number.isFinite(value)) throw new Error(`Queue ${queue.name} reported no ${attribute}`);
        return value;
      });
    },
  };
}

/**
 * The attribute fauxqs answers, locally only, with the send time of the queue's oldest message
 * not deleted (emulator/engines/fauxqs-oldest-message.mjs); SQS has none, so the contract layer
 * refuses it and the gauge asks fauxqs itself.
 */
export const OLDEST_SENT_ATTRIBUTE = 'LocalOldestMessageSentTimestamp';

/**
 * The age in template seconds of the queue's oldest message not deleted (ready, in flight or
 * delayed; 0 for an empty queue). Local time runs `timeScale` times the template's, so a local
 * second is `1 / timeScale` template seconds, which is what the alarm's threshold is in.
 * `fauxqs` is a client of fauxqs itself, not of the contract layer.
 */
export function oldestMessageAgeGauge(fauxqs: SQSClient, queue: GaugedQueue, timeScale: number): GaugeGroup {
  return {
    keys: [queueMetric(queue, 'ApproximateAgeOfOldestMessage')],
    read: async () => {
      const { Attributes } = await fauxqs.send(new GetQueueAttributesCommand({ QueueUrl: queue.url, AttributeNames: [OLDEST_SENT_ATTRIBUTE as QueueAttributeName] }));
      const sent = (Attributes as Readonly<Record<string, string>> | undefined)?.[OLDEST_SENT_ATTRIBUTE];
      if (sent === undefined) return [0];
      const ageMs = Math.max(0, Date.now() - Number(sent));
      if (!Number.isFinite(ageMs)) throw new Error(`Queue ${queue.name} reported ${OLDEST_SENT_ATTRIBUTE} ${sent}, not a time`);
      return [Math.floor(ageMs / 1000 / timeScale)];
    },
  };
}
