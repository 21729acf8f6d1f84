/**
 * The dedup window of each consumer of the stack, by the sources it reads, from the template: the
 * `DEDUP_TTL_SECONDS` the constructs set on its function (aws/consumer-env.ts), for each mapping
 * that invokes it. `dlq redrive` holds a copy it would republish to a source against the shortest
 * window among that source's consumers: every one of them gets the copy. Each window also names
 * the consumer's dedup table (DynamoDB's, or a SQL consumer's) and envelope, for `dlq inspect` to
 * find what was applied already.
 * Pure: the caller resolves the template's values.
 */
import { CONSUMER_ENV, DEDUP_TABLE_VARIABLE, SQL_ENV } from '../../aws/consumer-env';
import type { Template } from '../../aws/cloudformation/template';
import { envelopeFromEnv, type EnvelopeOptions } from '../../lambdas/runtime/decoding/envelope-decoders';
import type { TryResolve } from './archive-topology';
import { consumerIdentityOf, functionSources, type FunctionSource } from './function-sources';
import type { ConsumerWindow, SqlDedupStore } from './types';

/** One window per function that declares a dedup TTL and per mapping that invokes it. */
export function consumerWindows(template: Template, resolve: TryResolve): ConsumerWindow[] {
  return functionSources(template, resolve).flatMap((source) => {
    const { variables, sourceArn } = source;
    const dedupTtlSeconds = Number(resolve(variables[CONSUMER_ENV.dedupTtlSeconds]));
    if (!Number.isInteger(dedupTtlSeconds) || dedupTtlSeconds <= 0) return [];
    const dedupTable = resolve(variables[DEDUP_TABLE_VARIABLE]);
    const envelope = envelopeOf(variables, resolve);
    const sqlDedup = sqlDedupOf(source, resolve);
    return [{ consumer: consumerIdentityOf(source, resolve).consumer, sourceArn, dedupTtlSeconds, ...(dedupTable && { dedupTable }), ...(envelope && { envelope }), ...(sqlDedup && { sqlDedup }) }];
  });
}

/** Where the function keeps SQL dedup rows, when `SqlEffectDatabase.connect` wired it; the values that resolve. */
function sqlDedupOf(source: FunctionSource, resolve: TryResolve): SqlDedupStore | undefined {
  const table = resolve(source.variables[SQL_ENV.dedupTable]);
  if (table === undefined) return undefined;
  const [resourceArn, secretArn, database] = [SQL_ENV.resourceArn, SQL_ENV.secretArn, SQL_ENV.database].map((name) => resolve(source.variables[name]));
  return { functionName: source.functionName, table, ...(resourceArn && { resourceArn }), ...(secretArn && { secretArn }), ...(database && { database }) };
}

/** The envelope the function's variables declare; none for our own, or for one the runtime would refuse. */
function envelopeOf(variables: Readonly<Record<string, unknown>>, resolve: TryResolve): EnvelopeOptions | undefined {
  try {
    return envelopeFromEnv({ [CONSUMER_ENV.envelope]: resolve(variables[CONSUMER_ENV.envelope]), [CONSUMER_ENV.eventIdPath]: resolve(variables[CONSUMER_ENV.eventIdPath]) });
  } catch {
    // The function itself refuses to start with it: it applied nothing that could be looked up.
    return undefined;
  }
}
