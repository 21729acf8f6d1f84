/**
 * The SQL effects database's cluster on moto. moto's CloudFormation cannot create an Aurora
 * cluster (moto-gaps.ts, `NOT_DEPLOYABLE_BY_MOTO`), so the test makes one through moto's RDS API
 * with the settings of the example's own template (synthesized without `sqlCluster`), reads it
 * back, and deploys the example onto it with the context `sqlCluster`, as an operator would onto
 * a cluster of their own (`SqlEffectDatabase`'s `existingCluster`).
 */
import { resolveValue, type LocalResource } from '../../aws/cloudformation/intrinsics';
import { resourcesOfType, ResourceType, type NamedResource, type Template } from '../../aws/cloudformation/template';
import type { SqlClusterArns } from '../../example';
import { ACCOUNT, REGION, type Target } from './commands';
import { NOT_APPLIED_BY_MOTO } from './moto-gaps';
import { awsCli } from './readback';
import type { Reader } from './template-compare';

/** The stand-in cluster's identifier (CloudFormation would generate one). */
export const STAND_IN_CLUSTER_ID = 'eo-deploy-sql-effects';

/**
 * Template properties the stand-in cluster does not take: they name the VPC, subnets and security
 * group of the new-cluster template, which the test does not deploy (the cluster needs none on
 * moto, and nothing reaches it over the network: the Data API does).
 */
export const NETWORK_PROPERTIES: readonly string[] = ['DBSubnetGroupName', 'VpcSecurityGroupIds'];

/** A cluster as `rds describe-db-clusters` prints it. */
export interface DescribedCluster {
  readonly DBClusterArn: string;
  readonly MasterUserSecret?: { readonly SecretArn?: string; readonly KmsKeyId?: string };
  readonly [property: string]: unknown;
}

/** The stand-in cluster, its key, and the template it was made from. */
export interface StandInCluster {
  /** The `AWS::RDS::DBCluster` of the example's new-cluster template. */
  readonly templateCluster: NamedResource;
  /** The customer-managed key made for it, in place of the template's `AWS::KMS::Key`. */
  readonly keyArn: string;
  /** The template's properties with the key's `Fn::GetAtt` resolved to {@link keyArn}. */
  readonly expected: Readonly<Record<string, unknown>>;
  /** What moto's RDS returned for it, right after the create. */
  readonly described: DescribedCluster;
  /** The context value `sqlCluster` that deploys the example onto it. */
  readonly arns: SqlClusterArns;
}

/**
 * Makes the stand-in cluster from the one `AWS::RDS::DBCluster` of `template`: a KMS key in
 * place of the template's, then `rds create-db-cluster` with every property but the network's.
 *
 * @throws Error when the template has no cluster, or more than one
 */
export async function createStandInCluster(target: Target, template: Template): Promise<StandInCluster> {
  const [templateCluster, ...others] = resourcesOfType(template, ResourceType.DB_CLUSTER);
  if (!templateCluster || others.length > 0) throw new Error(`the example's template has ${others.length + (templateCluster ? 1 : 0)} AWS::RDS::DBCluster; the deploy test expects one`);
  const { KeyMetadata } = await awsCli<{ KeyMetadata: { Arn: string } }>(target, ['kms', 'create-key', '--description', 'The deploy test\'s stand-in for the SQL effects key']);
  const expected = withKey(template, templateCluster.properties, KeyMetadata.Arn);
  const input = { DBClusterIdentifier: STAND_IN_CLUSTER_ID, ...createClusterInput(expected) };
  const { DBCluster } = await awsCli<{ DBCluster: DescribedCluster }>(target, ['rds', 'create-db-cluster', '--cli-input-json', JSON.stringify(input)]);
  const secretArn = DBCluster.MasterUserSecret?.SecretArn;
  if (!secretArn) throw new Error(`moto's RDS made ${STAND_IN_CLUSTER_ID} without a master user secret: ${JSON.stringify(DBCluster)}`);
  return { templateCluster, keyArn: KeyMetadata.Arn, expected, described: DBCluster, arns: { clusterArn: DBCluster.DBClusterArn, secretArn, secretKeyArn: KeyMetadata.Arn } };
}

/** The cluster's properties, the network's left out, every `Fn::GetAtt <key>.Arn` the stand-in key's ARN. */
function withKey(template: Template, properties: Readonly<Record<string, unknown>>, keyArn: string): Record<string, unknown> {
  const keys = resourcesOfType(template, 'AWS::KMS::Key').map((key): [string, LocalResource] => [key.logicalId, { ref: keyArn.split('/').pop() ?? '', attributes: { Arn: keyArn } }]);
  const context = { resources: new Map(keys), pseudo: { 'AWS::Partition': 'aws', 'AWS::Region': REGION, 'AWS::AccountId': ACCOUNT } };
  const kept = Object.entries(properties).filter(([property]) => !NETWORK_PROPERTIES.includes(property));
  return Object.fromEntries(kept.map(([property, value]) => [property, resolveValue(value, context)]));
}

