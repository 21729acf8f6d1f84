/**
 * S3 operations and the actions they need (Amazon S3 User Guide, "Required permissions for Amazon
 * S3 API operations", https://docs.aws.amazon.com/AmazonS3/latest/userguide/using-with-s3-policy-actions.html;
 * Service Authorization Reference, "Actions, resources, and condition keys for Amazon S3"): bucket
 * operations on the bucket's ARN, object operations on `arn:aws:s3:::<bucket>/<key>`; a request
 * that names a version needs the `...Version` action; `HeadBucket` and the listings need
 * `s3:ListBucket`; the multipart steps but the abort need `s3:PutObject`; `CopyObject` needs
 * `s3:GetObject` on its source too; `DeleteObjects` needs `s3:DeleteObject` on each object it
 * names; a put that sets an ACL or tags needs `s3:PutObjectAcl` or `s3:PutObjectTagging` besides.
 * Each permission carries the request's S3 condition keys and `s3:ResourceAccount` (local buckets
 * are the account's).
 */
import { UnknownResourceError, UnsupportedOperationError } from './errors';
import type { PermissionLookups, RequestInput } from './request-input';
import { AwsService, type ConditionValues, type Permission } from './types';

/** An S3 request as the contract layer reads it off the wire (emulator/gateway/s3-request.ts). */
export interface S3RequestInput {
  readonly Bucket?: string;
  readonly Key?: string;
  /** The `versionId` the request names. */
  readonly VersionId?: string;
  /** CopyObject's source, `x-amz-copy-source` decoded: `<bucket>/<key>`, with its `versionId`. */
  readonly CopySource?: { readonly Bucket: string; readonly Key: string; readonly VersionId?: string };
  /** The objects a DeleteObjects body names. */
  readonly Objects?: readonly { readonly Key: string; readonly VersionId?: string }[];
  /** A put that sets an ACL (`x-amz-acl`, `x-amz-grant-*`). */
  readonly SetsAcl?: boolean;
  /** A put that sets tags (`x-amz-tagging`). */
  readonly SetsTagging?: boolean;
  /** The S3 condition keys the request sets, or leaves out (`null`). */
  readonly ConditionKeys?: ConditionValues;
}

/** The bucket operations, by the action each needs on the bucket. */
const BUCKET_ACTIONS: Readonly<Record<string, string>> = {
  CreateBucket: 's3:CreateBucket',
  DeleteBucket: 's3:DeleteBucket',
  HeadBucket: 's3:ListBucket',
  ListObjects: 's3:ListBucket',
  ListObjectsV2: 's3:ListBucket',
  PutBucketVersioning: 's3:PutBucketVersioning',
};

/** Object operations by the action each needs on the object, and the action when it names a version. */
const OBJECT_ACTIONS: Readonly<Record<string, readonly [action: string, versioned: string]>> = {
  UploadPart: ['s3:PutObject', 's3:PutObject'],
  CreateMultipartUpload: ['s3:PutObject', 's3:PutObject'],
  CompleteMultipartUpload: ['s3:PutObject', 's3:PutObject'],
  AbortMultipartUpload: ['s3:AbortMultipartUpload', 's3:AbortMultipartUpload'],
  GetObject: ['s3:GetObject', 's3:GetObjectVersion'],
  HeadObject: ['s3:GetObject', 's3:GetObjectVersion'],
  DeleteObject: ['s3:DeleteObject', 's3:DeleteObjectVersion'],
};

/** The operations with permissions of their own shape. */
const OTHER_OPERATIONS = ['ListBuckets', 'PutObject', 'CopyObject', 'DeleteObjects'];

/** The permissions of an S3 request. */
export function s3Permissions(name: string, input: RequestInput, lookups: PermissionLookups): Permission[] {
  if (BUCKET_ACTIONS[name] === undefined && OBJECT_ACTIONS[name] === undefined && !OTHER_OPERATIONS.includes(name)) throw new UnsupportedOperationError(AwsService.S3, name);
  const request = input as S3RequestInput;
  const context: ConditionValues = { 's3:ResourceAccount': lookups.accountId, ...request.ConditionKeys };
  return permissionsOf(name, request, lookups.partition ?? 'aws').map((permission) => ({ ...permission, context }));
}

function permissionsOf(name: string, request: S3RequestInput, partition: string): Permission[] {
  const bucketArn = (bucket: string): string => `arn:${partition}:s3:::${bucket}`;
  const objectArn = (bucket: string, key: string): string => `${bucketArn(bucket)}/${key}`;
  if (name === 'ListBuckets') return [{ action: 's3:ListAllMyBuckets', resource: '*' }];
  const bucket = required(request.Bucket, name, 'names no bucket');
  const bucketAction = BUCKET_ACTIONS[name];
  if (bucketAction !== undefined) return [{ action: bucketAction, resource: bucketArn(bucket) }];
  if (name === 'DeleteObjects') return deletions(request, name).map((object) => ({ action: versioned(['s3:DeleteObject', 's3:DeleteObjectVersion'], object.VersionId), resource: objectArn(bucket, object.Key) }));
  const object = objectArn(bucket, required(request.Key, name, 'names no object key'));
  if (name === 'PutObject') return puts(object, request);
  if (name === 'CopyObject') return [...puts(object, request), copySource(request, name, objectArn)];
  return [{ action: versioned(OBJECT_ACTIONS[name], request.VersionId), resource: object }];
}

/** A put, and the ACL and tagging permissions its headers add. */
function puts(object: string, request: S3RequestInput): Permission[] {
  return [
    { action: 's3:PutObject', resource: object },
    ...(request.SetsAcl ? [{ action: 's3:PutObjectAcl', resource: object }] : []),
    ...(request.SetsTagging ? [{ action: 's3:PutObjectTagging', resource: object }] : []),
  ];
}

function copySource(request: S3RequestInput, name: string, objectArn: (bucket: string, key: string) => string): Permission {
  const source = request.CopySource;
  if (source === undefined) throw new UnknownResourceError(AwsService.S3, name, 'the request names no copy source');
  return { action: versioned(['s3:GetObject', 's3:GetObjectVersion'], source.VersionId), resource: objectArn(source.Bucket, source.Key) };
}

function deletions(request: S3RequestInput, name: string): readonly { readonly Key: string; readonly VersionId?: string }[] {
  const objects = request.Objects ?? [];
  if (objects.length === 0) throw new UnknownResourceError(AwsService.S3, name, 'the request names no object to delete');
  return objects;
}

function versioned([action, versionAction]: readonly [string, string], versionId: string | undefined): string {
  return versionId === undefined ? action : versionAction;
}

function required(value: string | undefined, operation: string, what: string): string {
  if (value !== undefined && value !== '') return value;
  throw new UnknownResourceError(AwsService.S3, operation, `the request ${what}`);
}
