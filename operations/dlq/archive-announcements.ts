/**
 * A failure archive's index queue: EventBridge puts one "Object Created" event there per object
 * the mapping writes, and the depth alarm counts them. Once a redrive has deleted an object, its
 * announcement is deleted too; an announcement of an object still in the bucket (not redriven,
 * or written again by a batch that failed again) stays, and so does the alarm.
 */
import { DeleteMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { archiveHolds } from './archive-objects';
import { sweep, Verdict, type SweepOptions } from './sweep';
import type { DlqClients, QueueRef } from './types';

export interface AnnouncementSweep {
  /** Announcements of objects the bucket no longer holds, deleted. */
  readonly deleted: number;
  /** Announcements of objects still in the bucket, kept. */
  readonly kept: number;
  /** Messages that announce no object of this bucket, kept for a person to look at. */
  readonly unrecognized: number;
}

/** The key an EventBridge "Object Created" event of `bucket` names, or undefined for any other message. */
export function announcedObjectKey(message: Message, bucket: string): string | undefined {
  let event: { source?: unknown; 'detail-type'?: unknown; detail?: { bucket?: { name?: unknown }; object?: { key?: unknown } } };
  try {
    event = JSON.parse(message.Body ?? '') as typeof event;
  } catch {
    return undefined;
  }
  const key = event?.detail?.object?.key;
  const isAnnouncement = event?.source === 'aws.s3' && event['detail-type'] === 'Object Created' && event.detail?.bucket?.name === bucket;
  return isAnnouncement && typeof key === 'string' ? key : undefined;
}

/** Deletes the announcements of objects the bucket no longer holds. */
export async function clearAnnouncements(clients: Pick<DlqClients, 'sqs' | 's3'>, queue: QueueRef, bucket: string, options?: SweepOptions): Promise<AnnouncementSweep> {
  const counts = { deleted: 0, kept: 0, unrecognized: 0 };
  await sweep(clients.sqs, queue.url, async (message) => {
    const key = announcedObjectKey(message, bucket);
    if (key === undefined) {
      counts.unrecognized += 1;
      return Verdict.KEEP;
    }
    if (await archiveHolds(clients.s3, bucket, key)) {
      counts.kept += 1;
      return Verdict.KEEP;
    }
    await clients.sqs.send(new DeleteMessageCommand({ QueueUrl: queue.url, ReceiptHandle: message.ReceiptHandle }));
    counts.deleted += 1;
    return Verdict.DONE;
  }, options);
  return counts;
}
