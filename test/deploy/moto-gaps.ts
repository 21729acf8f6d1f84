/**
 * What moto 5.2's CloudFormation leaves out of a deploy of this stack, as this test found it.
 * The test checks these in the template instead; docs/operations.md lists them for operators.
 */

/**
 * Resource types moto's CloudFormation does not create: it logs "No Moto CloudFormation support
 * for <type>", reports the stack CREATE_COMPLETE, and lists each such resource with empty ids.
 * (The bootstrap stack's AWS::S3::BucketPolicy is another.)
 */
export const NOT_CREATED_BY_MOTO: readonly string[] = ['AWS::CDK::Metadata', 'AWS::CloudWatch::Alarm', 'AWS::SNS::Subscription', 'AWS::SNS::TopicPolicy', 'AWS::SQS::QueuePolicy'];

/** Template properties moto's CloudFormation does not apply: the deployed resource lacks them. */
export const NOT_APPLIED_BY_MOTO: Readonly<Record<string, readonly string[]>> = {
  // GetQueueAttributes has no RedriveAllowPolicy.
  'AWS::SQS::Queue': ['RedriveAllowPolicy'],
  // DescribeTimeToLive says DISABLED, point-in-time recovery is DISABLED, DescribeTable has no SSEDescription.
  'AWS::DynamoDB::Table': ['TimeToLiveSpecification', 'PointInTimeRecoverySpecification', 'SSESpecification'],
  // EncryptionType NONE.
  'AWS::Kinesis::Stream': ['StreamEncryption'],
  // Architectures x86_64 whatever the template says; no LoggingConfig.
  'AWS::Lambda::Function': ['Architectures', 'LoggingConfig'],
};

