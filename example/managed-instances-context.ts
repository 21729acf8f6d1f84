/**
 * The context `managedInstances` of the example app (bin/app.ts): `cdk synth -c
 * managedInstances=true` puts every example consumer on Lambda Managed Instances
 * (example/managed-instances.ts), what `npm run demo -- --managed-instances` runs. Apart from the
 * stack's code so that the demo can name them without loading aws-cdk-lib.
 */

/** The context key. */
export const MANAGED_INSTANCES_CONTEXT = 'managedInstances';

/** Whether the context value asks for Managed Instances: `true` or `"true"` (what `-c` passes). @throws Error for any other value */
export function managedInstancesFromContext(value: unknown): boolean {
  if (value === undefined || value === false || value === 'false') return false;
  if (value === true || value === 'true') return true;
  throw new Error(`context ${MANAGED_INSTANCES_CONTEXT} must be true or false (given ${JSON.stringify(value)})`);
}

/**
 * Invocations one execution environment of an example consumer runs at once. Small on purpose:
 * two environments of each function (local mode's default) then hold several invocations each,
 * and the demo's faults land while others run beside them.
 */
export const EXAMPLE_PER_ENVIRONMENT_CONCURRENCY = 8;
