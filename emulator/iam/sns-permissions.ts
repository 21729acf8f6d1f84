/**
 * SNS operations and the actions they need: `sns:Publish` on the topic (or the endpoint or phone
 * number published to, which AWS names as the resource: functionalone/serverless-iam-roles-per-function#106).
 * Publishing to a topic encrypted with a KMS key also needs `kms:GenerateDataKey` and
 * `kms:Decrypt` on that key, checked with the publisher's permissions (SNS Developer Guide,
 * "Key management": publishers need `kms:GenerateDataKey*` and `kms:Decrypt`). SNS makes those KMS
 * calls on the publisher's behalf, so their context says so: `aws:ViaAWSService` true (IAM User
 * Guide, "AWS global condition context keys"), `kms:ViaService` `sns.<region>.amazonaws.com` and
 * `kms:CallerAccount` the publisher's account (AWS KMS Developer Guide, "AWS KMS condition keys",
 * https://docs.aws.amazon.com/kms/latest/developerguide/conditions-kms.html).
 */
import { UnknownResourceError, UnsupportedOperationError } from './errors';
import type { PermissionLookups, RequestInput } from './request-input';
import { AwsService, type Permission } from './types';

const PUBLISH_OPERATIONS = ['Publish', 'PublishBatch'];

/** The permissions of an SNS request. */
export function snsPermissions(name: string, input: RequestInput, lookups: PermissionLookups): Permission[] {
  if (!PUBLISH_OPERATIONS.includes(name)) throw new UnsupportedOperationError(AwsService.SNS, name);
  const target = [input.TopicArn, input.TargetArn, input.PhoneNumber].find((value): value is string => typeof value === 'string' && value !== '');
  if (target === undefined) throw new UnknownResourceError(AwsService.SNS, name, 'the request has no TopicArn, TargetArn or PhoneNumber');
  const key = lookups.topicKeys?.get(target);
  const context = { 'aws:ViaAWSService': 'true', 'kms:ViaService': `sns.${lookups.region}.amazonaws.com`, 'kms:CallerAccount': lookups.accountId, 'kms:GrantIsForAWSResource': null };
  const kms = key === undefined ? [] : [{ action: 'kms:GenerateDataKey', resource: key, context }, { action: 'kms:Decrypt', resource: key, context }];
  return [{ action: 'sns:Publish', resource: target }, ...kms];
}
