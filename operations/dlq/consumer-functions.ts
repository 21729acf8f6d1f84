/**
 * The stack's consumer functions by the sources their mappings read, from the template: the only
 * functions a DynamoDB Streams redrive may invoke. Pure: the caller resolves the template's values.
 */
import type { Template } from '../../aws/cloudformation/template';
import type { TryResolve } from './archive-topology';
import { consumerIdentityOf, functionSources } from './function-sources';
import { DEDUP_TABLE_VARIABLE } from '../../aws/consumer-env';
import type { ConsumerFunction, StackTopology } from './types';

/** One entry per function and mapping that invokes it. */
export function consumerFunctions(template: Template, resolve: TryResolve): ConsumerFunction[] {
  return functionSources(template, resolve).map((source) => ({
    functionName: source.functionName,
    ...consumerIdentityOf(source, resolve),
    sourceArn: source.sourceArn,
    mappingEnabled: source.enabled,
    ...(source.batchSize !== undefined && { batchSize: source.batchSize }),
    environment: resolvedVariables(source.variables, resolve),
  }));
}

/** The function's variables whose values resolve (a table's name, a queue's URL). */
function resolvedVariables(variables: Readonly<Record<string, unknown>>, resolve: TryResolve): Record<string, string> {
  return Object.fromEntries(Object.entries(variables).flatMap(([name, value]) => {
    const resolved = resolve(value);
    return resolved === undefined ? [] : [[name, resolved]];
  }));
}

/**
 * Where a consumer function's effects go: each of its variables that names a table of the stack
 * (`ORDERS_TABLE`), but its dedup table (`IDEMPOTENCY_TABLE`), which generations share and key
 * apart. What `eo compare` pairs across generations, and what the operator may scan for it.
 */
export function effectTablesOf(topology: Pick<StackTopology, 'tables'>, fn: ConsumerFunction): Record<string, string> {
  const tableNames = new Set(topology.tables.map((table) => table.name));
  return Object.fromEntries(Object.entries(fn.environment ?? {}).filter(([variable, value]) => variable !== DEDUP_TABLE_VARIABLE && tableNames.has(value)));
}
