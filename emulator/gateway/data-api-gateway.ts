/**
 * The RDS Data API on a local PostgreSQL (`startPostgres`), behind the contract layer: point a
 * `RDSDataClient` here and the SQL strategy's `DataApiSession` runs on a real PostgreSQL with the
 * Data API's wire protocol, answers, errors and limits. Requests signed with a local function's
 * key are decided against its role when the layer enforces IAM (`layer.enforceIam`); the local
 * account's key is an administrator's, as on the other gateways.
 *
 * This module imports `pg` (through the engine's session): load it only where PostgreSQL is wanted.
 */
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../engines/account';
import type { PostgresConnection } from '../engines/postgres';
import { PostgresSession } from '../engines/postgres-session';
import { ContractLayer } from './contract-layer';
import type { ContractStats } from './contract-stats';
import { CallerDirectory } from './credentials';
import { LocalDataApiService, type DataApiCluster, type LocalDataApiServiceOptions } from './data-api-service';
import { EngineFacts } from './engine-facts';
import { startGatewayServer } from './gateway-server';

/** The cluster a local Data API serves by default, in the local region and account. */
export const LOCAL_CLUSTER_ARN = `arn:aws:rds:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:cluster:local`;

/** Its secret (a Secrets Manager ARN ends in six random characters). */
export const LOCAL_SECRET_ARN = `arn:aws:secretsmanager:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:secret:rds-db-credentials/local-AbCdEf`;

/** A cluster and the secrets that open it, on the gateway's PostgreSQL. */
export interface DataApiClusterSettings {
  readonly resourceArn: string;
  readonly secretArns: readonly string[];
  /** The database of a request that names none. @default - the PostgreSQL connection's */
  readonly database?: string;
}

/** Options of {@link startDataApiGateway}. */
export interface DataApiGatewayOptions {
  /** The PostgreSQL every cluster runs on. */
  readonly postgres: PostgresConnection;
  /** @default - one cluster, LOCAL_CLUSTER_ARN, opened by LOCAL_SECRET_ARN */
  readonly clusters?: readonly DataApiClusterSettings[];
  /** The layer to answer through (to share its IAM and its counts). @default - a layer of its own that takes every key as the administrator's */
  readonly layer?: ContractLayer;
  /** @default - the Data API's own limits */
  readonly service?: LocalDataApiServiceOptions;
}

/** A running local Data API. */
export interface DataApiGateway {
  /** Point `RDSDataClient`s here (`endpoint`, or `AWS_ENDPOINT_URL_RDS_DATA`). */
  readonly endpoint: string;
  /** What answers behind the layer: its test hook (`simulatePause`) and its open transactions. */
  readonly service: LocalDataApiService;
  readonly layer: ContractLayer;
  stats(): ContractStats;
  /** Stops the server and rolls back what is still open. */
  stop(): Promise<void>;
}

/**
 * Starts a Data API gateway on a free port of 127.0.0.1 in front of `options.postgres`.
 * @example
 * const postgres = await startPostgres();
 * const gateway = await startDataApiGateway({ postgres: postgres.connection });
 * const client = new RDSDataClient({ endpoint: gateway.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
 */
export async function startDataApiGateway(options: DataApiGatewayOptions): Promise<DataApiGateway> {
  const layer = options.layer ?? new ContractLayer({ callers: new CallerDirectory('admin'), facts: new EngineFacts({}) });
  const service = new LocalDataApiService(options.service);
  for (const cluster of options.clusters ?? [{ resourceArn: LOCAL_CLUSTER_ARN, secretArns: [LOCAL_SECRET_ARN] }]) service.serve(onPostgres(cluster, options.postgres));
  const server = await startGatewayServer({ layer, answer: service.answer, rest: 'rds-data' });
  return {
    endpoint: server.endpoint,
    service,
    layer,
    stats: () => layer.stats(),
    stop: async () => {
      await server.stop();
      await service.close();
    },
  };
}

function onPostgres(cluster: DataApiClusterSettings, postgres: PostgresConnection): DataApiCluster {
  return { ...cluster, connect: (database) => PostgresSession.connect({ ...postgres, database: database ?? cluster.database ?? postgres.database }) };
}
