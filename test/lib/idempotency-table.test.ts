import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Key } from 'aws-cdk-lib/aws-kms';
import { IdempotencyTable } from '../../lib';
import { logicalId, testApp } from './support';

describe('IdempotencyTable', () => {
  const stack = new Stack(testApp(), 'Test');
  new IdempotencyTable(stack, 'Idempotency');
  const template = Template.fromStack(stack);

  test('keys dedup records on id and expires them through TTL on expiration', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      TimeToLiveSpecification: { AttributeName: 'expiration', Enabled: true },
    });
  });

  test('is on demand, recoverable to a point in time, and KMS-encrypted with aws/dynamodb', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      // SSEEnabled without a key: KMS with the AWS-managed key (not the AWS-owned default).
      SSESpecification: { SSEEnabled: true },
    });
  });

  test('is kept when it leaves the stack', () => {
    template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  test('uses a customer-managed key and removal policy when given', () => {
    const custom = new Stack(testApp(), 'Custom');
    const key = new Key(custom, 'Key', { enableKeyRotation: true });
    new IdempotencyTable(custom, 'Idempotency', { encryptionKey: key, removalPolicy: RemovalPolicy.DESTROY });
    const customTemplate = Template.fromStack(custom);
    customTemplate.hasResourceProperties('AWS::DynamoDB::Table', {
      SSESpecification: {
        SSEEnabled: true,
        SSEType: 'KMS',
        KMSMasterKeyId: { 'Fn::GetAtt': [logicalId(customTemplate, 'AWS::KMS::Key'), 'Arn'] },
      },
    });
    customTemplate.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Delete' });
  });
});
