/**
 * Finds the synthesized stack of a CDK app, synthesizing first when the assembly is missing or
 * older than the app's sources, so that local mode always runs what `cdk deploy` would ship. The
 * app is any CDK project: the folder with its `cdk.json` (the working directory unless given),
 * its assembly in `<root>/cdk.out` unless given, synthesized by that project's own CDK CLI.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeUnbundled, unbundledFunctions } from './bundled-assets';
import type { Template } from '../../aws/cloudformation/template';

/**
 * This repository's root when the code runs from its source (emulator/stack/ is two levels below
 * it), for the repository's own tests and tools. Local mode does not use it: its project is
 * {@link cdkProject}'s.
 */
export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
/** The folder, in a project's root, where the CDK CLI writes the assembly unless told otherwise. */
export const DEFAULT_OUT_DIR_NAME = 'cdk.out';
/** This repository's assembly directory. */
export const DEFAULT_OUT_DIR = path.join(PROJECT_ROOT, DEFAULT_OUT_DIR_NAME);
/** The file that makes a folder a CDK project: it names the app that `cdk synth` runs. */
export const CDK_JSON = 'cdk.json';
/**
 * Folders that hold no source of an app, at any depth: dependencies, version control, build
 * output, the CDK CLI's default assembly, and what `eo local up` writes.
 */
const NOT_SOURCE: ReadonlySet<string> = new Set(['node_modules', '.git', 'dist', DEFAULT_OUT_DIR_NAME, '.eo']);
const SYNTH_TIMEOUT_MS = 300_000;

/** The stack local mode runs. */
export interface SynthesizedStack {
  readonly stackName: string;
  readonly template: Template;
  /** The assembly directory; asset paths in resource metadata are relative to it. */
  readonly outDir: string;
  /** The folder `cdk synth` ran in. @default - the working directory */
  readonly projectRoot?: string;
}

/** Thrown when there is no usable assembly; the message says what to run. */
export class CloudAssemblyError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'CloudAssemblyError';
  }
}

/** A CDK app as local mode sees it: where it is synthesized from, and where its assembly goes. */
export interface CdkProject {
  /** The folder with the app's `cdk.json`, where `cdk synth` runs. */
  readonly root: string;
  /** The cloud assembly directory (`cdk synth --output`). */
  readonly outDir: string;
}

/** Where a CDK app and its assembly are; relative paths are relative to the working directory. */
export interface CdkProjectOptions {
  /** The app's folder, the one with its `cdk.json`. @default - the working directory */
  readonly app?: string;
  /** The cloud assembly directory. @default - `cdk.out` in the app's folder */
  readonly out?: string;
}

/**
 * The CDK app in `app` and its assembly directory.
 * @throws CloudAssemblyError when the folder has no cdk.json, naming it and the fix
 */
export function cdkProject(options: CdkProjectOptions = {}): CdkProject {
  const root = path.resolve(options.app ?? process.cwd());
  if (!existsSync(path.join(root, CDK_JSON))) {
    throw new CloudAssemblyError(`${root} holds no ${CDK_JSON}, so it is not a CDK app: run this in your CDK app's folder (the one with ${CDK_JSON}), or name that folder with --app <dir>`);
  }
  return { root, outDir: path.resolve(options.out ?? path.join(root, DEFAULT_OUT_DIR_NAME)) };
}

/** The assembly directory of the project in `root`, by default. */
function defaultOutDir(root: string): string {
  return path.join(root, DEFAULT_OUT_DIR_NAME);
}

/**
 * Why the assembly in `outDir` must be synthesized again: it has no manifest, or a source file of
 * the project in `root` changed after it was written. Undefined while it is current.
 */
export function staleness(outDir: string, root: string = process.cwd()): string | undefined {
  const manifest = path.join(outDir, 'manifest.json');
  if (!existsSync(manifest)) return `${labelOf(outDir, root)} holds no synthesized app`;
  const builtAt = statSync(manifest).mtimeMs;
  const changed = sourceFiles(root, outDir).find((file) => mtimeOf(path.join(root, file)) > builtAt);
  return changed === undefined ? undefined : `${changed} changed after ${labelOf(outDir, root)} was synthesized`;
}

/** True when `outDir` has no manifest, or some source file of the project in `root` is newer than it. */
export function isStale(outDir: string = defaultOutDir(process.cwd()), root: string = process.cwd()): boolean {
  return staleness(outDir, root) !== undefined;
}

function mtimeOf(file: string): number {
  return statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0;
}

/**
 * The project's source files, relative to `root`: in a git work tree the files git tracks or
 * would track (untracked files that no .gitignore excludes), elsewhere every file; never one
 * under {@link NOT_SOURCE} or in the assembly directory.
 */
