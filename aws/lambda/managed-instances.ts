/**
 * Lambda Managed Instances: what AWS documents of a function placed on a capacity provider, read
 * by the constructs (which refuse what AWS refuses) and by local mode (which runs such a function
 * as AWS does, several invocations per execution environment). Sources: the Lambda Developer
 * Guide's "Lambda Managed Instances runtimes" (Node.js 22 and later) and "Node.js runtime for
 * Lambda Managed Instances" (64 concurrent requests per vCPU by default); the CloudFormation
 * reference of `AWS::Lambda::Function LambdaManagedInstancesCapacityProviderConfig` (the ranges).
 */

/** The limits of a function on a capacity provider. */
export const MANAGED_INSTANCES_LIMITS = {
  /** A function on Managed Instances has at least 2 GB of memory. */
  minMemoryMb: 2048,
  /** The first Node.js runtime that Managed Instances support. */
  minNodeMajor: 22,
  /** `PerExecutionEnvironmentMaxConcurrency`. */
  minPerEnvironmentMaxConcurrency: 1,
  maxPerEnvironmentMaxConcurrency: 1600,
  /** `ExecutionEnvironmentMemoryGiBPerVCpu`; 2 when the template gives none. */
  minMemoryGiBPerVCpu: 2,
  maxMemoryGiBPerVCpu: 8,
  defaultMemoryGiBPerVCpu: 2,
  /** A Node.js function's `PerExecutionEnvironmentMaxConcurrency` when it gives none: this many per vCPU of its environment. */
  nodeDefaultConcurrencyPerVCpu: 64,
} as const;

/** A function's settings that decide whether AWS takes it onto a capacity provider. */
export interface ManagedInstancesFunction {
  readonly memoryMb: number;
  /** The Lambda runtime, e.g. `nodejs24.x`. */
  readonly runtime: string;
  readonly perEnvironmentMaxConcurrency?: number;
  readonly memoryGiBPerVCpu?: number;
}

/**
 * What AWS would refuse in a function's Managed Instances settings, one sentence each; empty when
 * it would take them. The Node.js check applies to `nodejs<major>.x` runtimes; any other is refused
 * here, as this project runs only Node.js.
 */
export function managedInstancesProblems(fn: ManagedInstancesFunction): string[] {
  const limits = MANAGED_INSTANCES_LIMITS;
  const problems: string[] = [];
  if (!(fn.memoryMb >= limits.minMemoryMb)) problems.push(`a function on Lambda Managed Instances has at least ${limits.minMemoryMb} MB of memory (given ${fn.memoryMb})`);
  const major = nodeMajor(fn.runtime);
  if (major === undefined || major < limits.minNodeMajor) problems.push(`Lambda Managed Instances run Node.js ${limits.minNodeMajor} and later (given ${fn.runtime})`);
  const concurrency = fn.perEnvironmentMaxConcurrency;
  if (concurrency !== undefined && !inIntegerRange(concurrency, limits.minPerEnvironmentMaxConcurrency, limits.maxPerEnvironmentMaxConcurrency)) {
    problems.push(`PerExecutionEnvironmentMaxConcurrency is a whole number ${limits.minPerEnvironmentMaxConcurrency}..${limits.maxPerEnvironmentMaxConcurrency} (given ${concurrency})`);
  }
  const perVCpu = fn.memoryGiBPerVCpu;
  if (perVCpu !== undefined && !(perVCpu >= limits.minMemoryGiBPerVCpu && perVCpu <= limits.maxMemoryGiBPerVCpu)) {
    problems.push(`ExecutionEnvironmentMemoryGiBPerVCpu is ${limits.minMemoryGiBPerVCpu}..${limits.maxMemoryGiBPerVCpu} (given ${perVCpu})`);
  }
  return problems;
}

/**
 * The invocations one execution environment of the function runs at once: its
 * `PerExecutionEnvironmentMaxConcurrency`, or Node.js's default of 64 per vCPU, the vCPUs being its
 * memory over the memory per vCPU (at least one).
 */
export function perEnvironmentConcurrency(fn: Pick<ManagedInstancesFunction, 'memoryMb' | 'perEnvironmentMaxConcurrency' | 'memoryGiBPerVCpu'>): number {
  if (fn.perEnvironmentMaxConcurrency !== undefined) return fn.perEnvironmentMaxConcurrency;
  const perVCpu = fn.memoryGiBPerVCpu ?? MANAGED_INSTANCES_LIMITS.defaultMemoryGiBPerVCpu;
  const vCpus = Math.max(1, Math.floor(fn.memoryMb / 1024 / perVCpu));
  return vCpus * MANAGED_INSTANCES_LIMITS.nodeDefaultConcurrencyPerVCpu;
}

function nodeMajor(runtime: string): number | undefined {
  const match = /^nodejs(\d+)\.x$/.exec(runtime);
  return match ? Number(match[1]) : undefined;
}

function inIntegerRange(value: number, min: number, max: number): boolean {
  return Number.isInteger(value) && value >= min && value <= max;
}
