/**
 * The context `sqlCluster` of the example app (bin/app.ts): an existing cluster for the SQL
 * effects database, by ARN, as `cdk deploy -c sqlCluster='{"clusterArn": ..., "secretArn": ...,
 * "secretKeyArn": ...}'` gives it (a string) or cdk.json does (an object).
 */
import type { SqlClusterArns } from './event-pipeline-stack';

/** The context key. */
export const SQL_CLUSTER_CONTEXT = 'sqlCluster';

/**
 * The cluster the context value names, or undefined when it is not set.
 *
 * @throws Error naming the expected shape when the value is not JSON, or not that shape
 */
export function sqlClusterFromContext(value: unknown): SqlClusterArns | undefined {
  if (value === undefined) return undefined;
  const parsed: unknown = typeof value === 'string' ? parsedOrUndefined(value) : value;
  if (isSqlClusterArns(parsed)) return parsed;
  throw new Error(`context ${SQL_CLUSTER_CONTEXT} must be {"clusterArn": ..., "secretArn": ..., "secretKeyArn"?: ...}, as JSON (given ${JSON.stringify(value)})`);
}

function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isSqlClusterArns(value: unknown): value is SqlClusterArns {
  if (typeof value !== 'object' || value === null) return false;
  const { clusterArn, secretArn, secretKeyArn } = value as Record<string, unknown>;
  return typeof clusterArn === 'string' && typeof secretArn === 'string' && (secretKeyArn === undefined || typeof secretKeyArn === 'string');
}
