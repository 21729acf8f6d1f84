/**
 * The consumers' `managedInstances` prop: the function placed on a Lambda Managed Instances
 * capacity provider (`CapacityProviderConfig`), with its per-environment concurrency and memory
 * per vCPU, 2048 MB of memory unless it names more, and what AWS refuses refused at synth: memory
 * under 2 GB, a concurrency or memory per vCPU out of range. Its Control Tower waiver says why it
 * has no VpcConfig of its own (the capacity provider's subnets are its network).
 */
import { Duration, Lazy, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { SubnetType, Vpc, SecurityGroup } from 'aws-cdk-lib/aws-ec2';
import { Stream } from 'aws-cdk-lib/aws-kinesis';
import { CapacityProvider, type ICapacityProvider } from 'aws-cdk-lib/aws-lambda';
import type { Stack } from 'aws-cdk-lib';
import { KinesisConsumer, MANAGED_INSTANCES_LIMITS, QueueConsumer, type ManagedInstancesProps, type QueueConsumerProps } from '../../lib';
import { managedInstancesProblems, perEnvironmentConcurrency } from '../../aws/lambda/managed-instances';
import { FIXTURE_HANDLER, logicalId, testStack } from './support';

function capacityProvider(stack: Stack): CapacityProvider {
  const vpc = new Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 0, subnetConfiguration: [{ name: 'Instances', subnetType: SubnetType.PRIVATE_ISOLATED }] });
  return new CapacityProvider(stack, 'Capacity', { subnets: vpc.isolatedSubnets, securityGroups: [new SecurityGroup(stack, 'InstancesSg', { vpc })] });
}

function synthOnProvider(managed: (provider: ICapacityProvider) => ManagedInstancesProps, overrides: Partial<QueueConsumerProps> = {}): { template: Template; stack: Stack } {
  const { stack, alarmTopic } = testStack();
  const provider = capacityProvider(stack);
  new QueueConsumer(stack, 'Counter', { consumerName: 'page-view-counter', entry: FIXTURE_HANDLER, alarmTopic, managedInstances: managed(provider), ...overrides });
  return { template: Template.fromStack(stack), stack };
}

function testStackWithDefaultConsumer(): Stack {
  const { stack, alarmTopic } = testStack();
  new QueueConsumer(stack, 'Counter', { consumerName: 'page-view-counter', entry: FIXTURE_HANDLER, alarmTopic });
  return stack;
}

function consumerFunction(template: Template): Record<string, unknown> {
  return template.findResources('AWS::Lambda::Function')[logicalId(template, 'AWS::Lambda::Function', 'CounterFunction')].Properties as Record<string, unknown>;
}

