/**
 * A SQL consumer's dedup rows, read as its runtime reads them: `sqlStrategy(...).applied()` over a
 * `DataApiSession` on the cluster, secret, database and dedup table its function's environment
 * names (`SQL_ENV`), so that the key (`<consumer>#<eventId>`), the table's quoting and the Data
 * API's failure classification are the runtime's own. A row exists only once its event's effects
 * committed with it, in one transaction: what `dlq inspect` labels "already applied".
 */
import { GetFunctionConfigurationCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import type { RDSDataClient } from '@aws-sdk/client-rds-data';
import { SQL_ENV } from '../../aws/consumer-env';
import { DataApiSession } from '../../lambdas/runtime/stores/postgres/data-api-session';
import { sqlStrategy } from '../../lambdas/runtime/stores/postgres/sql-strategy';
import { DlqOperationError } from './errors';
import { needing } from './permissions';
import type { DlqClients, SqlDedupStore } from './types';

/** Event ids per `SELECT`: its `IN` list's parameters stay well under the Data API's request size. */
export const SQL_DEDUP_READ_CHUNK = 100;

/** A store whose every setting is known. */
type ResolvedStore = Required<SqlDedupStore>;

/**
 * Which of `eventIds` have a dedup row of `consumer` (its name at its generation, `<name>@g<n>`
 * from 2, as its DLQ messages name it) in `store`.
 * @throws DlqOperationError when there is no Data API client, or the function's settings cannot be found
 * @throws the runtime's SQL errors (a refusal, a transient failure past its retries) when the read fails
 */
export async function readSqlApplied(clients: Pick<DlqClients, 'rdsData' | 'lambda'>, store: SqlDedupStore, consumer: string, eventIds: readonly string[]): Promise<Set<string>> {
  if (clients.rdsData === undefined) throw new DlqOperationError('no RDS Data API client is configured (a local stack without an Aurora cluster?)');
  const resolved = await resolvedStore(clients.lambda, store);
  const found = new Set<string>();
  const unique = [...new Set(eventIds)];
  for (let start = 0; start < unique.length; start += SQL_DEDUP_READ_CHUNK) {
    for (const eventId of await appliedOf(clients.rdsData, resolved, consumer, unique.slice(start, start + SQL_DEDUP_READ_CHUNK))) found.add(eventId);
  }
  return found;
}

/**
 * The runtime's own read. The consumer's namespace is given whole as its name, at generation 1:
 * `dedupNamespace` leaves a name as it is at generation 1, so the keys are `<name>@g<n>#<eventId>`.
 */
async function appliedOf(client: RDSDataClient, store: ResolvedStore, consumer: string, eventIds: readonly string[]): Promise<ReadonlySet<string>> {
  const session = new DataApiSession({ client, resourceArn: store.resourceArn, secretArn: store.secretArn, database: store.database });
  const { applied } = sqlStrategy({ session, dedup: { table: store.table, consumer } });
  if (applied === undefined) throw new DlqOperationError('the SQL strategy reads no dedup rows');
  return applied(eventIds);
}

/** The store with the settings the template left unresolved read from the function's configuration. */
export async function resolvedStore(lambda: LambdaClient, store: SqlDedupStore): Promise<ResolvedStore> {
  if (store.resourceArn !== undefined && store.secretArn !== undefined && store.database !== undefined) return store as ResolvedStore;
  const variables = await functionVariables(lambda, store.functionName);
  const setting = (given: string | undefined, name: string): string => {
    const value = given ?? variables[name];
    if (value === undefined || value === '') throw new DlqOperationError(`${store.functionName} names no ${name} in its environment: its SQL dedup rows cannot be read`);
    return value;
  };
  return { ...store, resourceArn: setting(store.resourceArn, SQL_ENV.resourceArn), secretArn: setting(store.secretArn, SQL_ENV.secretArn), database: setting(store.database, SQL_ENV.database) };
}

async function functionVariables(lambda: LambdaClient, functionName: string): Promise<Readonly<Record<string, string>>> {
  const configuration = await needing({ action: 'lambda:GetFunctionConfiguration', resource: `function ${functionName}` }, () => lambda.send(new GetFunctionConfigurationCommand({ FunctionName: functionName })));
  return configuration.Environment?.Variables ?? {};
}
