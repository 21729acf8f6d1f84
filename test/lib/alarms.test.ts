import { Duration } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { DlqAlarm, IteratorAgeAlarm } from '../../lib';
import { logicalId, testStack } from './support';
import { heldMessagesAlarm } from '../helpers/alarms';

describe('DlqAlarm', () => {
  const { stack, alarmTopic } = testStack();
  const queue = new Queue(stack, 'Dlq');
  new DlqAlarm(stack, 'DlqAlarm', { queue, topic: alarmTopic });
  const template = Template.fromStack(stack);

  test('alarms on the first message held (visible or in flight), and says so again when the queue is empty', () => {
    template.resourceCountIs('AWS::CloudWatch::Alarm', 1);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      ...heldMessagesAlarm({ 'Fn::GetAtt': [logicalId(template, 'AWS::SQS::Queue'), 'QueueName'] }),
      AlarmActions: [{ Ref: logicalId(template, 'AWS::SNS::Topic') }],
      OKActions: [{ Ref: logicalId(template, 'AWS::SNS::Topic') }],
    });
  });

  test('counts the messages someone is reading: an inspect hides them, and they are still there', () => {
    const [alarm] = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarm?.Properties.MetricName).toBeUndefined();
    expect(JSON.stringify(alarm?.Properties.Metrics)).toContain('ApproximateNumberOfMessagesNotVisible');
  });
});

describe('IteratorAgeAlarm', () => {
  function synth(threshold?: Duration): Template {
    const { stack, alarmTopic } = testStack();
    const fn = new LambdaFunction(stack, 'Fn', {
      runtime: Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: Code.fromInline('exports.handler = async () => ({})'),
    });
    new IteratorAgeAlarm(stack, 'Lag', { function: fn, topic: alarmTopic, threshold });
    return Template.fromStack(stack);
  }

  test('alarms when the function is more than a minute behind its stream', () => {
    const template = synth();
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalId(template, 'AWS::Lambda::Function') } }],
      Statistic: 'Maximum',
      Period: 60,
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 60_000,
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: logicalId(template, 'AWS::SNS::Topic') }],
      OKActions: [{ Ref: logicalId(template, 'AWS::SNS::Topic') }],
    });
  });

  test('takes the threshold from its props, in milliseconds', () => {
    synth(Duration.minutes(10)).hasResourceProperties('AWS::CloudWatch::Alarm', { Threshold: 600_000 });
  });

  test.each([Duration.seconds(0), Duration.days(8)])('fails if the threshold is %s', (threshold) => {
    expect(() => synth(threshold)).toThrow('threshold must be 1 second..7 days');
  });
});
