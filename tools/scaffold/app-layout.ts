/**
 * Where a team's CDK app keeps its stack, its handlers and its tests. Each of the three comes from
 * the first of: the command's flag (`--stack`, `--handlers`, `--tests`, relative to the working
 * directory), the `"effectively-once"` key of the app's package.json (relative to the app's root),
 * and the layout `cdk init` gives (`lib/<name>-stack.ts`, the one file of `lib/` that declares a
 * stack; `handlers/`, `lambda/`, `lambdas/`, `functions/` or `src/handlers/`; `test/` or `tests/`).
 * What none of them names is a problem that says which flag or key to set.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

/** The package.json key a team's app may set, e.g. `"effectively-once": { "stack": "lib/app-stack.ts" }`. */
export const LAYOUT_KEY = 'effectively-once';

/** The app's folders and files, relative to its root with `/` separators. */
export interface AppLayout {
  /** The folder with cdk.json. */
  readonly root: string;
  /** The TypeScript file of the stack the consumer is added to. */
  readonly stack: string;
  readonly handlers: string;
  readonly tests: string;
}

/** What the command line says; each one overrides the package.json key and the conventions. */
export interface LayoutFlags {
  readonly stack?: string;
  readonly handlers?: string;
  readonly tests?: string;
}

export type LayoutResult = { readonly ok: true; readonly layout: AppLayout } | { readonly ok: false; readonly problems: readonly string[] };

const HANDLER_FOLDERS = ['handlers', 'lambda', 'lambdas', 'functions', 'src/handlers'];
const TEST_FOLDERS = ['test', 'tests'];
const DECLARES_STACK = /\bclass\s+\w+\s+extends\s+(?:\w+\.)?Stack\b/;

/** The nearest folder, from `start` up, that holds a cdk.json; undefined when there is none. */
export function appRoot(start: string): string | undefined {
  for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'cdk.json'))) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** Finds the app's layout, or says what to pass. */
export function resolveLayout(root: string, flags: LayoutFlags, cwd: string = process.cwd()): LayoutResult {
  const { config, problems } = layoutConfig(root);
  const given = (key: keyof LayoutFlags): string | undefined => {
    const flag = flags[key];
    if (flag !== undefined) return toRelative(root, path.resolve(cwd, flag));
    const configured = config[key];
    return typeof configured === 'string' ? toRelative(root, path.resolve(root, configured)) : undefined;
  };
  const stack = pick('stack', given('stack'), () => conventionalStack(root), root, problems);
  const handlers = pick('handlers', given('handlers'), () => HANDLER_FOLDERS.find((dir) => isFolder(root, dir)), root, problems);
  const tests = pick('tests', given('tests'), () => TEST_FOLDERS.find((dir) => isFolder(root, dir)), root, problems);
  if (problems.length > 0 || stack === undefined || handlers === undefined || tests === undefined) return { ok: false, problems };
  return { ok: true, layout: { root, stack, handlers, tests } };
}

const WHAT: Readonly<Record<keyof LayoutFlags, string>> = {
  stack: 'the stack file (a .ts file that declares the stack the consumer joins)',
  handlers: 'the handlers folder',
  tests: 'the tests folder',
};

/** The given path checked, or the convention's; a problem naming the flag and the key when neither holds. */
function pick(key: keyof LayoutFlags, given: string | undefined, convention: () => string | undefined, root: string, problems: string[]): string | undefined {
  const hint = `pass --${key} <path> or set "${LAYOUT_KEY}": { "${key}": "<path>" } in package.json`;
  if (given?.startsWith('..') || (given !== undefined && path.isAbsolute(given))) {
    problems.push(`${WHAT[key]} must be inside the app (${root}); given ${given}`);
    return undefined;
  }
  if (given !== undefined) {
    const problem = key === 'stack' ? stackFileProblem(root, given) : folderProblem(root, given);
    if (problem !== undefined) problems.push(`${problem}: ${hint}`);
    return problem === undefined ? given : undefined;
  }
  const found = convention();
  if (found === undefined) problems.push(`could not find ${WHAT[key]} in ${root}${key === 'stack' ? ` (${stackCandidates(root)})` : ''}: ${hint}`);
  return found;
}

function layoutConfig(root: string): { config: Record<string, unknown>; problems: string[] } {
  const manifest = path.join(root, 'package.json');
  if (!existsSync(manifest)) return { config: {}, problems: [] };
  const value = (JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>)[LAYOUT_KEY];
  if (value === undefined) return { config: {}, problems: [] };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { config: {}, problems: [`"${LAYOUT_KEY}" in package.json must be an object such as { "stack": "lib/app-stack.ts", "handlers": "handlers", "tests": "test" }`] };
  return { config: value as Record<string, unknown>, problems: [] };
}

function stackFileProblem(root: string, file: string): string | undefined {
  const full = path.join(root, file);
  if (!existsSync(full) || !statSync(full).isFile() || !file.endsWith('.ts')) return `${file} is not a TypeScript file of the app`;
  if (!DECLARES_STACK.test(readFileSync(full, 'utf8'))) return `${file} declares no class that extends Stack`;
  return undefined;
}

/** A told folder is made if missing; a file in its place is a problem. */
function folderProblem(root: string, dir: string): string | undefined {
  const full = path.join(root, dir);
  return existsSync(full) && !statSync(full).isDirectory() ? `${dir} is a file, not a folder` : undefined;
}

/** The one file of lib/ that declares a stack, as `cdk init` lays an app out. */
function conventionalStack(root: string): string | undefined {
  const found = stackFiles(root);
  return found.length === 1 ? found[0] : undefined;
}

function stackFiles(root: string): string[] {
  if (!isFolder(root, 'lib')) return [];
  const files = readdirSync(path.join(root, 'lib')).filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
  return files.map((file) => `lib/${file}`).filter((file) => DECLARES_STACK.test(readFileSync(path.join(root, file), 'utf8')));
}

function stackCandidates(root: string): string {
  const found = stackFiles(root);
  return found.length === 0 ? 'no file of lib/ declares a class that extends Stack' : `more than one file of lib/ declares a stack: ${found.join(', ')}`;
}

function isFolder(root: string, dir: string): boolean {
  const full = path.join(root, dir);
  return existsSync(full) && statSync(full).isDirectory();
}

function toRelative(root: string, absolutePath: string): string {
  return path.relative(root, absolutePath).split(path.sep).join('/');
}
