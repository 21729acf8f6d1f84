import { RemovalPolicy } from 'aws-cdk-lib';
import { FlowLogDestination, SubnetType, Vpc } from 'aws-cdk-lib/aws-ec2';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { ControlTowerRule, declineControlTowerRule } from './control-tower';

/** How {@link addIsolatedVpc} names what it adds, and why its flow logs have no key of their own. */
export interface IsolatedVpcProps {
  /** The construct id of the VPC; its flow logs' log group is `<id>FlowLogs` unless `flowLogsId` says. */
  readonly id: string;
  /** The construct id of the flow logs' log group. @default - `<id>FlowLogs` */
  readonly flowLogsId?: string;
  /** The name of its one group of subnets, e.g. `Database` or `Instances`. */
  readonly subnetName: string;
  /** Why the flow logs' log group has no customer-managed key (CT.CLOUDWATCH.PR.3's acknowledgement). */
  readonly flowLogKeyReason: string;
}

/**
 * A VPC of isolated subnets only, in two zones (no NAT gateway, no internet gateway), whose flow
 * logs go to a log group retained for a year: what a database that only the Data API reaches, or
 * Lambda Managed Instances that reach AWS through VPC endpoints, live in.
 */
export function addIsolatedVpc(scope: Construct, props: IsolatedVpcProps): Vpc {
  const flowLogs = new LogGroup(scope, props.flowLogsId ?? `${props.id}FlowLogs`, { retention: RetentionDays.ONE_YEAR, removalPolicy: RemovalPolicy.RETAIN });
  declineControlTowerRule(flowLogs, ControlTowerRule.LOG_GROUP_ENCRYPTED, props.flowLogKeyReason);
  return new Vpc(scope, props.id, {
    maxAzs: 2,
    natGateways: 0,
    // CDK would empty the default security group's rules with a custom resource function; what
    // lives in the VPC has security groups of its own, and the default one is never used.
    restrictDefaultSecurityGroup: false,
    subnetConfiguration: [{ name: props.subnetName, subnetType: SubnetType.PRIVATE_ISOLATED, cidrMask: 24 }],
    flowLogs: { All: { destination: FlowLogDestination.toCloudWatchLogs(flowLogs) } },
  });
}
