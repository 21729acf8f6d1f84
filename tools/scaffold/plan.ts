/**
 * Everything a consumer's generation will do, decided before anything is written: the files to
 * create, the registry edit, and every reason to refuse. A plan with problems writes nothing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { constructIdsOf, renderConstruct } from './construct-template';
import { existingNames, StackLoadError, type ExistingNames } from './existing';
import { renderHandler } from './handler-template';
import { absolute, consumerFiles, REGISTRY_FILE } from './layout';
import { nameProblems } from './names';
import { Pattern, type ConsumerRequest } from './options';
import { addToRegistry, registryProblems } from './registry';
import { sqlNameProblems } from './sql-parts';
import { renderTest } from './test-template';

/** One file the generation writes. */
export interface FileChange {
  /** Relative to the root, with `/` separators. */
  readonly path: string;
  readonly kind: 'create' | 'update';
  readonly content: string;
  /** For an update: the content the plan was made from; the write refuses if the file changed since. */
  readonly previous?: string;
  /** What the file is, for the report. */
  readonly description: string;
}

/** Lines to add to a file by hand, and why the generator did not. */
export interface ByHand {
  readonly file: string;
  readonly reason: string;
  readonly lines: readonly string[];
}

/** The outcome of planning: the changes, or why there are none. */
export type Plan =
  | {
      readonly ok: true;
      readonly request: ConsumerRequest;
      readonly changes: readonly FileChange[];
      readonly constructIds: readonly string[];
      /** Lines the user adds to a file by hand, when the generator found no safe place for them (a team's app). */
      readonly byHand?: ByHand;
      /** The steps after generation. @default nextSteps(request), this repository's */
      readonly next?: readonly string[];
      /** What the stack gains, in words. @default additionsOf(request), this repository's */
      readonly gains?: readonly string[];
      /** The page on the pattern. @default PATTERN_LABEL[request.pattern].doc, this repository's path */
      readonly doc?: string;
    }
  | { readonly ok: false; readonly request: ConsumerRequest; readonly problems: readonly string[] };

/** How to read what exists; tests replace the stack loader. */
export interface PlanOptions {
  readonly root: string;
  /** @default existingNames (builds the stack of `root`) */
  readonly existing?: (root: string) => ExistingNames;
}

/** Checks the request against the repository and, when nothing is in the way, lists the changes. */
export function planConsumer(request: ConsumerRequest, options: PlanOptions): Plan {
  const invalid = [...nameProblems(request.name), ...sqlNameProblems(request)];
  if (invalid.length > 0) return { ok: false, request, problems: invalid };
  const registryPath = absolute(options.root, REGISTRY_FILE);
  const registry = existsSync(registryPath) ? readFileSync(registryPath, 'utf8') : undefined;
  const problems = [...fileProblems(request, options.root), ...(registry === undefined ? [`${REGISTRY_FILE} is missing: restore it from git`] : registryProblems(registry))];
  problems.push(...stackProblems(request, options));
  if (problems.length > 0 || registry === undefined) return { ok: false, request, problems };
  return { ok: true, request, changes: changesFor(request, registry), constructIds: constructIdsOf(request) };
}

function fileProblems(request: ConsumerRequest, root: string): string[] {
  return Object.values(consumerFiles(request.name))
    .filter((file) => existsSync(absolute(root, file)))
    .map((file) => `${file} already exists: choose another name, or delete the file if it is a leftover`);
}

function stackProblems(request: ConsumerRequest, options: PlanOptions): string[] {
  let existing: ExistingNames;
  try {
    existing = (options.existing ?? existingNames)(options.root);
  } catch (error) {
    if (error instanceof StackLoadError) return [error.message];
    throw error;
  }
  const problems: string[] = [];
  if (existing.consumerNames.has(request.name)) problems.push(`the stack already has a consumer named ${request.name}`);
  const taken = constructIdsOf(request).filter((id) => existing.constructIds.has(id));
  if (taken.length > 0) {
    problems.push(`the stack already has construct id${taken.length > 1 ? 's' : ''} ${taken.join(', ')}, which this consumer would add: choose another name`);
  }
  return problems;
}

function changesFor(request: ConsumerRequest, registry: string): FileChange[] {
  const files = consumerFiles(request.name);
  return [
    { path: files.handler, kind: 'create', content: renderHandler(request), description: `the handler (${request.pattern}), using the runtime` },
    { path: files.construct, kind: 'create', content: renderConstruct(request), description: 'its infrastructure: source, DLQ, alarms, function, state' },
    { path: files.test, kind: 'create', content: renderTest(request), description: `its test on the local engines${request.pattern === Pattern.SQL ? ' and PostgreSQL' : ''}: a duplicate and a poison record` },
    { path: REGISTRY_FILE, kind: 'update', content: addToRegistry(registry, request.name), previous: registry, description: 'registers it in the stack' },
  ];
}
