/**
 * The example on Lambda Managed Instances (`cdk synth -c managedInstances=true`, what `npm run demo
 * -- --managed-instances` runs): every consumer on one capacity provider, in a VPC whose isolated
 * subnets reach the consumers' AWS APIs through endpoints and nothing else; cdk-nag and the
 * Control Tower rules pass as they do for the default app.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { EventPipelineStack, managedInstancesFromContext } from '../../example';
import { EXAMPLE_PER_ENVIRONMENT_CONCURRENCY } from '../../example/managed-instances-context';
import { failOnEveryFinding } from '../../lib';
import { testApp } from '../lib/support';

const CONSUMER_FUNCTIONS = 6;
const outdirs: string[] = [];
afterAll(() => outdirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

describe('the example on Lambda Managed Instances', () => {
  const stack = new EventPipelineStack(testApp(), 'EffectivelyOnce', { alarmEmail: 'oncall@example.com', managedInstances: true });
  const template = Template.fromStack(stack);

  test('every consumer function is on the one capacity provider, with 8 invocations per environment and 2 GB', () => {
    template.resourceCountIs('AWS::Lambda::CapacityProvider', 1);
    const placed = template.findResources('AWS::Lambda::Function', {
      Properties: { CapacityProviderConfig: { LambdaManagedInstancesCapacityProviderConfig: { PerExecutionEnvironmentMaxConcurrency: EXAMPLE_PER_ENVIRONMENT_CONCURRENCY } } },
    });
    expect(Object.keys(placed)).toHaveLength(CONSUMER_FUNCTIONS);
    for (const fn of Object.values(placed)) expect((fn.Properties as { MemorySize: number }).MemorySize).toBeGreaterThanOrEqual(2048);
  });

  test('its subnets have no route out but the endpoints: DynamoDB by gateway, SQS, SNS, RDS Data and Secrets Manager by interface, HTTPS from the instances only', () => {
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
    template.resourceCountIs('AWS::EC2::InternetGateway', 0);
    template.hasResourceProperties('AWS::EC2::VPCEndpoint', { VpcEndpointType: 'Gateway', ServiceName: Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith(['.dynamodb'])]) }) });
    const interfaces = Object.values(template.findResources('AWS::EC2::VPCEndpoint', { Properties: { VpcEndpointType: 'Interface' } }));
    const services = interfaces.map((endpoint) => JSON.stringify((endpoint.Properties as { ServiceName: unknown }).ServiceName)).map((name) => /\.(sqs|sns|rds-data|secretsmanager)"/.exec(name)?.[1]);
    expect(services.sort()).toEqual(['rds-data', 'secretsmanager', 'sns', 'sqs']);
    template.hasResourceProperties('AWS::EC2::SecurityGroupIngress', { IpProtocol: 'tcp', FromPort: 443, ToPort: 443, SourceSecurityGroupId: Match.anyValue() });
    const flowLogs = Object.values(template.findResources('AWS::EC2::FlowLog')).map((flowLog) => JSON.stringify((flowLog.Properties as { ResourceId: unknown }).ResourceId));
    expect(flowLogs.filter((resource) => resource.includes('ManagedInstancesVpc'))).toHaveLength(1);
  });

  test('cdk-nag finds nothing unacknowledged', () => {
    const report = new AwsSolutionsChecks(stack).validateScope(stack);
    expect(report.violations.flatMap((violation) => violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.constructPath}`))).toEqual([]);
  });

  test('the Control Tower rules (cfn-guard) find nothing unacknowledged, and each function in the VPC gives the capacity provider as its network', () => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-managed-instances-'));
    outdirs.push(outdir);
    const app = testApp({ outdir });
    Validations.of(app).addPlugins(failOnEveryFinding(new CfnGuardValidator()));
    new EventPipelineStack(app, 'EffectivelyOnce', { alarmEmail: 'oncall@example.com', managedInstances: true });
    expect(() => app.synth()).not.toThrow();
    const report = JSON.parse(fs.readFileSync(path.join(outdir, 'validation-report.json'), 'utf8')) as { pluginReports: { pluginName: string; suppressedViolations?: { ruleName: string; reason: string; violatingConstructs: { constructPath: string }[] }[] }[] };
    const guard = report.pluginReports.find((plugin) => plugin.pluginName === 'cdk-validator-cfnguard');
    const vpcReasons = (guard?.suppressedViolations ?? []).filter((v) => v.ruleName === 'lambda_inside_vpc_check' && v.violatingConstructs.some((c) => c.constructPath.endsWith('/Function/Resource')));
    expect(vpcReasons.length).toBeGreaterThan(0);
    for (const { reason } of vpcReasons) expect(reason).toMatch(/Lambda Managed Instances.*capacity provider/);
  });

  test('the context value is true or false, and nothing else', () => {
    expect(managedInstancesFromContext(undefined)).toBe(false);
    expect(managedInstancesFromContext('false')).toBe(false);
    expect(managedInstancesFromContext('true')).toBe(true);
    expect(managedInstancesFromContext(true)).toBe(true);
    expect(() => managedInstancesFromContext('yes')).toThrow('context managedInstances must be true or false (given "yes")');
  });
});
