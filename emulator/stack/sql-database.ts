/**
 * The stack's SQL database in local mode: one real PostgreSQL (`startPostgres`) for all the
 * template's Data API clusters, each cluster's `DatabaseName` a database in it, served by the
 * contract layer's Data API gateway; and the template's migrations (`Custom::AWS` calls of the
 * Data API's `ExecuteStatement`), run through that gateway once the clusters exist.
 *
 * This module loads `pg` and the PostgreSQL engine: the runtime imports it only for a stack that
 * has a cluster (sql-clusters.ts says which).
 */
import { ExecuteStatementCommand, type ExecuteStatementCommandInput } from '@aws-sdk/client-rds-data';
import { dataApiClient, type ClientCredentials } from '../engines/clients';
import { startPostgres, type PostgresConnection } from '../engines/postgres';
import { withPostgresSession } from '../engines/postgres-session';
import type { DataApiClusterSettings } from '../gateway/data-api-gateway';
import type { AwsCall, LocalCluster } from './sql-clusters';

/** The local PostgreSQL of a stack, with a database per cluster. */
export interface StackDatabase {
  readonly postgres: PostgresConnection;
  /** The clusters as the Data API gateway serves them. */
  readonly clusters: readonly DataApiClusterSettings[];
  /** Stops PostgreSQL and deletes its data. */
  stop(): Promise<void>;
}

/** Starts PostgreSQL and creates each cluster's database in it; on a failure, stops it. */
export async function startStackDatabase(clusters: readonly LocalCluster[]): Promise<StackDatabase> {
  const postgres = await startPostgres();
  try {
    await createDatabases(postgres.connection, clusters);
  } catch (error) {
    await postgres.stop();
    throw error;
  }
  return {
    postgres: postgres.connection,
    clusters: clusters.map((cluster) => ({ resourceArn: cluster.arn, secretArns: [cluster.secretArn], database: cluster.databaseName })),
    stop: () => postgres.stop(),
  };
}

async function createDatabases(connection: PostgresConnection, clusters: readonly LocalCluster[]): Promise<void> {
  await withPostgresSession(connection, async (admin) => {
    for (const name of new Set(clusters.map((cluster) => cluster.databaseName))) {
      const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      // The construct checks the name against PostgreSQL's identifiers; quoted, it is taken as written.
      if (rowCount === 0) await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    }
  });
}

/**
 * Runs each Data API `ExecuteStatement` call through the gateway at `endpoint`, in template order,
 * each signed with `credentialsOf` its resource (its provider function's role, which the contract
 * layer decides the call against, as on AWS), else as the local administrator; returns the
 * logical ids run.
 * @throws Error naming the resource whose statement failed (a denied grant among the causes): the functions would start on a schema that is not there
 */
export async function runStatements(calls: readonly AwsCall[], endpoint: string, credentialsOf: (logicalId: string) => ClientCredentials | undefined = () => undefined): Promise<string[]> {
  for (const call of calls) {
    const client = dataApiClient(endpoint, credentialsOf(call.logicalId));
    try {
      await client.send(new ExecuteStatementCommand(call.parameters as unknown as ExecuteStatementCommandInput));
    } catch (error) {
      throw new Error(`the migration ${call.logicalId} failed on the local Data API: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    } finally {
      client.destroy();
    }
  }
  return calls.map((call) => call.logicalId);
}
