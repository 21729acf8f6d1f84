/**
 * `dlq list`: every DLQ of the stack with its depth and the age of its oldest message. SQS reports
 * no such age (CloudWatch's `ApproximateAgeOfOldestMessage` is a metric, not a queue attribute),
 * so it is computed from the `SentTimestamp` of the messages peeked, which are left in place. For
 * a failure archive's index queue, the archive's objects are counted too, and the oldest is the
 * oldest object.
 */
import { depthOf } from '../../aws/sqs/peek';
import { listArchivedObjects } from './archive-objects';
import { sentAt } from './entry';
import { arnScopeOf, bucketArn, needing } from './permissions';
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
  /** A failure archive's objects: the failures themselves (`visible` counts their announcements). */
  readonly archivedObjects?: number;
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
  const depth = await needing({ action: 'sqs:GetQueueAttributes', resource: dlq.arn }, () => depthOf(context.clients.sqs, dlq.url));
  const limit = options.peekLimit ?? LIST_DEFAULTS.peekLimit;
  if (dlq.archive) {
    const { bucket } = dlq.archive;
    const { objects, truncated } = await needing({ action: 's3:ListBucket', resource: bucketArn(arnScopeOf(context.topology), bucket) }, () => listArchivedObjects(context.clients.s3, bucket, limit));
    return { ...dlq, ...depth, ...oldest(objects[0]?.lastModified, options), peeked: objects.length, truncated, archivedObjects: objects.length };
  }
  if (depth.visible === 0) return { ...dlq, ...depth, peeked: 0, truncated: false };
  const { messages, truncated } = await needing({ action: 'sqs:ReceiveMessage', resource: dlq.arn }, () => peekQueue(context.clients.sqs, dlq.url, { limit, ...options.sweep }));
  return { ...dlq, ...depth, ...oldest(messages.map(sentAt).sort()[0], options), peeked: messages.length, truncated };
}

function oldest(at: string | undefined, options: ListOptions): Pick<DlqListing, 'oldestSentAt' | 'oldestAgeSeconds'> {
  if (at === undefined) return {};
  const now = (options.now ?? (() => new Date()))().getTime();
  return { oldestSentAt: at, oldestAgeSeconds: Math.max(0, Math.round((now - Date.parse(at)) / 1000)) };
}
