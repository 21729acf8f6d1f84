/**
 * Stream consumers with `onFailure: 's3'`: the mapping's on-failure destination is a FailureArchive
 * bucket (KMS-encrypted, TLS only, private, versioned, expiring), each object announced through
 * EventBridge to an index queue whose depth alarm notifies on ALARM and OK; the function may only
 * put objects and list the bucket. cdk-nag and the Control Tower controls find nothing unreviewed
 * in it.
 */
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DLQ_RETENTION, DynamoStreamConsumer, KinesisConsumer, type OnFailureDestination } from '../../lib';
import { FIXTURE_HANDLER, grantedActions, logicalId, testStack } from './support';
import { heldMessagesAlarm } from '../helpers/alarms';

function archivedKinesisConsumer(onFailure: { onFailure?: OnFailureDestination } = { onFailure: 's3' }) {
  const { stack, alarmTopic } = testStack();
  const consumer = new KinesisConsumer(stack, 'Clicks', { consumerName: 'click-counter', entry: FIXTURE_HANDLER, alarmTopic, ...onFailure });
  return { stack, consumer, template: Template.fromStack(stack) };
}

describe("KinesisConsumer with onFailure: 's3'", () => {
  const { stack, consumer, template } = archivedKinesisConsumer();
  const bucket = logicalId(template, 'AWS::S3::Bucket', 'ClicksFailureArchiveBucket');
  const index = logicalId(template, 'AWS::SQS::Queue', 'ClicksFailureArchiveDlq');

  test('sends the batches it gives up on to the archive bucket, not to the DLQ', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [bucket, 'Arn'] } } }, BisectBatchOnFunctionError: true });
    expect(consumer.failureArchive?.bucket.node.path).toBe('Test/Clicks/FailureArchive/Bucket');
  });

  test('the bucket is KMS-encrypted, private, without ACLs, versioned, and keeps objects for the DLQ retention', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      VersioningConfiguration: { Status: 'Enabled' },
      LifecycleConfiguration: { Rules: [Match.objectLike({ ExpirationInDays: DLQ_RETENTION.toDays(), NoncurrentVersionExpiration: { NoncurrentDays: 1 }, Status: 'Enabled' })] },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
    });
  });

  test('announces each object to the index queue through EventBridge, which sends no test event to alarm on', () => {
    const resource = template.toJSON().Resources[bucket];
    expect(resource.Properties.NotificationConfiguration).toEqual({ EventBridgeConfiguration: { EventBridgeEnabled: true } });
    const rules = template.findResources('AWS::Events::Rule');
    expect(Object.keys(rules)).toHaveLength(1);
    const [[rule, { Properties: properties }]] = Object.entries(rules);
    expect(properties.EventPattern).toEqual({ source: ['aws.s3'], 'detail-type': ['Object Created'], detail: { bucket: { name: [{ Ref: bucket }] } } });
    expect(properties.Targets).toEqual([expect.objectContaining({ Arn: { 'Fn::GetAtt': [index, 'Arn'] } })]);
    expect(consumer.failureArchive?.announcements.node.path).toBe('Test/Clicks/FailureArchive/ObjectCreated');
    // Only this rule may send to the index queue; S3 itself may not.
    const policy = logicalId(template, 'AWS::SQS::QueuePolicy', 'ClicksFailureArchiveDlqPolicy');
    const statements = template.toJSON().Resources[policy].Properties.PolicyDocument.Statement as { Effect: string; Principal: unknown; Action: unknown; Condition?: unknown }[];
    const allowed = statements.filter((statement) => statement.Effect === 'Allow');
    expect(allowed).toEqual([
      expect.objectContaining({
        Principal: { Service: 'events.amazonaws.com' },
        Action: expect.arrayContaining(['sqs:SendMessage']),
        Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [rule, 'Arn'] } } },
      }),
    ]);
    expect(JSON.stringify(template.findResources('AWS::SQS::QueuePolicy'))).not.toContain('s3.amazonaws.com');
  });

  test('the mapping writes to the bucket only once the rule and the permission to send exist', () => {
    const mapping = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'))[0];
    expect(mapping.DependsOn).toEqual(expect.arrayContaining([
      logicalId(template, 'AWS::Events::Rule', 'ClicksFailureArchiveObjectCreated'),
      logicalId(template, 'AWS::SQS::QueuePolicy', 'ClicksFailureArchiveDlqPolicy'),
    ]));
  });

  test("brings no custom resource, and no function but the consumer's own", () => {
    template.resourceCountIs('Custom::S3BucketNotifications', 0);
    expect(Object.keys(template.findResources('AWS::Lambda::Function'))).toEqual([logicalId(template, 'AWS::Lambda::Function', 'ClicksFunction')]);
  });

  test('alarms on the index queue holding anything, notifying on ALARM and on OK', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      ...heldMessagesAlarm({ 'Fn::GetAtt': [index, 'QueueName'] }),
      AlarmActions: [Match.anyValue()],
      OKActions: [Match.anyValue()],
    });
  });

  test('the function may put objects in the bucket and list it, and read or delete nothing there', () => {
    const granted = grantedActions(template, 's3');
    expect(granted[bucket]).toEqual(['s3:ListBucket']);
    const onObjects = Object.entries(granted).filter(([resource]) => resource !== bucket);
    expect(onObjects).toEqual([[expect.stringMatching(new RegExp(`${bucket}.*/\\*`)), ['s3:PutObject']]]);
    // Only a bucket of this account: a deleted bucket's name taken by another account gets nothing.
    const s3Statements = Object.values(template.findResources('AWS::IAM::Policy'))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement as { Action: string; Condition?: unknown }[])
      .filter((statement) => String(statement.Action).startsWith('s3:'));
    expect(s3Statements).toHaveLength(2);
    for (const statement of s3Statements) expect(statement.Condition).toEqual({ StringEquals: { 's3:ResourceAccount': { Ref: 'AWS::AccountId' } } });
  });

  test("cdk-nag finds nothing unacknowledged in the consumer (the test's plain alarm topic aside)", () => {
    const report = new AwsSolutionsChecks(stack.node.root).validateScope(stack);
    const findings = report.violations.flatMap((violation) => violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.constructPath}`));
    expect(findings.filter((finding) => finding.includes(' at Test/Clicks/'))).toEqual([]);
  });
});

describe('onFailure', () => {
  test("defaults to the DLQ: no bucket, the DLQ is the mapping's destination", () => {
    const { template } = archivedKinesisConsumer({});
    template.resourceCountIs('AWS::S3::Bucket', 0);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [logicalId(template, 'AWS::SQS::Queue', 'ClicksDlq'), 'Arn'] } } } });
  });

  test('refuses anything but sqs or s3', () => {
    expect(() => archivedKinesisConsumer({ onFailure: 'sns' as OnFailureDestination })).toThrow('onFailure must be one of sqs, s3 (given "sns")');
  });

  test('a DynamoDB stream consumer takes it too', () => {
    const { stack, alarmTopic } = testStack();
    const table = new Table(stack, 'Orders', { partitionKey: { name: 'pk', type: AttributeType.STRING }, stream: StreamViewType.NEW_AND_OLD_IMAGES });
    new DynamoStreamConsumer(stack, 'Notifier', { consumerName: 'notifier', entry: FIXTURE_HANDLER, alarmTopic, table, onFailure: 's3' });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [logicalId(template, 'AWS::S3::Bucket', 'NotifierFailureArchiveBucket'), 'Arn'] } } } });
  });
});
