/**
 * SQS FIFO queues (SQS Developer Guide, "Amazon SQS FIFO queues"): a FIFO queue's name ends in
 * `.fifo`, and so do its URL and ARN. A send needs a `MessageGroupId` (order is kept within a
 * group) and a `MessageDeduplicationId` unless the queue has content-based deduplication; a
 * second send with the same deduplication id within 5 minutes is accepted and dropped. That window
 * covers a sender's quick retry, not a redelivery after a visibility timeout nor a producer retry
 * after 5 minutes: consumers still dedup on the event id.
 *
 * SNS FIFO topics (SNS Developer Guide, "FIFO topics"; API Reference, Publish) follow the same
 * rules: the name ends in `.fifo`, and a publish needs a `MessageGroupId` and a
 * `MessageDeduplicationId` of the same characters and length.
 */

export const FIFO_SUFFIX = '.fifo';

/** SQS keeps a deduplication id for this long. */
export const FIFO_DEDUPLICATION_WINDOW_SECONDS = 300;

/** At most 128 characters of `[A-Za-z0-9!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~]`, for group and deduplication ids alike. */
export const FIFO_ID_MAX_LENGTH = 128;

/** Alphanumeric and punctuation, 1 to {@link FIFO_ID_MAX_LENGTH}: the printable ASCII characters but space. */
const FIFO_ID = new RegExp(`^[\\x21-\\x7e]{1,${FIFO_ID_MAX_LENGTH}}$`);

/** Whether SQS takes `value` as a `MessageGroupId` or `MessageDeduplicationId`. */
export function isFifoId(value: string): boolean {
  return FIFO_ID.test(value);
}

/** Whether an SNS topic ARN (or name) is a FIFO topic's. */
export function isFifoTopic(topicArnOrName: string): boolean {
  return topicArnOrName.endsWith(FIFO_SUFFIX);
}

/** Whether a queue name, URL or ARN is a FIFO queue's. */
export function isFifoQueue(nameUrlOrArn: string): boolean {
  return nameUrlOrArn.endsWith(FIFO_SUFFIX);
}
