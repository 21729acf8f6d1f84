/**
 * A failure archive's index queue: EventBridge puts one "Object Created" event there per object
 * the mapping writes, and the depth alarm counts them. Once a redrive has deleted an object, its
 * announcement is deleted too; an announcement of an object still in the bucket (not redriven,
 * or written again by a batch that failed again) stays, and so does the alarm.
 */
import { DeleteMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { archiveHolds } from './archive-objects';
import { bucketArn, needing } from './permissions';
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

/**
 * Deletes the announcements of objects the bucket no longer holds.
 * @throws PermissionDeniedError when AWS refuses a call for lack of a permission
 */
export async function clearAnnouncements(clients: Pick<DlqClients, 'sqs' | 's3'>, queue: QueueRef, bucket: string, options?: SweepOptions): Promise<AnnouncementSweep> {
  const counts = { deleted: 0, kept: 0, unrecognized: 0 };
  const settle = (message: Message) => settleAnnouncement(clients, { queue, bucket }, message, counts);
  await needing({ action: 'sqs:ReceiveMessage', resource: queue.arn }, () => sweep(clients.sqs, queue.url, settle, options));
  return counts;
}

/** Keeps an announcement of an object still archived, or of none of this archive; deletes the rest. */
async function settleAnnouncement(clients: Pick<DlqClients, 'sqs' | 's3'>, archive: { queue: QueueRef; bucket: string }, message: Message, counts: { -readonly [K in keyof AnnouncementSweep]: number }): Promise<Verdict> {
  const { queue, bucket } = archive;
  const key = announcedObjectKey(message, bucket);
  if (key === undefined) {
    counts.unrecognized += 1;
    return Verdict.KEEP;
  }
  const scope = { partition: queue.arn.split(':')[1] || 'aws', region: '', accountId: '' };
  if (await needing({ action: 's3:GetObject', resource: bucketArn(scope, bucket, key) }, () => archiveHolds(clients.s3, bucket, key))) {
    counts.kept += 1;
    return Verdict.KEEP;
  }
  await needing({ action: 'sqs:DeleteMessage', resource: queue.arn }, () => clients.sqs.send(new DeleteMessageCommand({ QueueUrl: queue.url, ReceiptHandle: message.ReceiptHandle })));
  counts.deleted += 1;
  return Verdict.DONE;
}
