/**
 * A template function on Lambda Managed Instances (its `CapacityProviderConfig`), as local mode
 * runs it: each execution environment takes several invocations at once. The capacity provider
 * itself (its instances, subnets, scaling) is not emulated: local mode needs only the function's
 * side of it, and refuses what AWS would refuse there.
 */
import { managedInstancesProblems, perEnvironmentConcurrency } from '../../aws/lambda/managed-instances';
import { numberProp, type NamedResource } from '../../aws/cloudformation/template';

/** The template's `CapacityProviderConfig.LambdaManagedInstancesCapacityProviderConfig`, where the function has one. */
function capacityProviderConfig(fn: NamedResource): Record<string, unknown> | undefined {
  const config = fn.properties.CapacityProviderConfig as { LambdaManagedInstancesCapacityProviderConfig?: unknown } | undefined;
  const managed = config?.LambdaManagedInstancesCapacityProviderConfig;
  return typeof managed === 'object' && managed !== null ? (managed as Record<string, unknown>) : undefined;
}

/**
 * The invocations each execution environment of `fn` runs at once when it is on Managed Instances
 * (the template's `PerExecutionEnvironmentMaxConcurrency`, or Node.js's default for its memory);
 * `undefined` for a function of Lambda's default model.
 *
 * @throws Error naming the function and what AWS would refuse (memory under 2 GB, Node.js before 22, a setting out of range)
 */
export function managedInstancesConcurrency(fn: NamedResource, memoryMb: number, runtime: string): number | undefined {
  const config = capacityProviderConfig(fn);
  if (config === undefined) return undefined;
  const settings = {
    memoryMb,
    runtime,
    perEnvironmentMaxConcurrency: numberProp(config, 'PerExecutionEnvironmentMaxConcurrency'),
    memoryGiBPerVCpu: numberProp(config, 'ExecutionEnvironmentMemoryGiBPerVCpu'),
  };
  const problems = managedInstancesProblems(settings);
  if (problems.length > 0) throw new Error(`function ${fn.logicalId} cannot run on Lambda Managed Instances: ${problems.join('; ')}`);
  return perEnvironmentConcurrency(settings);
}
