/**
 * The example's consumers on Lambda Managed Instances (the context `managedInstances`, what `npm
 * run demo -- --managed-instances` synthesizes): one capacity provider in a VPC of its own, whose
 * isolated subnets reach the AWS APIs the consumers call through VPC endpoints and nothing else.
 */
import { Validations } from 'aws-cdk-lib';
import { GatewayVpcEndpointAwsService, InterfaceVpcEndpointAwsService, Port, SecurityGroup, SubnetType } from 'aws-cdk-lib/aws-ec2';
import { CapacityProvider } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { addIsolatedVpc, type ManagedInstancesProps } from '../lib';
import { EXAMPLE_PER_ENVIRONMENT_CONCURRENCY } from './managed-instances-context';

/** Why the capacity provider's flow logs have no key of our own (CT.CLOUDWATCH.PR.3). */
const FLOW_LOG_KEY_REASON =
  'CloudWatch Logs encrypts every log group at rest. The flow logs hold addresses and ports of the ' +
  'instances, no payloads; a customer-managed key would change nothing about who may read them (IAM ' +
  'decides) and add a key policy to get wrong, with logs lost while the service cannot use the key.';

/** Why the capacity provider's operator role has AWS's managed policy (AwsSolutions-IAM4). */
const OPERATOR_POLICY_REASON =
  "Lambda's own operator policy for capacity providers (AWSLambdaManagedEC2ResourceOperator): the service " +
  'launches, tags and terminates the instances with it, and AWS keeps it in step with what the service ' +
  'needs. A copy of our own would drift from it.';

/**
 * A capacity provider for the example's consumers: a VPC with isolated subnets in two zones (no NAT,
 * no internet gateway), flow logs, and endpoints for what the consumers call: DynamoDB (gateway),
 * SQS, SNS, the RDS Data API and Secrets Manager (interface).
 */
export function addExampleCapacityProvider(scope: Construct): ManagedInstancesProps {
  const vpc = addIsolatedVpc(scope, { id: 'ManagedInstancesVpc', subnetName: 'Instances', flowLogKeyReason: FLOW_LOG_KEY_REASON });
  vpc.addGatewayEndpoint('DynamoDbEndpoint', { service: GatewayVpcEndpointAwsService.DYNAMODB });
  // The subnets have no route out but the endpoints: the instances may send anywhere, and reach only those.
  const instances = new SecurityGroup(scope, 'ManagedInstancesSecurityGroup', { vpc, description: 'The Lambda Managed Instances of the consumers', allowAllOutbound: true });
  const endpoints = new SecurityGroup(scope, 'ManagedInstancesEndpointsSecurityGroup', { vpc, description: 'The interface endpoints: HTTPS from the instances only', allowAllOutbound: false });
  endpoints.addIngressRule(instances, Port.tcp(443), 'HTTPS from the Lambda Managed Instances');
  const services = { Sqs: InterfaceVpcEndpointAwsService.SQS, Sns: InterfaceVpcEndpointAwsService.SNS, RdsData: InterfaceVpcEndpointAwsService.RDS_DATA, SecretsManager: InterfaceVpcEndpointAwsService.SECRETS_MANAGER };
  for (const [name, service] of Object.entries(services)) {
    vpc.addInterfaceEndpoint(`${name}Endpoint`, { service, subnets: { subnetType: SubnetType.PRIVATE_ISOLATED }, securityGroups: [endpoints], open: false });
  }
  const capacityProvider = new CapacityProvider(scope, 'ManagedInstances', { subnets: vpc.isolatedSubnets, securityGroups: [instances] });
  const operatorRole = capacityProvider.node.tryFindChild('OperatorRole');
  if (operatorRole) Validations.of(operatorRole).acknowledge({ id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AWSLambdaManagedEC2ResourceOperator]', reason: OPERATOR_POLICY_REASON });
  return { capacityProvider, perEnvironmentMaxConcurrency: EXAMPLE_PER_ENVIRONMENT_CONCURRENCY };
}
