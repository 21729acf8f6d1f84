/**
 * The operator policy's statements for a SQL consumer's dedup rows, which `dlq inspect` reads
 * through the RDS Data API (sql-dedup-rows.ts): the transaction and statement calls the runtime's
 * read makes, on the cluster; the secret's value, since the Data API reads the secret as the
 * caller; `kms:Decrypt` through Secrets Manager, for a secret under a customer-managed key; and the
 * function's configuration, where the template leaves the cluster, secret or database unresolved.
 *
 * The template names neither a new cluster's secret (RDS makes it: `rds!cluster-...`) nor the key
 * it is encrypted with, so those resources are patterns: the secret's, RDS's names for the master
 * secrets it manages, in the stack's account and region; the key's, any key, but only as Secrets
 * Manager uses it (`kms:ViaService`) to decrypt a secret the caller may read.
 */
import type { ArnScope } from './permissions';
import type { PolicyStatement } from './operator-policy';
import type { StackTopology } from './types';

/** The Data API actions of the runtime's read of dedup rows: one transaction, one `SELECT`. */
export const SQL_DEDUP_READ_ACTIONS = ['rds-data:BeginTransaction', 'rds-data:ExecuteStatement', 'rds-data:CommitTransaction', 'rds-data:RollbackTransaction'] as const;

/** What the SQL consumers' dedup rows are read on. */
export interface SqlDedupResources {
  readonly clusters: string[];
  readonly secrets: string[];
  /** The consumers' functions whose environment the read takes a setting from (one the template does not resolve). */
  readonly functions: string[];
  /** The Secrets Manager endpoint of the stack's region, the one service that may use a key to decrypt the secrets. */
  readonly viaService: string;
  readonly keys: string[];
}

/** The resources of the SQL consumers' dedup rows in `topology`. */
export function sqlDedupResourcesOf(topology: StackTopology, scope: ArnScope): SqlDedupResources {
  const stores = topology.consumerWindows.flatMap((window) => (window.sqlDedup ? [window.sqlDedup] : []));
  const arn = (service: string, resource: string) => `arn:${scope.partition}:${service}:${scope.region}:${scope.accountId}:${resource}`;
  const incomplete = stores.filter((store) => store.resourceArn === undefined || store.secretArn === undefined || store.database === undefined);
  return {
    clusters: sorted(stores.map((store) => store.resourceArn ?? arn('rds', 'cluster:*'))),
    secrets: sorted(stores.map((store) => store.secretArn ?? arn('secretsmanager', 'secret:rds!cluster-*'))),
    functions: sorted(incomplete.map((store) => arn('lambda', `function:${store.functionName}`))),
    viaService: `secretsmanager.${scope.region}.amazonaws.com`,
    keys: stores.length === 0 ? [] : [arn('kms', 'key/*')],
  };
}

/** `LookUpAppliedSqlEvents`, `ReadSqlDedupSecrets`, `DecryptSqlDedupSecrets` and `ReadSqlConsumerSettings`; none for a stack without SQL consumers. */
export function sqlDedupStatements(on: SqlDedupResources): PolicyStatement[] {
  return [
    { Sid: 'LookUpAppliedSqlEvents', Effect: 'Allow', Action: [...SQL_DEDUP_READ_ACTIONS], Resource: on.clusters },
    { Sid: 'ReadSqlDedupSecrets', Effect: 'Allow', Action: ['secretsmanager:GetSecretValue'], Resource: on.secrets },
    { Sid: 'DecryptSqlDedupSecrets', Effect: 'Allow', Action: ['kms:Decrypt'], Resource: on.keys, Condition: { StringEquals: { 'kms:ViaService': on.viaService } } },
    { Sid: 'ReadSqlConsumerSettings', Effect: 'Allow', Action: ['lambda:GetFunctionConfiguration'], Resource: on.functions },
  ];
}

function sorted(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}
