/**
 * What moto 5.2's CloudFormation leaves out of a deploy of this stack, as this test found it.
 * The test checks these in the template instead; docs/operations.md lists them for operators.
 */

/**
 * Resource types moto's CloudFormation does not create: it logs "No Moto CloudFormation support
 * for <type>", reports the stack CREATE_COMPLETE, and lists each such resource with empty ids.
 * (The bootstrap stack's AWS::S3::BucketPolicy is another.)
 */
export const NOT_CREATED_BY_MOTO: readonly string[] = ['AWS::CDK::Metadata', 'AWS::CloudWatch::Alarm', 'AWS::SNS::Subscription', 'AWS::SNS::TopicPolicy', 'AWS::SQS::QueuePolicy', 'AWS::Scheduler::Schedule'];

/**
 * Resource types that break a deploy on moto: the test deploys the example without them, onto a
 * cluster it makes through moto's RDS API (sql-cluster.ts; the context `sqlCluster`).
 * - `AWS::RDS::DBCluster`: "No Moto CloudFormation support" (moto 5.2 has no CloudFormation model
 *   for it; its RDS API has clusters).
 * - `AWS::RDS::DBInstance` of an Aurora cluster: moto's model drops `DBClusterIdentifier`, makes a
 *   stand-alone instance and looks up a default version for the engine, which it has none of for
 *   `aurora-postgresql` (`KeyError: 'aurora-postgresql'` in rds/models.py). `ExecuteChangeSet`
 *   answers 500 (`cdk deploy` still reports the stack complete), and from then on so does every
 *   `ListStackResources`: it tries again to create what is missing and fails on the instance again.
 * Before it reaches the instance, moto does create the new-cluster template's VPC, its isolated
 * subnets, the flow log to its log group, the cluster's security group and the DB subnet group
 * (seen deploying that template by hand); the test checks the instance, the subnets and the flow
 * log in the template.
 */
export const NOT_DEPLOYABLE_BY_MOTO: readonly string[] = ['AWS::RDS::DBCluster', 'AWS::RDS::DBInstance'];

/**
 * Custom resources: moto lists each `CREATE_COMPLETE` with a physical id, but what its provider
 * does never happens. moto invokes the provider function in Docker on a thread ("error running
 * docker" in its log, one per `Custom::AWS`) and would wait for the function's answer at its
 * `cfnresponse` URL, but `ExecuteChangeSet` (how `cdk deploy` creates a stack) marks the stack
 * complete without waiting. The SQL migrations' `ExecuteStatement` calls are checked in the
 * template and made against moto's Data API by the test itself.
 */
export const NOT_RUN_BY_MOTO: readonly string[] = ['Custom::AWS'];

/**
 * The Data API (rds-data) on moto 5.2: `ExecuteStatement` only, with no validation: it runs no
 * SQL and answers `{"records": []}` to any statement on any ARN (or what was queued at
 * `/moto-api/static/rds-data/statement-results`). `BeginTransaction`, `CommitTransaction`,
 * `RollbackTransaction` and `BatchExecuteStatement` answer 404: a consumer's transaction cannot
 * run on moto (local mode runs it on PostgreSQL, docs/local-mode.md).
 */
export const DATA_API_ON_MOTO = { answered: ['ExecuteStatement'], notFound: ['BeginTransaction', 'CommitTransaction', 'RollbackTransaction', 'BatchExecuteStatement'] } as const;

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
  // moto's RDS API (the cluster is made through it, see NOT_DEPLOYABLE_BY_MOTO): HttpEndpointEnabled
  // false, as moto enables the Data API only on a Serverless v1 cluster of a few old versions.
  'AWS::RDS::DBCluster': ['EnableHttpEndpoint'],
};

