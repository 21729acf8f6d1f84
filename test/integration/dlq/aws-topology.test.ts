/**
 * The DLQs of a deployed stack, read from what CloudFormation returns: the synthesized example
 * stack's template, with physical ids as CloudFormation would name them. No AWS call is made.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { EventPipelineStack } from '../../../lib/event-pipeline-stack';
import { deployedTopology, findDlq, type DeployedStack } from '../../../local/dlq';
import type { Template as CfnTemplate } from '../../../local/stack/template';
import { testApp } from '../../infra/support';

const ACCOUNT = '123456789012';
const REGION = 'eu-west-1';

function deployed(): DeployedStack {
  const template = Template.fromStack(new EventPipelineStack(testApp(), 'EffectivelyOnce')).toJSON() as CfnTemplate;
  const physicalIds = Object.fromEntries(Object.entries(template.Resources).map(([logicalId, resource]) => [logicalId, physicalId(logicalId, resource.Type)]));
  const ordersTable = physicalIds[Object.keys(template.Resources).find((id) => id.startsWith('OrdersTable')) ?? ''] ?? '';
  return {
    stackName: 'EffectivelyOnce',
    stackId: `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/EffectivelyOnce/0f0e`,
    outputs: { PageViewCounterDlqUrl: physicalIds[Object.keys(template.Resources).find((id) => id.startsWith('PageViewCounterDlq')) ?? ''] ?? '' },
    template,
    physicalIds,
    tableStreamArns: { [ordersTable]: `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${ordersTable}/stream/2026-11-30T00:00:00.000` },
  };
}

function physicalId(logicalId: string, type: string): string {
  const name = `EffectivelyOnce-${logicalId}-X1Y2`;
  return type === 'AWS::SQS::Queue' ? `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${name}` : name;
}

test('every DLQ of the example stack is found with its role and source', () => {
  const stack = deployed();
  const topology = deployedTopology(stack);
  const arnOf = (prefix: string) => topology.queues.find((queue) => queue.name.startsWith(`EffectivelyOnce-${prefix}`))?.arn;
  const bySource = Object.fromEntries(topology.deadLetterQueues.map((dlq) => [dlq.arn, dlq.sources]));
  expect(Object.keys(bySource).sort()).toEqual([arnOf('OrderProjectionDlq'), arnOf('PageViewCounterDlq'), arnOf('ShipmentNotifierDlq')].sort());
  expect(bySource[arnOf('PageViewCounterDlq') ?? '']).toEqual([{ role: 'redrive', arn: arnOf('PageViewCounterQueue') }]);
  expect(bySource[arnOf('OrderProjectionDlq') ?? '']).toEqual([{ role: 'on-failure', arn: topology.streams[0]?.arn }]);
  expect(bySource[arnOf('ShipmentNotifierDlq') ?? '']).toEqual([{ role: 'on-failure', arn: Object.values(stack.tableStreamArns)[0] }]);
  expect(topology.region).toBe(REGION);
  expect(topology.streams[0]).toMatchObject({ arn: expect.stringMatching(new RegExp(`^arn:aws:kinesis:${REGION}:${ACCOUNT}:stream/EffectivelyOnce-OrderProjectionStream`)), retentionHours: 24 });
  expect(findDlq(topology, 'PageViewCounterDlqUrl').url).toMatch(/^https:\/\/sqs\.eu-west-1\.amazonaws\.com\/123456789012\/EffectivelyOnce-PageViewCounterDlq/);
  expect(findDlq(topology, 'shipmentnotifier').sources[0]?.role).toBe('on-failure');
});

test('a queue that is no DLQ of the stack is refused with the list of those that are', () => {
  expect(() => findDlq(deployedTopology(deployed()), 'nope')).toThrow(/not a dead-letter queue of the stack.*PageViewCounterDlq/);
});
