/**
 * Failure archives (`onFailure: 's3'`) in local mode. A stream mapping whose on-failure
 * destination is a bucket writes each batch it gives up on to that bucket (fauxqs's S3), as
 * Lambda does: one object in Lambda's format, written under the function's execution role (the
 * put is signed as the function, and the gateway decides it against the role and the bucket's
 * policy). Then S3 announces it to EventBridge (when the bucket enables that), and each rule that
 * matches the bucket's "Object Created" events delivers the event to its queue; only rule targets
 * whose queue policy lets EventBridge send are wired (`fan-out.ts`).
 *
 * What is not emulated: S3's own checks beyond IAM (KMS, object ownership), EventBridge's
 * retries and event patterns beyond source, detail-type and bucket name.
 */
import { randomUUID } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION, type LocalClients } from '../engines';
import type { OnFailureArchive } from '../event-sources';
import { authorize, AwsService, functionPrincipal, requestKeys, type RolePolicies } from '../iam';
import { objectCreatedRules } from '../../operations/dlq/archive-topology';
import { tryResolveString, type ResolveContext } from '../../aws/cloudformation/intrinsics';
import type { Template } from '../../aws/cloudformation/template';
import { deliverEventBridgeEvent, type LocalRuleTarget } from './fan-out';
import type { LocalBucket } from './provision';

export interface ArchiveWriterOptions {
  readonly bucket: LocalBucket;
  readonly clients: Pick<LocalClients, 's3' | 'sqs'>;
  /** The rule targets that announce this bucket's objects (see {@link announcingTargets}). */
  readonly announceTo: readonly LocalRuleTarget[];
  /** The mapping's UUID (its `Ref`), which Lambda puts in each object's key. */
  readonly mappingUuid: string;
}

/** The mapping's archive: each object put, then announced. */
export function archiveWriter(options: ArchiveWriterOptions): OnFailureArchive {
  const { bucket, clients } = options;
  return {
    mappingUuid: options.mappingUuid,
    write: async (key, body) => {
      const put = await clients.s3.send(new PutObjectCommand({ Bucket: bucket.name, Key: key, Body: body, ContentType: 'application/json' }));
      if (!bucket.eventBridgeEnabled) return;
      const event = objectCreatedEvent(bucket.name, { key, size: Buffer.byteLength(body), etag: (put.ETag ?? '').replaceAll('"', ''), versionId: put.VersionId });
      for (const target of options.announceTo) await deliverEventBridgeEvent(clients.sqs, target, event);
    },
  };
}

/** The rule targets (already decided against their queue policies) whose rule matches the bucket's "Object Created" events. */
export function announcingTargets(template: Template, context: ResolveContext, ruleTargets: readonly LocalRuleTarget[], bucket: LocalBucket): LocalRuleTarget[] {
  const rules = new Set(objectCreatedRules(template, (value) => tryResolveString(value, context)).filter((rule) => rule.buckets.includes(bucket.name)).map((rule) => rule.ruleLogicalId));
  return ruleTargets.filter((target) => rules.has(target.ruleLogicalId));
}

/**
 * Refuses, at start, a mapping whose function's role may not put objects in the bucket: every
 * batch it gave up on would be lost. The check is IAM's, with the condition keys S3 sets.
 * @throws Error naming the function, the bucket and the missing permission
 */
export function assertMayArchive(policies: RolePolicies, functionLogicalId: string, functionName: string, bucket: LocalBucket): void {
  const principal = functionPrincipal(policies, functionLogicalId, { functionName, accountId: LOCAL_ACCOUNT_ID });
  const verdict = authorize(policies, {
    service: AwsService.S3,
    principal,
    permissions: [{ action: 's3:PutObject', resource: `${bucket.arn}/aws/lambda/*`, context: { 's3:ResourceAccount': LOCAL_ACCOUNT_ID } }],
    context: requestKeys({ region: LOCAL_REGION, time: new Date() }),
  });
  if (verdict.allowed) return;
  throw new Error(`${functionLogicalId}'s stream mapping sends failed batches to the bucket ${bucket.name}, but ${verdict.denial.message}: every batch it gives up on would be lost. Grant s3:PutObject on the bucket's objects (FailureArchive.destination() does)`);
}

export interface ObjectFacts {
  readonly key: string;
  readonly size: number;
  readonly etag: string;
  readonly versionId?: string;
}

/** S3's "Object Created" event as EventBridge delivers it (Amazon S3 User Guide, "EventBridge event message structure"). */
export function objectCreatedEvent(bucketName: string, object: ObjectFacts): Record<string, unknown> {
  const bucketArn = `arn:aws:s3:::${bucketName}`;
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Object Created',
    source: 'aws.s3',
    account: LOCAL_ACCOUNT_ID,
    time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: LOCAL_REGION,
    resources: [bucketArn],
    detail: {
      version: '0',
      bucket: { name: bucketName },
      object: { key: object.key, size: object.size, etag: object.etag, ...(object.versionId && { 'version-id': object.versionId }), sequencer: Date.now().toString(16).toUpperCase() },
      'request-id': randomUUID(),
      requester: LOCAL_ACCOUNT_ID,
      'source-ip-address': '127.0.0.1',
      reason: 'PutObject',
    },
  };
}