export function sourceFiles(root: string, outDir: string = defaultOutDir(root)): string[] {
  const excluded = notSource(root, outDir);
  return (gitFiles(root) ?? walkedFiles(root, excluded)).filter((file) => !excluded(file));
}

/** Whether a path relative to `root` is, or is inside, the assembly or a folder of {@link NOT_SOURCE}. */
function notSource(root: string, outDir: string): (file: string) => boolean {
  const assembly = path.relative(root, path.resolve(outDir));
  const inAssembly = (file: string) => assembly !== '' && !assembly.startsWith('..') && (file === assembly || file.startsWith(assembly + path.sep));
  return (file) => inAssembly(file) || file.split(/[\\/]/).some((segment) => NOT_SOURCE.has(segment));
}

/** What git lists under `root`; undefined when `root` is not in a work tree (or git is missing). */
function gitFiles(root: string): string[] | undefined {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (listed.error !== undefined || listed.status !== 0) return undefined;
  const files = listed.stdout.split('\0').filter((file) => file !== '').map((file) => path.normalize(file));
  // A project that git ignores entirely (or an empty repository) has sources all the same.
  return files.length > 0 ? files : undefined;
}

/** Every file under `dir`, relative to `root`, without descending into what is not source. */
function walkedFiles(root: string, excluded: (file: string) => boolean, dir: string = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.relative(root, path.join(dir, entry.name));
    if (excluded(file)) return [];
    return entry.isDirectory() ? walkedFiles(root, excluded, path.join(dir, entry.name)) : [file];
  });
}

/** Context values of a synth (`cdk synth -c key=value`), beside what cdk.json sets. */
export type SynthContext = Readonly<Record<string, string>>;

/**
 * Runs the project's own CDK CLI, `<root>/node_modules/.bin/cdk synth --quiet --output <outDir>`,
 * with a `-c key=value` for each context value.
 * @throws CloudAssemblyError when the project has no cdk.json or no CDK CLI, or with the tail of the output of a failed synth
 */
export async function synthesize(outDir: string = defaultOutDir(process.cwd()), root: string = process.cwd(), context: SynthContext = {}): Promise<void> {
  const cdk = cdkCli(root);
  const output: string[] = [];
  const contextArgs = Object.entries(context).flatMap(([key, value]) => ['-c', `${key}=${value}`]);
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(cdk, ['synth', '--quiet', '--output', outDir, ...contextArgs], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], timeout: SYNTH_TIMEOUT_MS });
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0) throw new CloudAssemblyError(`cdk synth failed in ${root} (exit ${code}):\n${output.join('').split('\n').slice(-30).join('\n')}`);
}

/** The CDK CLI the project in `root` installed. @throws CloudAssemblyError naming what is missing and the fix */
function cdkCli(root: string): string {
  cdkProject({ app: root });
  const cdk = path.join(root, 'node_modules', '.bin', 'cdk');
  if (!existsSync(cdk)) throw new CloudAssemblyError(`the CDK CLI is not installed in ${root} (no ${cdk}): add aws-cdk to its devDependencies and run \`npm ci\` (or \`npm install\`) there first`);
  return cdk;
}

/** Options of {@link ensureSynthesized}. */
export interface EnsureSynthesizedOptions {
  /** The folder of the CDK app (with its cdk.json), where `cdk synth` runs. @default - the working directory */
  readonly root?: string;
  /** The assembly directory. @default - `cdk.out` in `root` */
  readonly outDir?: string;
  /**
   * Context values for the synth. An assembly does not record the context it was made with, so
   * give a context its own `outDir`. @default - none beyond cdk.json's
   */
  readonly context?: SynthContext;
  /** Synthesize even when the assembly looks current. @default false */
  readonly force?: boolean;
  /** Told why a synth runs, e.g. to show it as a phase. @default - nothing */
  readonly onSynthesize?: (reason: string) => void;
  /** What runs `cdk synth` into `outDir`; tests replace it. @default - the project's CDK CLI, waiting for another CLI synthesizing there */
  readonly synthesize?: (outDir: string) => Promise<void>;
}

/**
 * Synthesizes when needed, then loads the stack. An assembly whose functions were not bundled (what
 * `cdk destroy` or `cdk list` leave behind) is synthesized again, once.
 *
 * @throws CloudAssemblyError when it is still not bundled after that, naming each function and the fix
 */
