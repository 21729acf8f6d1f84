/** What `eo new consumer` prints: what it wrote, what the stack gains, and what to do next. */
import { additionsOf } from './construct-template';
import { Pattern, PATTERN_LABEL, Source, SOURCE_LABEL, type ConsumerRequest } from './options';
import type { ByHand, Plan } from './plan';

/** The steps after generation, as commands with what each shows. */
export function nextSteps(request: ConsumerRequest): string[] {
  const handler = `example/handlers/${request.name}.ts`;
  const edit =
    request.source === Source.DYNAMODB_STREAM
      ? `Replace the placeholder item schema in ${handler} with your source table's attributes (and the items in its test).`
      : `Replace the placeholder event type (${request.name}.event) and payload schema in ${handler} with what your producer sends (and the events in its test).`;
  const engines = request.pattern === Pattern.SQL ? 'the local engines and a real PostgreSQL behind the local Data API' : 'the local engines';
  return [
    edit,
    `npx jest test/example/generated/${request.name}.int.test.ts   # the handler on ${engines}: duplicate and poison`,
    'npx tsc --noEmit && npx cdk synth --quiet   # one more event source mapping, with its DLQ depth alarm',
    'npm run docs   # regenerates docs/architecture.md; a test fails while it is stale',
    'npx cdk deploy -c alarmEmail=you@example.com',
  ];
}

/** The human-readable report of a plan, applied or not. */
export function formatReport(plan: Plan, options: { dryRun: boolean }): string {
  if (!plan.ok) {
    return [`eo new consumer: refused ${plan.request.name}; nothing was changed.`, ...plan.problems.map((problem) => `  - ${problem}`)].join('\n');
  }
  const { request } = plan;
  const width = Math.max(...plan.changes.map((change) => change.path.length));
  const verb = options.dryRun ? 'would write' : 'wrote';
  return [
    `${options.dryRun ? 'Dry run: ' : ''}${request.name} (${SOURCE_LABEL[request.source]}, ${PATTERN_LABEL[request.pattern].title}): ${verb}`,
    ...plan.changes.map((change) => `  ${change.kind.padEnd(6)}  ${change.path.padEnd(width)}  ${change.description}`),
    '',
    'The stack gains:',
    ...(plan.gains ?? additionsOf(request)).map((addition) => `  ${addition}`),
    ...byHandLines(plan.byHand),
    '',
    'Next:',
    ...(plan.next ?? nextSteps(request)).map((step, index) => `  ${index + 1}. ${step}`),
    '',
    `How the pattern works, what it costs and where it can fail: ${plan.doc ?? PATTERN_LABEL[request.pattern].doc}`,
  ].join('\n');
}

/** The lines the user adds by hand, with where and why; none when the generator added them. */
function byHandLines(byHand: ByHand | undefined): string[] {
  if (byHand === undefined) return [];
  return ['', `Add to ${byHand.file} by hand (${byHand.reason}):`, ...byHand.lines.map((line) => `  ${line}`)];
}

/** The machine-readable report (`--json`). */
export function jsonReport(plan: Plan, options: { dryRun: boolean }): Record<string, unknown> {
  if (!plan.ok) return { ok: false, request: plan.request, problems: plan.problems, changed: false };
  return {
    ok: true,
    request: plan.request,
    dryRun: options.dryRun,
    files: plan.changes.map((change) => ({ path: change.path, kind: change.kind })),
    constructIds: plan.constructIds,
    ...(plan.byHand ? { byHand: plan.byHand } : {}),
    next: plan.next ?? nextSteps(plan.request),
    doc: plan.doc ?? PATTERN_LABEL[plan.request.pattern].doc,
  };
}
