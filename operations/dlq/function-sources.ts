/**
 * The stack's functions with the sources their event source mappings read, from the template:
 * what the runtime's DLQs (runtime-dlqs.ts) and the consumers' dedup windows (consumer-windows.ts)
 * are found from. Pure: the caller resolves the template's values.
 */
import { ResourceType, resourcesOfType, type Template } from '../../aws/cloudformation/template';
import type { TryResolve } from './archive-topology';

/** A function of the stack and one source a mapping of it reads. */
export interface FunctionSource {
  /** The function's name, as a mapping's `FunctionName` resolves. */
  readonly functionName: string;
  /** Its environment variables, unresolved. */
  readonly variables: Readonly<Record<string, unknown>>;
  /** The ARN of the queue or stream the mapping reads. */
  readonly sourceArn: string;
  /** The mapping's `BatchSize`, when it sets one. */
  readonly batchSize?: number;
}

/** One entry per function and mapping that invokes it; values that do not resolve leave the pair out. */
export function functionSources(template: Template, resolve: TryResolve): FunctionSource[] {
  const mappings = resourcesOfType(template, ResourceType.EVENT_SOURCE_MAPPING).map(({ properties }) => ({ functionName: resolve(properties.FunctionName), sourceArn: resolve(properties.EventSourceArn), batchSize: Number(resolve(properties.BatchSize)) || undefined }));
  return resourcesOfType(template, ResourceType.FUNCTION).flatMap((fn) => {
    const variables = (fn.properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
    const functionName = resolve({ Ref: fn.logicalId });
    if (functionName === undefined) return [];
    return mappings.flatMap((mapping) => (mapping.functionName === functionName && mapping.sourceArn !== undefined ? [{ functionName, variables, sourceArn: mapping.sourceArn, ...(mapping.batchSize && { batchSize: mapping.batchSize }) }] : []));
  });
}
