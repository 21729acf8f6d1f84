/** The parts of a CloudFormation template that local mode reads. */

export interface TemplateResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly Metadata?: Record<string, unknown>;
  readonly DependsOn?: string | string[];
}

export interface Template {
  readonly Resources: Record<string, TemplateResource>;
  readonly Outputs?: Record<string, { readonly Value: unknown; readonly Description?: string }>;
}

/** A resource of the template with its logical id. */
export interface NamedResource {
  readonly logicalId: string;
  readonly type: string;
  readonly properties: Record<string, unknown>;
  readonly metadata: Record<string, unknown>;
}

/** Resource types local mode creates or emulates. */
export const ResourceType = {
  QUEUE: 'AWS::SQS::Queue',
  TABLE: 'AWS::DynamoDB::Table',
  GLOBAL_TABLE: 'AWS::DynamoDB::GlobalTable',
  STREAM: 'AWS::Kinesis::Stream',
  TOPIC: 'AWS::SNS::Topic',
  SUBSCRIPTION: 'AWS::SNS::Subscription',
  FUNCTION: 'AWS::Lambda::Function',
  EVENT_SOURCE_MAPPING: 'AWS::Lambda::EventSourceMapping',
  ALARM: 'AWS::CloudWatch::Alarm',
  RULE: 'AWS::Events::Rule',
  BUCKET: 'AWS::S3::Bucket',
  DB_CLUSTER: 'AWS::RDS::DBCluster',
  /** CDK's `AwsCustomResource`: one AWS SDK call made by its provider function at deploy. */
  AWS_CALL: 'Custom::AWS',
  /** EventBridge Scheduler's schedule: a target call on a rate or a cron, made under the target's role. */
  SCHEDULE: 'AWS::Scheduler::Schedule',
} as const;

/** The logical id CDK gives the one provider function behind every `AwsCustomResource` of a stack. */
export const AWS_CUSTOM_RESOURCE_PROVIDER_ID = 'AWS679f53fac002430cb0da5b7982bd2287';

/** Whether a function is CDK's `AwsCustomResource` provider (CDK suffixes the id with a hash of it). */
export function isAwsCustomResourceProvider(logicalId: string): boolean {
  return logicalId.startsWith(AWS_CUSTOM_RESOURCE_PROVIDER_ID);
}

/** Every resource of one type, in template order. */
export function resourcesOfType(template: Template, type: string): NamedResource[] {
  return Object.entries(template.Resources)
    .filter(([, resource]) => resource.Type === type)
    .map(([logicalId, resource]) => ({ logicalId, type: resource.Type, properties: resource.Properties ?? {}, metadata: resource.Metadata ?? {} }));
}

/** A property as a string, or undefined. */
export function stringProp(properties: Record<string, unknown>, name: string): string | undefined {
  const value = properties[name];
  return typeof value === 'string' ? value : undefined;
}

/** A property as a number (CloudFormation allows numeric strings), or undefined. */
export function numberProp(properties: Record<string, unknown>, name: string): number | undefined {
  const value = properties[name];
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

/**
 * Whether an `AWS::Lambda::EventSourceMapping` polls: `Enabled` is true unless the template says
 * false (CloudFormation takes the string too). "When false, Lambda pauses polling and invocation"
 * (AWS::Lambda::EventSourceMapping, CloudFormation User Guide,
 * https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-resource-lambda-eventsourcemapping.html).
 */
export function mappingEnabled(properties: Record<string, unknown>): boolean {
  const enabled = properties.Enabled;
  return enabled !== false && enabled !== 'false';
}
