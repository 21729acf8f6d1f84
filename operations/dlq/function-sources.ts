/**
 * The stack's functions with the sources their event source mappings read, from the template:
 * what the runtime's DLQs (runtime-dlqs.ts) and the consumers' dedup windows (consumer-windows.ts)
 * are found from. Pure: the caller resolves the template's values.
 */
import { CONSUMER_ENV } from '../../aws/consumer-env';
import { mappingEnabled, ResourceType, resourcesOfType, type Template } from '../../aws/cloudformation/template';
import { dedupNamespace } from '../../lambdas/runtime/consumer/namespace';
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
  /** Whether the mapping polls (`Enabled`); a rebuilt generation's is off until it goes live. */
  readonly enabled: boolean;
}

/** One entry per function and mapping that invokes it; values that do not resolve leave the pair out. */
export function functionSources(template: Template, resolve: TryResolve): FunctionSource[] {
  const mappings = resourcesOfType(template, ResourceType.EVENT_SOURCE_MAPPING).map(({ properties }) => ({
    functionName: resolve(properties.FunctionName),
    sourceArn: resolve(properties.EventSourceArn),
    batchSize: Number(resolve(properties.BatchSize)) || undefined,
    enabled: mappingEnabled(properties),
  }));
  return resourcesOfType(template, ResourceType.FUNCTION).flatMap((fn) => {
    const variables = (fn.properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
    const functionName = resolve({ Ref: fn.logicalId });
    if (functionName === undefined) return [];
    return mappings.flatMap((mapping) => (mapping.functionName === functionName && mapping.sourceArn !== undefined ? [{ functionName, variables, sourceArn: mapping.sourceArn, enabled: mapping.enabled, ...(mapping.batchSize && { batchSize: mapping.batchSize }) }] : []));
  });
}

/** Who a function is: its consumer's name and generation, and the identity the runtime writes in dedup keys and DLQ context. */
export interface ConsumerIdentity {
  /** `CONSUMER_NAME`, or the function's name when it sets none. */
  readonly name: string;
  /** `CONSUMER_GENERATION`, 1 when unset (or not a whole number from 1, which the runtime refuses to start with). */
  readonly generation: number;
  /** The name at generation 1, `<name>@g<n>` after: what its dedup keys start with and its DLQ messages name. */
  readonly consumer: string;
}

/** The identity a function's variables declare. */
export function consumerIdentityOf(source: FunctionSource, resolve: TryResolve): ConsumerIdentity {
  const name = resolve(source.variables[CONSUMER_ENV.consumerName]) ?? source.functionName;
  const declared = Number(resolve(source.variables[CONSUMER_ENV.generation]));
  const generation = Number.isInteger(declared) && declared >= 1 ? declared : 1;
  return { name, generation, consumer: dedupNamespace(name, generation) };
}
