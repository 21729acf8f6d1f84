/**
 * Compares a deployed resource with its template: every property of the template, resolved to
 * the deployed names and ARNs, against what the resource's service returns for it. Properties
 * moto does not apply (moto-gaps.ts) are left to the template-only checks.
 */
import type { StreamDescriptionSummary } from '@aws-sdk/client-kinesis';
import { resolved, type Deployment } from './deployment';
import { NOT_APPLIED_BY_MOTO } from './moto-gaps';
import type { DeployedMapping, DeployedTable } from './readback';

/** Template properties the test does not compare, whoever deploys: no service returns them as written. */
const NOT_COMPARED: Readonly<Record<string, readonly string[]>> = {
  // An asset in the bootstrap bucket; Lambda returns only its size and hash.
  'AWS::Lambda::Function': ['Code'],
};

/** Reads one template property's counterpart from what the service returned. */
export type Reader<T> = (deployed: T, property: string) => unknown;

export interface Comparison {
  readonly expected: Record<string, unknown>;
  readonly actual: Record<string, unknown>;
}

/** The resource's template properties (resolved) and the deployed values of the same properties. */
export function compareWithTemplate<T>(deployment: Deployment, logicalId: string, deployed: T, read: Reader<T>, normalise: (value: unknown) => unknown = (value) => value): Comparison {
  const expected = expectedProperties(deployment, logicalId);
  const actual = Object.fromEntries(Object.keys(expected).map((property) => [property, read(deployed, property)]));
  return { expected: Object.fromEntries(Object.entries(expected).map(([property, value]) => [property, normalise(value)])), actual };
}

function expectedProperties(deployment: Deployment, logicalId: string): Record<string, unknown> {
  const resource = deployment.template.Resources[logicalId];
  if (!resource) throw new Error(`${logicalId} is not in the template`);
  const skipped = new Set([...(NOT_APPLIED_BY_MOTO[resource.Type] ?? []), ...(NOT_COMPARED[resource.Type] ?? [])]);
  const kept = Object.entries(resource.Properties ?? {}).filter(([property]) => !skipped.has(property));
  return Object.fromEntries(kept.map(([property, value]) => [property, resolved(deployment, value)]));
}

/** SQS and SNS return every attribute as a string. */
export function asAttribute(value: unknown): unknown {
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
}

/** Lambda's answer has the template's names, except for the function (an ARN) and `Enabled` (a state). */
export const readMapping: Reader<DeployedMapping> = (mapping, property) => {
  if (property === 'FunctionName') return mapping.FunctionArn.split(':').pop();
  if (property === 'Enabled') return mapping.State === 'Enabled';
  return mapping[property];
};

const JSON_ATTRIBUTES = new Set(['RedrivePolicy', 'RedriveAllowPolicy', 'Policy']);

export const readQueue: Reader<Readonly<Record<string, string>>> = (attributes, property) => {
  if (property === 'QueueName') return attributes.QueueArn?.split(':').pop();
  const value = attributes[property];
  return JSON_ATTRIBUTES.has(property) && value !== undefined ? (JSON.parse(value) as unknown) : value;
};

export const readTopic: Reader<Readonly<Record<string, string>>> = (attributes, property) => (property === 'TopicName' ? attributes.TopicArn?.split(':').pop() : attributes[property]);

/** Lambda and CloudWatch answer with the template's property names. */
export const readProperty: Reader<Readonly<Record<string, unknown>>> = (deployed, property) => deployed[property];

/** DescribeTable, DescribeTimeToLive and DescribeContinuousBackups in the template's terms. */
const TABLE_PROPERTIES: Readonly<Record<string, (deployed: DeployedTable) => unknown>> = {
  TableName: ({ table }) => table.TableName,
  KeySchema: ({ table }) => table.KeySchema,
  AttributeDefinitions: ({ table }) => table.AttributeDefinitions,
  BillingMode: ({ table }) => table.BillingModeSummary?.BillingMode ?? 'PROVISIONED',
  StreamSpecification: ({ table }) => (table.StreamSpecification?.StreamEnabled ? { StreamViewType: table.StreamSpecification.StreamViewType } : undefined),
  TimeToLiveSpecification: ({ timeToLive }) => ({ AttributeName: timeToLive.AttributeName, Enabled: timeToLive.TimeToLiveStatus === 'ENABLED' }),
  PointInTimeRecoverySpecification: ({ pointInTimeRecovery }) => ({ PointInTimeRecoveryEnabled: pointInTimeRecovery === 'ENABLED' }),
  SSESpecification: ({ table }) => ({ SSEEnabled: table.SSEDescription?.Status === 'ENABLED' }),
  DeletionProtectionEnabled: ({ table }) => table.DeletionProtectionEnabled,
};

export const readTable: Reader<DeployedTable> = (deployed, property) => readerFor(TABLE_PROPERTIES, 'AWS::DynamoDB::Table', property)(deployed);

const STREAM_PROPERTIES: Readonly<Record<string, (stream: StreamDescriptionSummary) => unknown>> = {
  Name: (stream) => stream.StreamName,
  ShardCount: (stream) => stream.OpenShardCount,
  RetentionPeriodHours: (stream) => stream.RetentionPeriodHours,
  StreamModeDetails: (stream) => stream.StreamModeDetails,
  StreamEncryption: (stream) => (stream.EncryptionType === 'NONE' ? undefined : { EncryptionType: stream.EncryptionType, KeyId: stream.KeyId }),
};

export const readStream: Reader<StreamDescriptionSummary> = (stream, property) => readerFor(STREAM_PROPERTIES, 'AWS::Kinesis::Stream', property)(stream);

function readerFor<T>(readers: Readonly<Record<string, (deployed: T) => unknown>>, type: string, property: string): (deployed: T) => unknown {
  const reader = readers[property];
  if (!reader) throw new Error(`the deploy test cannot read back ${type} property ${property}: add a reader to test/deploy/template-compare.ts, or list the property in NOT_APPLIED_BY_MOTO`);
  return reader;
}
