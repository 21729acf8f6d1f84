/**
 * The resource-based policies of the template: SQS queue policies (`AWS::SQS::QueuePolicy`), SNS
 * topic policies (`AWS::SNS::TopicPolicy`), S3 bucket policies (`AWS::S3::BucketPolicy`, which
 * cover the bucket and its objects) and KMS key policies (`KeyPolicy` of `AWS::KMS::Key`), by the
 * ARN of the resource they protect; and the key of each topic encrypted with one. Several policy
 * resources for one queue or topic are merged (CloudFormation would keep the last one applied;
 * CDK writes one).
 */
import { resourcesOfType, type Template } from '../../aws/cloudformation/template';
import { queueArnFromUrl, type ArnScope } from './arns';
import { PolicyDocumentError } from './errors';
import { compilePolicyDocument } from './policy-document';
import type { CompiledStatement } from './statement';
import { getAtt, listOf, refTarget, resolveString } from './template-refs';
import type { CompileNote, Resolve } from './types';

/** The kinds of resource-based policy the evaluator reads. */
export const ResourcePolicyKind = { QUEUE: 'sqs-queue', TOPIC: 'sns-topic', BUCKET: 's3-bucket', KEY: 'kms-key' } as const;
export type ResourcePolicyKind = (typeof ResourcePolicyKind)[keyof typeof ResourcePolicyKind];

/** The resource-based policy of one resource. */
export interface ResourcePolicy {
  readonly kind: ResourcePolicyKind;
  readonly resourceArn: string;
  readonly statements: readonly CompiledStatement[];
}

/** A key policy's default when the template gives none: the account, and so IAM, decides (AWS KMS, "Default key policy"). */
const DEFAULT_KEY_POLICY = {
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Principal: { AWS: { 'Fn::Sub': 'arn:${AWS::Partition}:iam::${AWS::AccountId}:root' } }, Action: 'kms:*', Resource: '*' }],
};

interface Compilation {
  readonly template: Template;
  readonly resolve: Resolve;
  readonly notes: CompileNote[];
}

/** Every resource-based policy of the template, by resource ARN. */
export function compileResourcePolicies(template: Template, resolve: Resolve, notes: CompileNote[]): Map<string, ResourcePolicy> {
  const compilation: Compilation = { template, resolve, notes };
  const policies = new Map<string, ResourcePolicy>();
  for (const policy of [...queuePolicies(compilation), ...topicPolicies(compilation), ...bucketPolicies(compilation), ...keyPolicies(compilation)]) {
    const statements = [...(policies.get(policy.resourceArn)?.statements ?? []), ...policy.statements];
    policies.set(policy.resourceArn, { ...policy, statements });
  }
  return policies;
}

function queuePolicies(compilation: Compilation): ResourcePolicy[] {
  return resourcesOfType(compilation.template, 'AWS::SQS::QueuePolicy').flatMap((policy) => {
    const statements = compile(policy.logicalId, policy.properties.PolicyDocument, compilation);
    return listOf(policy.properties.Queues).map((queue) => ({ kind: ResourcePolicyKind.QUEUE, resourceArn: queueArnOf(queue, policy.logicalId, compilation), statements }));
  });
}

function topicPolicies(compilation: Compilation): ResourcePolicy[] {
  return resourcesOfType(compilation.template, 'AWS::SNS::TopicPolicy').flatMap((policy) => {
    const statements = compile(policy.logicalId, policy.properties.PolicyDocument, compilation);
    return listOf(policy.properties.Topics).map((topic) => ({ kind: ResourcePolicyKind.TOPIC, resourceArn: resolveString(topic, policy.logicalId, compilation.resolve), statements }));
  });
}

function bucketPolicies(compilation: Compilation): ResourcePolicy[] {
  return resourcesOfType(compilation.template, 'AWS::S3::BucketPolicy').map((policy) => {
    const bucket = resolveString(policy.properties.Bucket, policy.logicalId, compilation.resolve);
    const { partition } = scopeOf(compilation.resolve, policy.logicalId);
    return { kind: ResourcePolicyKind.BUCKET, resourceArn: `arn:${partition}:s3:::${bucket}`, statements: compile(policy.logicalId, policy.properties.PolicyDocument, compilation) };
  });
}

/**
 * The ARN a resource-based policy is kept under for a permission's resource: an S3 object's
 * (`arn:aws:s3:::bucket/key`) is its bucket's, whose policy covers it; any other is itself.
 */
