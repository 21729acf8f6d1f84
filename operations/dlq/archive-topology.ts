/**
 * Which queue stands for which failure archive (`onFailure: 's3'`), read from the template: an
 * event source mapping whose on-failure destination is a bucket, and the EventBridge rule whose
 * pattern names that bucket and whose target is the index queue. Pure: the caller resolves the
 * template's values (against AWS's physical ids, or against local mode's resources).
 */
import { ResourceType, resourcesOfType, type Template } from '../../aws/cloudformation/template';

/** A failure archive and what it is linked to. */
export interface ArchiveLink {
  readonly bucket: string;
  /** The stream whose mapping writes to it. */
  readonly streamArn: string;
  /** The queue each of its objects is announced to. */
  readonly indexQueueArn: string;
}

/** Resolves a template value to a string, or undefined when it cannot. */
export type TryResolve = (value: unknown) => string | undefined;

/** Every mapping's archive that a rule announces to a queue; an archive without one is left out. */
export function archiveLinks(template: Template, resolve: TryResolve): ArchiveLink[] {
  const announced = announcementTargets(template, resolve);
  return resourcesOfType(template, ResourceType.EVENT_SOURCE_MAPPING).flatMap(({ properties }) => {
    const destination = resolve((properties.DestinationConfig as { OnFailure?: { Destination?: unknown } } | undefined)?.OnFailure?.Destination);
    const bucket = destination === undefined ? undefined : bucketNameOfArn(destination);
    const streamArn = resolve(properties.EventSourceArn);
    if (bucket === undefined || streamArn === undefined) return [];
    return (announced.get(bucket) ?? []).map((indexQueueArn) => ({ bucket, streamArn, indexQueueArn }));
  });
}

/** `arn:<partition>:s3:::<bucket>` -> `<bucket>`; undefined for any other ARN. */
export function bucketNameOfArn(arn: string): string | undefined {
  return /^arn:[^:]+:s3:::([^/]+)$/.exec(arn)?.[1];
}

/** An EventBridge rule that matches S3's "Object Created" events of some buckets, and its queue targets. */
export interface ObjectCreatedRule {
  readonly ruleLogicalId: string;
  /** The bucket names its pattern lists (`detail.bucket.name`). */
  readonly buckets: readonly string[];
  readonly queueArns: readonly string[];
}

/** The template's rules on S3 "Object Created" events that name their buckets. */
export function objectCreatedRules(template: Template, resolve: TryResolve): ObjectCreatedRule[] {
  return resourcesOfType(template, ResourceType.RULE).flatMap((rule) => {
    const pattern = rule.properties.EventPattern as { source?: unknown; 'detail-type'?: unknown; detail?: { bucket?: { name?: unknown } } } | undefined;
    const detailTypes = listOf(pattern?.['detail-type']);
    if (!listOf(pattern?.source).includes('aws.s3') || (detailTypes.length > 0 && !detailTypes.includes('Object Created'))) return [];
    const buckets = listOf(pattern?.detail?.bucket?.name).flatMap((name) => resolve(name) ?? []);
    const queueArns = listOf(rule.properties.Targets).flatMap((target) => {
      const arn = resolve((target as { Arn?: unknown }).Arn);
      return arn?.includes(':sqs:') ? [arn] : [];
    });
    return buckets.length > 0 ? [{ ruleLogicalId: rule.logicalId, buckets, queueArns }] : [];
  });
}

/** Bucket name -> the ARNs of the queues that rules announce its objects to. */
function announcementTargets(template: Template, resolve: TryResolve): Map<string, string[]> {
  const targets = new Map<string, string[]>();
  for (const rule of objectCreatedRules(template, resolve)) {
    for (const bucket of rule.buckets) targets.set(bucket, [...(targets.get(bucket) ?? []), ...rule.queueArns]);
  }
  return targets;
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