describe('managedInstances', () => {
  test('places the function on the capacity provider with its concurrency and memory per vCPU, at 2048 MB unless it names more', () => {
    const { template } = synthOnProvider((capacityProvider) => ({ capacityProvider, perEnvironmentMaxConcurrency: 32, memoryGiBPerVCpu: 4 }));
    const fn = consumerFunction(template);
    expect(fn.CapacityProviderConfig).toEqual({
      LambdaManagedInstancesCapacityProviderConfig: {
        CapacityProviderArn: { 'Fn::GetAtt': [logicalId(template, 'AWS::Lambda::CapacityProvider'), 'Arn'] },
        PerExecutionEnvironmentMaxConcurrency: 32,
        ExecutionEnvironmentMemoryGiBPerVCpu: 4,
      },
    });
    expect(fn.MemorySize).toBe(MANAGED_INSTANCES_LIMITS.minMemoryMb);
    expect(consumerFunction(synthOnProvider((capacityProvider) => ({ capacityProvider }), { memorySize: 4096 }).template).MemorySize).toBe(4096);
  });

  test("AWS's defaults where the props give none: no concurrency or memory per vCPU in the template", () => {
    const { template } = synthOnProvider((capacityProvider) => ({ capacityProvider }));
    expect((consumerFunction(template).CapacityProviderConfig as { LambdaManagedInstancesCapacityProviderConfig: Record<string, unknown> }).LambdaManagedInstancesCapacityProviderConfig).toEqual({
      CapacityProviderArn: expect.anything(),
    });
  });

  test('takes a capacity provider imported by ARN, and works on a stream consumer too', () => {
    const { stack, alarmTopic } = testStack();
    const arn = 'arn:aws:lambda:eu-west-1:123456789012:capacity-provider:shared';
    const capacity = CapacityProvider.fromCapacityProviderArn(stack, 'Shared', arn);
    new KinesisConsumer(stack, 'Projection', { consumerName: 'order-projection', entry: FIXTURE_HANDLER, alarmTopic, stream: new Stream(stack, 'Orders'), retentionPeriod: Duration.hours(24), managedInstances: { capacityProvider: capacity } });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::Lambda::Function', { CapacityProviderConfig: { LambdaManagedInstancesCapacityProviderConfig: { CapacityProviderArn: arn } }, MemorySize: 2048 });
  });

  test('its Control Tower waiver names the capacity provider as its network, where a default function says it needs none', () => {
    const managed = synthOnProvider((capacityProvider) => ({ capacityProvider })).stack;
    const reasons = (stack: Stack): string[] =>
      stack.node
        .findAll()
        .flatMap((construct) => construct.node.metadata.filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY))
        .flatMap((entry) => Object.entries(entry.data as Record<string, string>))
        .filter(([id]) => id.endsWith('lambda_inside_vpc_check'))
        .map(([, reason]) => reason);
    expect(reasons(managed)).toEqual([expect.stringMatching(/capacity provider/)]);
    expect(reasons(testStackWithDefaultConsumer())).toEqual([expect.stringMatching(/A VPC would add an interface endpoint/)]);
  });

  test.each<[string, (provider: ICapacityProvider) => ManagedInstancesProps, Partial<QueueConsumerProps>, string]>([
    ['memory under 2 GB', (capacityProvider) => ({ capacityProvider }), { memorySize: 1024 }, 'managedInstances: a function on Lambda Managed Instances has at least 2048 MB of memory (given 1024)'],
    ['a concurrency of 0', (capacityProvider) => ({ capacityProvider, perEnvironmentMaxConcurrency: 0 }), {}, 'PerExecutionEnvironmentMaxConcurrency is a whole number 1..1600 (given 0)'],
    ['a concurrency past 1600', (capacityProvider) => ({ capacityProvider, perEnvironmentMaxConcurrency: 1601 }), {}, 'PerExecutionEnvironmentMaxConcurrency is a whole number 1..1600 (given 1601)'],
    ['1 GiB per vCPU', (capacityProvider) => ({ capacityProvider, memoryGiBPerVCpu: 1 }), {}, 'ExecutionEnvironmentMemoryGiBPerVCpu is 2..8 (given 1)'],
  ])('refuses %s', (_name, managed, overrides, message) => {
    expect(() => synthOnProvider(managed, overrides)).toThrow(message);
  });

  test('unresolved tokens pass, and go to the template', () => {
    const concurrency = Lazy.number({ produce: () => 8 });
    const { template } = synthOnProvider((capacityProvider) => ({ capacityProvider, perEnvironmentMaxConcurrency: concurrency }));
    expect(consumerFunction(template).CapacityProviderConfig).toMatchObject({ LambdaManagedInstancesCapacityProviderConfig: { PerExecutionEnvironmentMaxConcurrency: 8 } });
  });
});

describe("AWS's rules for a function on Managed Instances (aws/lambda/managed-instances.ts)", () => {
  test('Node.js before 22 is refused, and a runtime that is not Node.js', () => {
    expect(managedInstancesProblems({ memoryMb: 2048, runtime: 'nodejs20.x' })).toEqual(['Lambda Managed Instances run Node.js 22 and later (given nodejs20.x)']);
    expect(managedInstancesProblems({ memoryMb: 2048, runtime: 'python3.13' })).toEqual(['Lambda Managed Instances run Node.js 22 and later (given python3.13)']);
    expect(managedInstancesProblems({ memoryMb: 2048, runtime: 'nodejs22.x' })).toEqual([]);
  });

  test("an environment's concurrency: the setting, else 64 per vCPU of its memory over the memory per vCPU", () => {
    expect(perEnvironmentConcurrency({ memoryMb: 2048, perEnvironmentMaxConcurrency: 10 })).toBe(10);
    expect(perEnvironmentConcurrency({ memoryMb: 2048 })).toBe(64);
    expect(perEnvironmentConcurrency({ memoryMb: 8192 })).toBe(4 * 64);
    expect(perEnvironmentConcurrency({ memoryMb: 8192, memoryGiBPerVCpu: 8 })).toBe(64);
  });
});