export async function ensureSynthesized(options: EnsureSynthesizedOptions = {}): Promise<SynthesizedStack & { synthesized: boolean }> {
  const root = path.resolve(options.root ?? process.cwd());
  const outDir = path.resolve(options.outDir ?? defaultOutDir(root));
  const synthesize = options.synthesize ?? ((dir: string) => synthesizeOnce(dir, root, options.force === true, options.context));
  const reason = options.force === true ? 'a fresh synth was asked for' : staleness(outDir, root);
  if (reason !== undefined) await announced(options, reason, () => synthesize(outDir));
  const loaded = { ...loadStack(outDir), projectRoot: root };
  const unbundled = unbundledFunctions(loaded);
  if (reason !== undefined || unbundled.length === 0) return { ...assertBundled(loaded), synthesized: reason !== undefined };
  await announced(options, `${labelOf(outDir, root)} holds functions that were not bundled (as \`cdk destroy\` or \`cdk list\` leave it):\n${describeUnbundled(unbundled)}`, () => synthesize(outDir));
  return { ...assertBundled({ ...loadStack(outDir), projectRoot: root }), synthesized: true };
}

async function announced(options: EnsureSynthesizedOptions, reason: string, synthesize: () => Promise<void>): Promise<void> {
  options.onSynthesize?.(reason);
  await synthesize();
}

/** An assembly directory as messages name it: relative to the project inside it (`cdk.out`), the full path elsewhere. */
function labelOf(outDir: string, root: string): string {
  const relative = path.relative(root, outDir);
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? outDir : relative;
}

/**
 * Refuses an assembly local mode cannot run as AWS would: one whose function assets are not
 * bundles holding their handler files.
 *
 * @param projectRoot the folder `cdk synth` ran in (`cdk destroy` points every asset at it)
 * @returns the stack it was given
 * @throws CloudAssemblyError naming each function, what is wrong with it, and the command that fixes it
 */
export function assertBundled<T extends SynthesizedStack>(stack: T, projectRoot: string = stack.projectRoot ?? process.cwd()): T {
  const unbundled = unbundledFunctions({ ...stack, projectRoot });
  if (unbundled.length === 0) return stack;
  throw new CloudAssemblyError(
    `${stack.outDir} holds ${unbundled.length} function(s) whose code was not bundled, so local mode cannot run them as AWS would:\n` +
      `${describeUnbundled(unbundled)}\n` +
      'The CDK CLI bundles only for synth, deploy, diff and watch; `cdk destroy`, `cdk list` and the like rewrite the assembly without bundles. ' +
      `Rebuild it: ${synthCommand(stack.outDir, projectRoot)} (if that fails, its output says why).`,
  );
}

/** The command that rebuilds `outDir`, as a person would type it. */
function synthCommand(outDir: string, root: string): string {
  const output = path.resolve(outDir) === defaultOutDir(path.resolve(root)) ? '' : ` --output ${outDir}`;
  const where = path.resolve(root) === process.cwd() ? '' : ` in ${root}`;
  return `\`npx cdk synth --quiet${output}\`${where}`;
}

/** How long to wait for another process's `cdk synth` into the same directory. */
const CONCURRENT_SYNTH_WAIT_MS = 300_000;

/**
 * The CDK CLI refuses a second synth into a directory another CLI is synthesizing into. Two test
 * workers (or a test and a demo) can get there together: wait for the other one, then use its
 * result unless the sources changed again meanwhile.
 */
async function synthesizeOnce(outDir: string, root: string, force: boolean, context?: SynthContext): Promise<void> {
  const deadline = Date.now() + CONCURRENT_SYNTH_WAIT_MS;
  for (;;) {
    try {
      return await synthesize(outDir, root, context);
    } catch (error) {
      if (!(error instanceof CloudAssemblyError) || !/Another CLI .* is currently synthing/.test(error.message) || Date.now() > deadline) throw error;
    }
    await sleep(1_000);
    if (!force && !isStale(outDir, root)) return;
  }
}

/** Loads the one CloudFormation stack of an assembly (or the named one). */
export function loadStack(outDir: string = defaultOutDir(process.cwd()), stackName?: string): SynthesizedStack {
  const manifestPath = path.join(outDir, 'manifest.json');
  if (!existsSync(manifestPath)) throw new CloudAssemblyError(`${outDir} holds no synthesized app: run \`npx cdk synth\` in the app's folder (or \`eo local up\`, which synthesizes)`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { artifacts?: Record<string, { type: string; properties?: { templateFile?: string } }> };
  const stacks = Object.entries(manifest.artifacts ?? {}).filter(([, artifact]) => artifact.type === 'aws:cloudformation:stack');
  const chosen = stackName ? stacks.find(([name]) => name === stackName) : stacks[0];
  if (!chosen || (!stackName && stacks.length !== 1)) {
    throw new CloudAssemblyError(`expected ${stackName ? `a stack named ${stackName}` : 'exactly one stack'} in ${outDir}; found: ${stacks.map(([name]) => name).join(', ') || 'none'}`);
  }
  const [name, artifact] = chosen;
  const template = JSON.parse(readFileSync(path.join(outDir, artifact.properties?.templateFile ?? `${name}.template.json`), 'utf8')) as Template;
  return { stackName: name, template, outDir };
}
