/**
 * `eo new consumer`: a consumer in one command. Names what this folder exports; the rest is
 * internal.
 */
import { planConsumer, type Plan, type PlanOptions } from './plan';
import { applyChanges } from './writer';

export { DEFAULT_PATTERN, Pattern, PATTERNS, Source, SOURCES } from './options';
export type { ConsumerRequest } from './options';
export { nameProblems, RESERVED_NAMES } from './names';
export { planConsumer } from './plan';
export type { FileChange, Plan, PlanOptions } from './plan';
export { formatReport, jsonReport, nextSteps } from './report';
export { applyChanges, WriteError } from './writer';
export { MARKERS, addToRegistry, registryProblems } from './registry';
export { existingNames, StackLoadError } from './existing';
export type { ExistingNames } from './existing';

/** Plans the consumer and, unless refused or a dry run, writes it. @throws WriteError when a write fails (after rolling back) */
export function newConsumer(request: Parameters<typeof planConsumer>[0], options: PlanOptions & { readonly dryRun?: boolean }): Plan {
  const plan = planConsumer(request, options);
  if (plan.ok && !options.dryRun) applyChanges(options.root, plan.changes);
  return plan;
}
