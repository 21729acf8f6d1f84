/**
 * A resolve context that names every resource of a template the way a deployment would: the
 * physical names CloudFormation generates (without their random suffix), the URLs and ARNs they
 * make. It lets policies be compiled for resources local mode never creates (roles, log groups,
 * keys), and whole templates be evaluated without engines. Given the provisioned stack's context,
 * that one wins for every resource it knows.
 */
import { createHash } from 'node:crypto';
import type { LocalResource, ResolveContext } from '../../aws/cloudformation/intrinsics';
import { resourcesOfType, stringProp, type NamedResource, type Template } from '../../aws/cloudformation/template';
import type { ArnScope } from './arns';

/** Options of {@link deployedResolveContext}. */
export interface DeployedNamesOptions extends ArnScope {
  readonly stackName: string;
}

type Namer = (resource: NamedResource, naming: Naming) => LocalResource;

interface Naming extends DeployedNamesOptions {
  readonly partition: string;
}

function arn(naming: Naming, service: string, resource: string, region: string = naming.region): string {
  return `arn:${naming.partition}:${service}:${region}:${naming.accountId}:${resource}`;
}

function generated(resource: NamedResource, naming: Naming, property: string, maxLength: number): string {
  return stringProp(resource.properties, property) ?? `${naming.stackName}-${resource.logicalId}`.slice(0, maxLength);
}

/** A stable key id: a UUID-shaped digest of the logical id. */
function keyId(logicalId: string): string {
  const hex = createHash('sha256').update(logicalId).digest('hex');
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20, 32)].join('-');
}

const NAMERS: Readonly<Record<string, Namer>> = {
  'AWS::SQS::Queue': (resource, naming) => {
    const name = generated(resource, naming, 'QueueName', 80);
    const url = `https://sqs.${naming.region}.amazonaws.com/${naming.accountId}/${name}`;
    return { ref: url, attributes: { Arn: arn(naming, 'sqs', name), QueueName: name, QueueUrl: url } };
  },
  'AWS::DynamoDB::Table': (resource, naming) => {
    const name = generated(resource, naming, 'TableName', 255);
    const tableArn = arn(naming, 'dynamodb', `table/${name}`);
    const attributes: Record<string, string> = { Arn: tableArn };
    if (resource.properties.StreamSpecification !== undefined) attributes.StreamArn = `${tableArn}/stream/1970-01-01T00:00:00.000`;
    return { ref: name, attributes };
  },
  'AWS::Kinesis::Stream': (resource, naming) => {
    const name = generated(resource, naming, 'Name', 128);
    return { ref: name, attributes: { Arn: arn(naming, 'kinesis', `stream/${name}`) } };
  },
  'AWS::SNS::Topic': (resource, naming) => {
    const name = generated(resource, naming, 'TopicName', 256);
    const topicArn = arn(naming, 'sns', name);
    return { ref: topicArn, attributes: { TopicArn: topicArn, TopicName: name } };
  },
  'AWS::KMS::Key': (resource, naming) => {
    const id = keyId(resource.logicalId);
    return { ref: id, attributes: { Arn: arn(naming, 'kms', `key/${id}`), KeyId: id } };
  },
  'AWS::IAM::Role': (resource, naming) => {
    const name = generated(resource, naming, 'RoleName', 64);
    return { ref: name, attributes: { Arn: arn(naming, 'iam', `role/${name}`, ''), RoleId: `AROA${keyId(name).replace(/-/g, '').slice(0, 17).toUpperCase()}` } };
  },
  'AWS::IAM::ManagedPolicy': (resource, naming) => {
    const name = generated(resource, naming, 'ManagedPolicyName', 128);
    return { ref: arn(naming, 'iam', `policy/${name}`, ''), attributes: {} };
  },
  'AWS::Logs::LogGroup': (resource, naming) => {
    const name = generated(resource, naming, 'LogGroupName', 512);
    return { ref: name, attributes: { Arn: arn(naming, 'logs', `log-group:${name}:*`) } };
  },
  'AWS::Events::Rule': (resource, naming) => {
    const name = generated(resource, naming, 'Name', 64);
    return { ref: name, attributes: { Arn: arn(naming, 'events', `rule/${name}`) } };
  },
  'AWS::S3::Bucket': (resource, naming) => {
    // CloudFormation's generated bucket names are lower case (S3 allows no other).
    const name = stringProp(resource.properties, 'BucketName') ?? `${naming.stackName}-${resource.logicalId}`.toLowerCase().slice(0, 63);
    return { ref: name, attributes: { Arn: `arn:${naming.partition}:s3:::${name}`, DomainName: `${name}.s3.amazonaws.com` } };
  },
  'AWS::RDS::DBCluster': (resource, naming) => {
    // CloudFormation's generated cluster identifiers are lower case; RDS names the managed master secret `rds!cluster-<uuid>`.
    const identifier = (stringProp(resource.properties, 'DBClusterIdentifier') ?? `${naming.stackName}-${resource.logicalId}`).toLowerCase().slice(0, 63);
    const id = keyId(identifier);
    return {
      ref: identifier,
      attributes: {
        DBClusterArn: arn(naming, 'rds', `cluster:${identifier}`),
        DBClusterResourceId: `cluster-${id.replace(/-/g, '').toUpperCase().slice(0, 26)}`,
        'Endpoint.Address': `${identifier}.cluster-${id.slice(0, 12)}.${naming.region}.rds.amazonaws.com`,
        'MasterUserSecret.SecretArn': arn(naming, 'secretsmanager', `secret:rds!cluster-${id}-AbCdEf`),
      },
    };
  },
  'AWS::Lambda::Function': (resource, naming) => {
    const name = generated(resource, naming, 'FunctionName', 64);
    return { ref: name, attributes: { Arn: arn(naming, 'lambda', `function:${name}`) } };
  },
};

/** What each resource of the template is called once deployed, by logical id. */
export function deployedResources(template: Template, options: DeployedNamesOptions): Map<string, LocalResource> {
  const naming: Naming = { ...options, partition: options.partition ?? 'aws' };
  const resources = new Map<string, LocalResource>();
  for (const [type, namer] of Object.entries(NAMERS)) {
    for (const resource of resourcesOfType(template, type)) resources.set(resource.logicalId, namer(resource, naming));
  }
  return resources;
}

/**
 * A context to resolve a template's policies with: `base` (the provisioned stack's context) for
 * what local mode created, deployed names for the rest.
 * @example
 * const context = deployedResolveContext(template, { stackName, region: LOCAL_REGION, accountId: LOCAL_ACCOUNT_ID }, stack.context);
 * const policies = compileRolePolicies(template, (value) => resolveValue(value, context));
 */
export function deployedResolveContext(template: Template, options: DeployedNamesOptions, base?: ResolveContext): ResolveContext {
  const resources = deployedResources(template, options);
  for (const [id, resource] of base?.resources ?? []) resources.set(id, resource);
  const pseudo = {
    'AWS::Region': options.region,
    'AWS::AccountId': options.accountId,
    'AWS::Partition': options.partition ?? 'aws',
    'AWS::URLSuffix': 'amazonaws.com',
    'AWS::StackName': options.stackName,
    'AWS::NoValue': '',
  };
  return { resources, pseudo: { ...pseudo, ...base?.pseudo } };
}
