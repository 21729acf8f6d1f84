/**
 * Finds the synthesized stack in `cdk.out`, synthesizing first when it is missing or older than
 * the sources, so that local mode always runs what `cdk deploy` would ship.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Template } from './template';

/** The repository root: local/stack/ is two levels below it. */
export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
export const DEFAULT_OUT_DIR = path.join(PROJECT_ROOT, 'cdk.out');
/** Folders whose changes make a synthesized assembly stale. */
const SOURCE_DIRS = ['bin', 'lib', 'lambdas'];
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

/** Synthesizes when needed, then loads the stack. */
export async function ensureSynthesized(options: { outDir?: string; force?: boolean } = {}): Promise<SynthesizedStack & { synthesized: boolean }> {
  const outDir = options.outDir ?? DEFAULT_OUT_DIR;
  const synthesized = options.force === true || isStale(outDir);
  if (synthesized) await synthesizeOnce(outDir, options.force === true);
  return { ...loadStack(outDir), synthesized };
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