/**
 * CreateDBCluster's input: the template's names, but for the secret's key, which CloudFormation
 * nests (`MasterUserSecret.KmsKeyId`) and the API does not. The CLI refuses a name it does not
 * know, so a property added to the template shows here.
 */
function createClusterInput(properties: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { MasterUserSecret, ...rest } = properties as { MasterUserSecret?: { KmsKeyId?: string } };
  return { ...rest, ...(MasterUserSecret?.KmsKeyId && { MasterUserSecretKmsKeyId: MasterUserSecret.KmsKeyId }) };
}

export async function describeCluster(target: Target, identifier: string): Promise<DescribedCluster> {
  const { DBClusters: [cluster] = [] } = await awsCli<{ DBClusters?: DescribedCluster[] }>(target, ['rds', 'describe-db-clusters', '--db-cluster-identifier', identifier]);
  if (!cluster) throw new Error(`rds describe-db-clusters found no ${identifier}`);
  return cluster;
}

/** DescribeDBClusters' answer in the template's terms, where the names differ. */
const CLUSTER_PROPERTIES: Readonly<Record<string, (cluster: DescribedCluster) => unknown>> = {
  EnableHttpEndpoint: (cluster) => cluster.HttpEndpointEnabled,
  EnableIAMDatabaseAuthentication: (cluster) => cluster.IAMDatabaseAuthenticationEnabled,
  EnableCloudwatchLogsExports: (cluster) => cluster.EnabledCloudwatchLogsExports,
  DBClusterParameterGroupName: (cluster) => cluster.DBClusterParameterGroup,
  ManageMasterUserPassword: (cluster) => cluster.MasterUserSecret !== undefined,
  MasterUserSecret: (cluster) => ({ KmsKeyId: cluster.MasterUserSecret?.KmsKeyId }),
};

export const readCluster: Reader<DescribedCluster> = (cluster, property) => (CLUSTER_PROPERTIES[property] ?? ((described) => described[property]))(cluster);

/** The template's cluster properties that moto's RDS applies: those of {@link StandInCluster.expected} less `NOT_APPLIED_BY_MOTO`. */
export function appliedClusterProperties(standIn: StandInCluster): Record<string, unknown> {
  const notApplied = NOT_APPLIED_BY_MOTO[ResourceType.DB_CLUSTER] ?? [];
  return Object.fromEntries(Object.entries(standIn.expected).filter(([property]) => !notApplied.includes(property)));
}

/** One migration statement as its `Custom::AWS` makes it: the call of its `Create`. */
export interface MigrationCall {
  readonly logicalId: string;
  readonly service: string;
  readonly action: string;
  readonly parameters: { readonly resourceArn: string; readonly secretArn: string; readonly database: string; readonly sql: string; readonly continueAfterTimeout?: boolean };
}

/**
 * The deployed template's `Custom::AWS` calls, in the order CloudFormation runs them: each after
 * the one its `DependsOn` names (the first depends on none of them).
 *
 * @throws Error when their dependencies are not one chain
 */
export function migrationCalls(template: Template, resolve: (value: unknown) => unknown): MigrationCall[] {
  const resources = resourcesOfType(template, ResourceType.AWS_CALL);
  const ids = new Set(resources.map((resource) => resource.logicalId));
  const before = new Map(resources.map((resource) => [resource.logicalId, dependsOn(template, resource.logicalId).filter((id) => ids.has(id))]));
  const ordered: string[] = [];
  while (ordered.length < resources.length) {
    const next = [...before].filter(([id, previous]) => !ordered.includes(id) && previous.every((one) => ordered.includes(one)));
    if (next.length !== 1) throw new Error(`the migrations are not one chain after ${JSON.stringify(ordered)}: ${JSON.stringify(Object.fromEntries(before))}`);
    ordered.push(next[0]?.[0] ?? '');
  }
  return ordered.map((logicalId) => ({ logicalId, ...(JSON.parse(String(resolve(template.Resources[logicalId]?.Properties?.Create))) as Omit<MigrationCall, 'logicalId'>) }));
}

function dependsOn(template: Template, logicalId: string): string[] {
  const value = template.Resources[logicalId]?.DependsOn;
  return value === undefined ? [] : [value].flat();
}

/** `aws rds-data execute-statement` of a migration's call, against moto. */
export function executeStatement(target: Target, call: MigrationCall): Promise<Record<string, unknown>> {
  const { resourceArn, secretArn, database, sql, continueAfterTimeout } = call.parameters;
  const args = ['rds-data', 'execute-statement', '--resource-arn', resourceArn, '--secret-arn', secretArn, '--database', database, '--sql', sql];
  return awsCli(target, continueAfterTimeout ? [...args, '--continue-after-timeout'] : args);
}
