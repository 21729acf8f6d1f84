import { Validations } from 'aws-cdk-lib';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';

/**
 * Lets a consumer's function publish to a topic encrypted with a customer-managed key (see
 * `addEncryptedTopic`), and records why cdk-nag's wildcard finding on that grant is acceptable.
 */
export function grantPublishToEncryptedTopic(topic: ITopic, fn: IFunction): void {
  topic.grantPublish(fn);
  // The consumer constructs always give the function a role of its own.
  Validations.of(fn.role as IRole).acknowledge({
    id: 'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
    reason:
      'Publishing to an SSE-KMS topic needs kms:GenerateDataKey* (granted by Topic.grantPublish, as ' +
      'the SNS documentation lists it) on the one key that encrypts the topic it publishes to.',
  });
}
