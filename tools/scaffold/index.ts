/**
 * `eo new consumer`: a consumer in one command. Names what this folder exports; the rest is
 * internal.
 */
import { planAppConsumer, type AppPlanOptions } from './app-plan';
import type { ConsumerRequest } from './options';
import { planConsumer, type Plan, type PlanOptions } from './plan';
import { applyChanges } from './writer';

export { DEFAULT_PATTERN, Pattern, PATTERNS, Source, SOURCES } from './options';
export type { ConsumerRequest } from './options';
export { nameProblems, RESERVED_NAMES } from './names';
export { planConsumer } from './plan';
export type { ByHand, FileChange, Plan, PlanOptions } from './plan';
export { planAppConsumer } from './app-plan';
export type { AppPlanOptions } from './app-plan';
export { appRoot, LAYOUT_KEY, resolveLayout } from './app-layout';
export type { AppLayout, LayoutFlags } from './app-layout';
export { addToStack, STACK_MARKER } from './stack-edit';
export { formatReport, jsonReport, nextSteps } from './report';
export { applyChanges, WriteError } from './writer';
export { MARKERS, addToRegistry, registryProblems } from './registry';
export { existingNames, StackLoadError } from './existing';
export type { ExistingNames } from './existing';

/** Plans the consumer in this repository and, unless refused or a dry run, writes it. @throws WriteError when a write fails (after rolling back) */
export function newConsumer(request: Parameters<typeof planConsumer>[0], options: PlanOptions & { readonly dryRun?: boolean }): Plan {
  const plan = planConsumer(request, options);
  if (plan.ok && !options.dryRun) applyChanges(options.root, plan.changes);
  return plan;
}

/** Plans the consumer in a team's app and, unless refused or a dry run, writes it. @throws WriteError when a write fails (after rolling back) */
export function newAppConsumer(request: ConsumerRequest, options: AppPlanOptions & { readonly dryRun?: boolean }): Plan {
  const plan = planAppConsumer(request, options);
  if (plan.ok && !options.dryRun) applyChanges(options.root, plan.changes);
  return plan;
}
