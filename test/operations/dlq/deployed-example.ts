/**
 * The synthesized example stack as a deployed stack reads back from CloudFormation and the
 * services: physical ids as CloudFormation names them, each queue's redrive policy as SQS reports
 * it, and no outputs. No AWS call is made.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { EventPipelineStack } from '../../../example/event-pipeline-stack';
import type { DeployedQueue, DeployedStack } from '../../../operations/dlq';
import type { Template as CfnTemplate } from '../../../aws/cloudformation/template';
import { testApp } from '../../lib/support';

export const ACCOUNT = '123456789012';
export const REGION = 'eu-west-1';

/** The example stack as deployed in `partition`, with its queue URLs on `suffix`. */
export function deployed(partition = 'aws', suffix = 'amazonaws.com'): DeployedStack {
  const template = Template.fromStack(new EventPipelineStack(testApp(), 'EffectivelyOnce')).toJSON() as CfnTemplate;
  const resources = Object.entries(template.Resources);
  const physicalIds = Object.fromEntries(resources.map(([logicalId, resource]) => [logicalId, physicalId(logicalId, resource.Type, suffix)]));
  const arn = (service: string, resource: string) => `arn:${partition}:${service}:${REGION}:${ACCOUNT}:${resource}`;
  const queues = resources.filter(([, resource]) => resource.Type === 'AWS::SQS::Queue').map(([logicalId]): DeployedQueue => ({ logicalId, url: physicalIds[logicalId] ?? '', name: nameOf(logicalId), arn: arn('sqs', nameOf(logicalId)) }));
  const withRedrive = queues.map((queue) => ({ ...queue, deadLetterTargetArn: redriveTarget(template, queue.logicalId, queues) }));
  const ofType = (type: string) => resources.filter(([, resource]) => resource.Type === type).map(([logicalId]) => logicalId);
  return {
    stackName: 'EffectivelyOnce',
    stackId: arn('cloudformation', 'stack/EffectivelyOnce/0f0e'),
    outputs: {},
    physicalIds,
    queues: withRedrive,
    streams: ofType('AWS::Kinesis::Stream').map((logicalId) => ({ logicalId, name: nameOf(logicalId), arn: arn('kinesis', `stream/${nameOf(logicalId)}`), retentionHours: 24 })),
    tables: ofType('AWS::DynamoDB::Table').map((logicalId) => ({ logicalId, name: nameOf(logicalId), arn: arn('dynamodb', `table/${nameOf(logicalId)}`), streamArn: logicalId.startsWith('OrdersTable') ? arn('dynamodb', `table/${nameOf(logicalId)}/stream/2026-11-30T00:00:00.000`) : undefined })),
    template,
  };
}

const nameOf = (logicalId: string) => `EffectivelyOnce-${logicalId}-X1Y2`;

function physicalId(logicalId: string, type: string, suffix: string): string {
  return type === 'AWS::SQS::Queue' ? `https://sqs.${REGION}.${suffix}/${ACCOUNT}/${nameOf(logicalId)}` : nameOf(logicalId);
}

/** What SQS reports as the queue's `RedrivePolicy.deadLetterTargetArn` once deployed. */
function redriveTarget(template: CfnTemplate, logicalId: string, queues: readonly DeployedQueue[]): string | undefined {
  const policy = template.Resources[logicalId]?.Properties?.RedrivePolicy as { deadLetterTargetArn?: { 'Fn::GetAtt'?: [string, string] } } | undefined;
  const target = policy?.deadLetterTargetArn?.['Fn::GetAtt']?.[0];
  return queues.find((queue) => queue.logicalId === target)?.arn;
}
