import { Token } from 'aws-cdk-lib';
import type { CfnFunction, ICapacityProvider } from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { MANAGED_INSTANCES_LIMITS, managedInstancesProblems } from '../aws/lambda/managed-instances';

export { MANAGED_INSTANCES_LIMITS } from '../aws/lambda/managed-instances';

/**
 * Places a consumer's function on Lambda Managed Instances: EC2 instances of a capacity provider,
 * in its VPC, where each execution environment runs several invocations at once in one Node.js
 * process and a timeout does not stop the code. The runtime is built for that (per-invocation
 * metrics, logs, concurrency and time budget; `idempotentEffect`'s lock held for `lockMs`;
 * `HandlerContext.signal` at the deadline): docs/reliability.md, "Lambda Managed Instances".
 */
export interface ManagedInstancesProps {
  /**
   * The capacity provider (aws-cdk-lib's `CapacityProvider`, or one imported by ARN). Its subnets
   * must reach DynamoDB, SQS and SNS (and the RDS Data API and Secrets Manager for a SQL consumer):
   * a NAT gateway or VPC endpoints.
   */
  readonly capacityProvider: ICapacityProvider;
  /**
   * The invocations one execution environment runs at once (`PerExecutionEnvironmentMaxConcurrency`).
   * @default - AWS's default for Node.js: 64 per vCPU of the environment
   * @range 1..1600, a whole number
   */
  readonly perEnvironmentMaxConcurrency?: number;
  /**
   * Memory per vCPU of an execution environment, in GiB (`ExecutionEnvironmentMemoryGiBPerVCpu`).
   * @default 2
   * @range 2..8
   */
  readonly memoryGiBPerVCpu?: number;
}

/** A consumer's memory when it names none: the least a function on Managed Instances may have. */
export const MANAGED_INSTANCES_DEFAULT_MEMORY_MB = MANAGED_INSTANCES_LIMITS.minMemoryMb;

/**
 * Throws with every setting AWS would refuse for a function on a capacity provider: memory under
 * 2048 MB, a runtime before Node.js 22, a concurrency or memory per vCPU out of range. Unresolved
 * tokens pass: their values are only known at deploy time.
 */
export function checkManagedInstances(props: ManagedInstancesProps, memoryMb: number, runtime: string): void {
  const settings = {
    memoryMb: Token.isUnresolved(memoryMb) ? MANAGED_INSTANCES_LIMITS.minMemoryMb : memoryMb,
    runtime,
    perEnvironmentMaxConcurrency: resolved(props.perEnvironmentMaxConcurrency),
    memoryGiBPerVCpu: resolved(props.memoryGiBPerVCpu),
  };
  const problems = managedInstancesProblems(settings);
  if (problems.length > 0) throw new Error(`managedInstances: ${problems.join('; ')}`);
}

/** Sets the function's `CapacityProviderConfig`, as aws-cdk-lib's `CapacityProvider.addFunction` does, for a provider made here or imported. */
export function placeOnCapacityProvider(fn: NodejsFunction, props: ManagedInstancesProps): void {
  const cfn = fn.node.defaultChild as CfnFunction;
  cfn.capacityProviderConfig = {
    lambdaManagedInstancesCapacityProviderConfig: {
      capacityProviderArn: props.capacityProvider.capacityProviderArn,
      perExecutionEnvironmentMaxConcurrency: props.perEnvironmentMaxConcurrency,
      executionEnvironmentMemoryGiBPerVCpu: props.memoryGiBPerVCpu,
    },
  };
}

function resolved(value: number | undefined): number | undefined {
  return value === undefined || Token.isUnresolved(value) ? undefined : value;
}
