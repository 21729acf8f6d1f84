/**
 * The demo on Lambda Managed Instances (`npm run demo -- --managed-instances`): the example app
 * synthesized with its context `managedInstances`, into an assembly of its own so that the
 * default one stays as it is, and what the run's functions did with it (how many invocations one
 * execution environment ran at once).
 */
import * as path from 'node:path';
import { EXAMPLE_PER_ENVIRONMENT_CONCURRENCY, MANAGED_INSTANCES_CONTEXT } from '../../example/managed-instances-context';
import type { EnsureSynthesizedOptions } from '../stack/cloud-assembly';
import type { LocalStack } from '../stack/runtime';

/** Where the Managed Instances assembly goes, in the checkout: beside what `eo local up` writes, which no synth takes as a source. */
export const MANAGED_INSTANCES_OUT_DIR = path.join('.eo', 'managed-instances.cdk.out');

/** The synth of the demo's app: the default assembly, or with `managedInstances`, its own. */
export function demoAssembly(managedInstances: boolean): Pick<EnsureSynthesizedOptions, 'outDir' | 'context'> {
  return managedInstances ? { outDir: MANAGED_INSTANCES_OUT_DIR, context: { [MANAGED_INSTANCES_CONTEXT]: 'true' } } : {};
}

/**
 * SQS pollers per mapping when the demo runs on Managed Instances and `--sqs-pollers` names none:
 * enough batches at once to fill one execution environment (AWS's pollers start at five batches
 * at once and scale up), so that invocations share an environment and not only in name.
 */
export const MANAGED_INSTANCES_SQS_POLLERS = EXAMPLE_PER_ENVIRONMENT_CONCURRENCY;

/** SQS pollers per mapping: those asked for, else the execution environments per function, or on Managed Instances {@link MANAGED_INSTANCES_SQS_POLLERS}. */
export function demoSqsPollers(options: { readonly sqsPollers?: number; readonly concurrency?: number; readonly managedInstances?: boolean }): number | undefined {
  return options.sqsPollers ?? (options.managedInstances === true ? MANAGED_INSTANCES_SQS_POLLERS : options.concurrency);
}

/** A function on Managed Instances in a run: its environments' concurrency, and the most invocations one of them ran at once. */
export interface ManagedInstancesFunctionReport {
  readonly perEnvironmentMaxConcurrency: number;
  readonly peakEnvironmentLoad: number;
}

/** Each function of the stack on Managed Instances, by logical id; empty for a stack in Lambda's default model. */
export function managedInstancesReport(stack: Pick<LocalStack, 'functionSpecs' | 'functions'>): Record<string, ManagedInstancesFunctionReport> {
  const report: Record<string, ManagedInstancesFunctionReport> = {};
  for (const [logicalId, spec] of stack.functionSpecs) {
    const fn = stack.functions.get(logicalId);
    if (spec.perEnvironmentMaxConcurrency === undefined || fn === undefined) continue;
    report[logicalId] = { perEnvironmentMaxConcurrency: spec.perEnvironmentMaxConcurrency, peakEnvironmentLoad: fn.stats().peakEnvironmentLoad };
  }
  return report;
}

/** The summary table's row for a run on Managed Instances: how many functions, and the most invocations at once in one environment. */
export function managedInstancesRows(report: Readonly<Record<string, ManagedInstancesFunctionReport>> | undefined): [string, string][] {
  const functions = Object.values(report ?? {});
  if (functions.length === 0) return [];
  const peak = Math.max(...functions.map((fn) => fn.peakEnvironmentLoad));
  const limit = Math.max(...functions.map((fn) => fn.perEnvironmentMaxConcurrency));
  return [['functions on Lambda Managed Instances', `${functions.length}; most invocations at once in one environment: ${peak} (of ${limit})`]];
}
