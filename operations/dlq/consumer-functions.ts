/**
 * The stack's consumer functions by the sources their mappings read, from the template: the only
 * functions a DynamoDB Streams redrive may invoke. Pure: the caller resolves the template's values.
 */
import type { Template } from '../../aws/cloudformation/template';
import type { TryResolve } from './archive-topology';
import { consumerIdentityOf, functionSources } from './function-sources';
import type { ConsumerFunction } from './types';

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
