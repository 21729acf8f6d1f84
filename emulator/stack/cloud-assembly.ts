/**
 * Finds the synthesized stack in `cdk.out`, synthesizing first when it is missing or older than
 * the sources, so that local mode always runs what `cdk deploy` would ship.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeUnbundled, unbundledFunctions } from './bundled-assets';
import type { Template } from '../../aws/cloudformation/template';

/** The repository root: emulator/stack/ is two levels below it. */
export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
export const DEFAULT_OUT_DIR = path.join(PROJECT_ROOT, 'cdk.out');
/** Folders whose changes make a synthesized assembly stale. */
const SOURCE_DIRS = ['bin', 'lib', 'lambdas', 'aws', 'example'];
const SYNTH_TIMEOUT_MS = 300_000;

/** The stack local mode runs. */
export interface SynthesizedStack {
  readonly stackName: string;
  readonly template: Template;
  /** The assembly directory; asset paths in resource metadata are relative to it. */
  readonly outDir: string;
}

/** Thrown when there is no usable assembly; the message says what to run. */
export class CloudAssemblyError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'CloudAssemblyError';
  }
}

/** True when `outDir` has no manifest, or some source file is newer than it. */
export function isStale(outDir: string = DEFAULT_OUT_DIR, root: string = PROJECT_ROOT): boolean {
  const manifest = path.join(outDir, 'manifest.json');
  if (!existsSync(manifest)) return true;
  const builtAt = statSync(manifest).mtimeMs;
  return SOURCE_DIRS.some((dir) => newestMtime(path.join(root, dir)) > builtAt);
}

function newestMtime(dir: string): number {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/** Runs `cdk synth` into `outDir`. @throws CloudAssemblyError with the tail of its output */
export async function synthesize(outDir: string = DEFAULT_OUT_DIR, root: string = PROJECT_ROOT): Promise<void> {
  const cdk = path.join(root, 'node_modules', '.bin', 'cdk');
  if (!existsSync(cdk)) throw new CloudAssemblyError('the CDK CLI is not installed: run `npm ci` first');
  const output: string[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(cdk, ['synth', '--quiet', '--output', outDir], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], timeout: SYNTH_TIMEOUT_MS });
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0) throw new CloudAssemblyError(`cdk synth failed (exit ${code}):\n${output.join('').split('\n').slice(-30).join('\n')}`);
}

/** Options of {@link ensureSynthesized}. */
export interface EnsureSynthesizedOptions {
  /** @default DEFAULT_OUT_DIR */
  readonly outDir?: string;
  /** Synthesize even when `cdk.out` looks current. @default false */
  readonly force?: boolean;
  /** Told why a synth runs, e.g. to show it as a phase. @default - nothing */
  readonly onSynthesize?: (reason: string) => void;
  /** What runs `cdk synth` into `outDir`; tests replace it. @default - the CDK CLI, waiting for another CLI synthesizing there */
  readonly synthesize?: (outDir: string) => Promise<void>;
}

/**
 * Synthesizes when needed, then loads the stack. An assembly whose functions were not bundled (what
 * `cdk destroy` or `cdk list` leave behind) is synthesized again, once.
 *
 * @throws CloudAssemblyError when it is still not bundled after that, naming each function and the fix
 */
export async function ensureSynthesized(options: EnsureSynthesizedOptions = {}): Promise<SynthesizedStack & { synthesized: boolean }> {
  const outDir = options.outDir ?? DEFAULT_OUT_DIR;
  const synthesize = options.synthesize ?? ((dir: string) => synthesizeOnce(dir, options.force === true));
  const stale = options.force === true || isStale(outDir);
  if (stale) await announced(options, outDir, options.force === true ? 'a fresh synth was asked for' : `cdk.out is missing or older than ${SOURCE_DIRS.join(', ')}`, synthesize);
  const loaded = loadStack(outDir);
  const unbundled = unbundledFunctions({ ...loaded, projectRoot: PROJECT_ROOT });
  if (stale || unbundled.length === 0) return { ...assertBundled(loaded), synthesized: stale };
  await announced(options, outDir, `cdk.out holds functions that were not bundled (as \`cdk destroy\` or \`cdk list\` leave it):\n${describeUnbundled(unbundled)}`, synthesize);
  return { ...assertBundled(loadStack(outDir)), synthesized: true };
}

async function announced(options: EnsureSynthesizedOptions, outDir: string, reason: string, synthesize: (outDir: string) => Promise<void>): Promise<void> {
  options.onSynthesize?.(reason);
  await synthesize(outDir);
}

/**
 * Refuses an assembly local mode cannot run as AWS would: one whose function assets are not
 * bundles holding their handler files.
 *
 * @returns the stack it was given
 * @throws CloudAssemblyError naming each function, what is wrong with it, and the command that fixes it
 */
export function assertBundled<T extends SynthesizedStack>(stack: T, projectRoot: string = PROJECT_ROOT): T {
  const unbundled = unbundledFunctions({ ...stack, projectRoot });
  if (unbundled.length === 0) return stack;
  throw new CloudAssemblyError(
    `${stack.outDir} holds ${unbundled.length} function(s) whose code was not bundled, so local mode cannot run them as AWS would:\n` +
      `${describeUnbundled(unbundled)}\n` +
      'The CDK CLI bundles only for synth, deploy, diff and watch; `cdk destroy`, `cdk list` and the like rewrite cdk.out without bundles. ' +
      `Rebuild it: \`npx cdk synth --quiet\`${stack.outDir === DEFAULT_OUT_DIR ? '' : ` --output ${stack.outDir}`} (if that fails, its output says why).`,
  );
}

/** How long to wait for another process's `cdk synth` into the same directory. */
const CONCURRENT_SYNTH_WAIT_MS = 300_000;

/**
 * The CDK CLI refuses a second synth into a directory another CLI is synthesizing into. Two test
 * workers (or a test and a demo) can get there together: wait for the other one, then use its
 * result unless the sources changed again meanwhile.
 */
async function synthesizeOnce(outDir: string, force: boolean): Promise<void> {
  const deadline = Date.now() + CONCURRENT_SYNTH_WAIT_MS;
  for (;;) {
    try {
      return await synthesize(outDir);
    } catch (error) {
      if (!(error instanceof CloudAssemblyError) || !/Another CLI .* is currently synthing/.test(error.message) || Date.now() > deadline) throw error;
    }
    await sleep(1_000);
    if (!force && !isStale(outDir)) return;
  }
}

/** Loads the one CloudFormation stack of an assembly (or the named one). */
export function loadStack(outDir: string = DEFAULT_OUT_DIR, stackName?: string): SynthesizedStack {
  const manifestPath = path.join(outDir, 'manifest.json');
  if (!existsSync(manifestPath)) throw new CloudAssemblyError(`${outDir} holds no synthesized app: run \`npx cdk synth\` (or \`npm run demo\`, which synthesizes)`);
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
