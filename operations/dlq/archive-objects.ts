/**
 * The objects of a failure archive (`onFailure: 's3'`): listed under Lambda's `aws/lambda/`
 * prefix, oldest first, each read as an entry. The bucket is the truth about what failed: its
 * index queue only announces objects (and an announcement can be late, or lost).
 */
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { ON_FAILURE_OBJECT_PREFIX } from '../../aws/lambda/on-failure-object';
import { archivedEntryOf, type ArchivedEntry, type ArchivedObject } from './entry';

/** Defaults shared by the code and its documentation. */
export const ARCHIVE_DEFAULTS = {
  /** Objects read at most by one operation; a larger archive is reported as truncated. */
  limit: 10_000,
} as const;

export interface ArchiveListing {
  /** Oldest first. */
  readonly objects: readonly ArchivedObject[];
  /** The archive holds more than the limit: `objects` are the first ones S3 listed. */
  readonly truncated: boolean;
}

/** Lists the archive's objects, oldest first (at most `limit`). */
export async function listArchivedObjects(s3: S3Client, bucket: string, limit: number = ARCHIVE_DEFAULTS.limit): Promise<ArchiveListing> {
  const objects: ArchivedObject[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: ON_FAILURE_OBJECT_PREFIX, ContinuationToken: token }));
    for (const item of page.Contents ?? []) {
      if (item.Key !== undefined) objects.push({ bucket, key: item.Key, lastModified: (item.LastModified ?? new Date(0)).toISOString() });
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token !== undefined && objects.length < limit);
  objects.sort((a, b) => a.lastModified.localeCompare(b.lastModified) || a.key.localeCompare(b.key));
  return { objects: objects.slice(0, limit), truncated: token !== undefined || objects.length > limit };
}

/** Reads one object as an entry; a body that is not an on-failure record becomes an entry with its problem. */
export async function readArchivedEntry(s3: S3Client, object: ArchivedObject): Promise<ArchivedEntry> {
  const { Body } = await s3.send(new GetObjectCommand({ Bucket: object.bucket, Key: object.key }));
  return archivedEntryOf(object, (await Body?.transformToString('utf8')) ?? '');
}

/** Every object listed, read. */
export async function readArchive(s3: S3Client, bucket: string, limit?: number): Promise<{ readonly entries: ArchivedEntry[]; readonly truncated: boolean }> {
  const { objects, truncated } = await listArchivedObjects(s3, bucket, limit);
  const entries: ArchivedEntry[] = [];
  for (const object of objects) entries.push(await readArchivedEntry(s3, object));
  return { entries, truncated };
}

/**
 * Deletes an object once its records are back. In the versioned bucket this adds a delete
 * marker; the old version expires with the lifecycle rule.
 */
export async function deleteArchivedObject(s3: S3Client, object: ArchivedObject): Promise<void> {
  await s3.send(new DeleteObjectCommand({ Bucket: object.bucket, Key: object.key }));
}

/** Whether the bucket still holds the key (not deleted by a redrive, nor expired). */
export async function archiveHolds(s3: S3Client, bucket: string, key: string): Promise<boolean> {
  try {
    await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch (error) {
    const name = (error as { name?: string } | undefined)?.name;
    if (name === 'NotFound' || name === 'NoSuchKey') return false;
    throw error;
  }
}