export function policyResourceOf(resource: string): string {
  const object = /^(arn:[^:]+:s3:::[^/]+)\//.exec(resource);
  return object?.[1] ?? resource;
}

function keyPolicies(compilation: Compilation): ResourcePolicy[] {
  return resourcesOfType(compilation.template, 'AWS::KMS::Key').map((key) => ({
    kind: ResourcePolicyKind.KEY,
    resourceArn: resolveString(getAtt(key.logicalId, 'Arn'), key.logicalId, compilation.resolve),
    statements: compile(key.logicalId, key.properties.KeyPolicy ?? DEFAULT_KEY_POLICY, compilation),
  }));
}

function compile(policy: string, document: unknown, compilation: Compilation): CompiledStatement[] {
  return compilePolicyDocument(document, { policy, resolve: compilation.resolve, resourceBased: true, notes: compilation.notes });
}

/** A queue of `Queues`: a `Ref` to a template queue is read through its `Arn`, a URL is parsed. */
function queueArnOf(entry: unknown, policy: string, compilation: Compilation): string {
  const queue = refTarget(entry);
  if (queue !== undefined && compilation.template.Resources[queue]?.Type === 'AWS::SQS::Queue') return resolveString(getAtt(queue, 'Arn'), policy, compilation.resolve);
  const url = resolveString(entry, policy, compilation.resolve);
  const arn = queueArnFromUrl(scopeOf(compilation.resolve, policy), url);
  if (arn === undefined) throw new PolicyDocumentError(policy, `${url} is not a queue URL`);
  return arn;
}

/** The stack's partition, region and account, as the resolver knows the pseudo parameters. */
export function scopeOf(resolve: Resolve, policy: string): ArnScope {
  return {
    partition: resolveString({ Ref: 'AWS::Partition' }, policy, resolve),
    region: resolveString({ Ref: 'AWS::Region' }, policy, resolve),
    accountId: resolveString({ Ref: 'AWS::AccountId' }, policy, resolve),
  };
}

/** The KMS key of each topic with `KmsMasterKeyId`, by topic ARN (a key `Ref` is read as its ARN). */
export function topicKeys(template: Template, resolve: Resolve): Map<string, string> {
  const keys = new Map<string, string>();
  for (const topic of resourcesOfType(template, 'AWS::SNS::Topic')) {
    const keyId = topic.properties.KmsMasterKeyId;
    if (keyId === undefined) continue;
    const keyRef = refTarget(keyId);
    const key = resolveString(keyRef === undefined ? keyId : getAtt(keyRef, 'Arn'), topic.logicalId, resolve);
    keys.set(resolveString({ Ref: topic.logicalId }, topic.logicalId, resolve), key);
  }
  return keys;
}

/**
 * The customer-managed KMS key of each secret, by secret ARN: the master user secret that RDS
 * manages for a cluster (`MasterUserSecret.KmsKeyId`), and each `AWS::SecretsManager::Secret` with
 * a `KmsKeyId`. A secret under Secrets Manager's own key is left out: its reader needs no KMS grant.
 */
export function secretKeys(template: Template, resolve: Resolve): Map<string, string> {
  const keys = new Map<string, string>();
  const keyArn = (keyId: unknown, at: string) => {
    const keyRef = refTarget(keyId);
    return resolveString(keyRef === undefined ? keyId : getAtt(keyRef, 'Arn'), at, resolve);
  };
  for (const cluster of resourcesOfType(template, 'AWS::RDS::DBCluster')) {
    const keyId = (cluster.properties.MasterUserSecret as { KmsKeyId?: unknown } | undefined)?.KmsKeyId;
    if (cluster.properties.ManageMasterUserPassword !== true || keyId === undefined) continue;
    keys.set(resolveString(getAtt(cluster.logicalId, 'MasterUserSecret.SecretArn'), cluster.logicalId, resolve), keyArn(keyId, cluster.logicalId));
  }
  for (const secret of resourcesOfType(template, 'AWS::SecretsManager::Secret')) {
    if (secret.properties.KmsKeyId === undefined) continue;
    keys.set(resolveString({ Ref: secret.logicalId }, secret.logicalId, resolve), keyArn(secret.properties.KmsKeyId, secret.logicalId));
  }
  return keys;
}
