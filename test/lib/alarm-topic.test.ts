import { Match, Template } from 'aws-cdk-lib/assertions';
import { Stack } from 'aws-cdk-lib';
import { AlarmTopic, type AlarmTopicProps } from '../../lib';
import { logicalId, testApp } from './support';

function synth(props?: AlarmTopicProps): Template {
  const stack = new Stack(testApp(), 'Test');
  new AlarmTopic(stack, 'Alarms', props);
  return Template.fromStack(stack);
}

describe('AlarmTopic', () => {
  const template = synth();
  const keyId = logicalId(template, 'AWS::KMS::Key');
  const topicId = logicalId(template, 'AWS::SNS::Topic');

  test('encrypts the topic with a customer-managed key that rotates', () => {
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] } });
  });

  /** What the topic policy and the key policy both require of CloudWatch: an alarm of this account in this region. */
  const alarmsOfThisAccount = {
    ArnLike: { 'aws:SourceArn': { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':cloudwatch:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':alarm:*']] } },
    StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
  };

  test('lets alarms of this account use the key, as the topic policy does', () => {
    template.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          {
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
            Resource: '*',
            Condition: alarmsOfThisAccount,
          },
        ]),
      },
    });
  });

  test('no statement of the key policy admits CloudWatch without the source conditions', () => {
    const [key] = Object.values(template.findResources('AWS::KMS::Key')) as { Properties: { KeyPolicy: { Statement: { Principal?: unknown; Condition?: unknown }[] } } }[];
    const cloudwatch = key?.Properties.KeyPolicy.Statement.filter((statement) => JSON.stringify(statement.Principal ?? {}).includes('cloudwatch.amazonaws.com')) ?? [];
    expect(cloudwatch).toHaveLength(1);
    expect(cloudwatch.map((statement) => statement.Condition)).toEqual([alarmsOfThisAccount]);
  });

  test('refuses plain-HTTP publishing, and lets alarms of this account publish', () => {
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topicId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Condition: alarmsOfThisAccount,
          }),
        ]),
      },
    });
  });

  test('has no subscription without an address', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  test('subscribes an address by email', () => {
    synth({ email: 'oncall@example.com' }).hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
    });
  });

  test.each(['', 'oncall', 'oncall@example', '@example.com', 'on call@example.com', 'a@b@example.com'])(
    'fails if the email is %p',
    (email) => {
      expect(() => synth({ email })).toThrow(`email must match`);
      expect(() => synth({ email })).toThrow(`(given "${email}")`);
    },
  );
});
