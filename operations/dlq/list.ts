/**
 * `dlq list`: every DLQ of the stack with its depth and the age of its oldest message. SQS reports
 * no such age (CloudWatch's `ApproximateAgeOfOldestMessage` is a metric, not a queue attribute),
 * so it is computed from the `SentTimestamp` of the messages peeked, which are left in place.
 */
import { depthOf } from '../../aws/sqs/peek';
import { sentAt } from './entry';
import { peekQueue, type SweepOptions } from './sweep';
import type { DlqContext, DlqInfo } from './types';

/** Defaults shared by the code and its documentation. */
export const LIST_DEFAULTS = {
  /** Messages peeked per DLQ to find the oldest; a larger DLQ gives a lower bound of the age. */
  peekLimit: 1_000,
} as const;

export interface DlqListing extends DlqInfo {
  /** `ApproximateNumberOfMessages`: what the alarm counts. */
  readonly visible: number;
  /** `ApproximateNumberOfMessagesNotVisible`: being read (by a redrive, an inspect) right now. */
  readonly inFlight: number;
  /** ISO-8601 `SentTimestamp` of the oldest message peeked; undefined when the DLQ is empty. */
  readonly oldestSentAt?: string;
  readonly oldestAgeSeconds?: number;
  /** Messages peeked; when `truncated`, the oldest age is a lower bound. */
  readonly peeked: number;
  readonly truncated: boolean;
}

export interface ListOptions {
  /** @default 1000 */
  readonly peekLimit?: number;
  readonly sweep?: SweepOptions;
  /** @default () => new Date() */
  readonly now?: () => Date;
}

/** Every DLQ of the stack, in the order the stack declares them. */
export function listDlqs(context: DlqContext, options: ListOptions = {}): Promise<DlqListing[]> {
  return Promise.all(context.topology.deadLetterQueues.map((dlq) => listOne(context, dlq, options)));
}

async function listOne(context: DlqContext, dlq: DlqInfo, options: ListOptions): Promise<DlqListing> {
  const depth = await depthOf(context.clients.sqs, dlq.url);
  if (depth.visible === 0) return { ...dlq, ...depth, peeked: 0, truncated: false };
  const { messages, truncated } = await peekQueue(context.clients.sqs, dlq.url, { limit: options.peekLimit ?? LIST_DEFAULTS.peekLimit, ...options.sweep });
  const oldest = messages.map(sentAt).sort()[0];
  const now = (options.now ?? (() => new Date()))().getTime();
  return {
    ...dlq,
    ...depth,
    oldestSentAt: oldest,
    oldestAgeSeconds: oldest === undefined ? undefined : Math.max(0, Math.round((now - Date.parse(oldest)) / 1000)),
    peeked: messages.length,
    truncated,
  };
}
