/**
 * A private copy of the synthesized assembly (cdk.out is shared with other test runs and with
 * people), so that a test can break one function's bundle and run the stack on it.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ASSET_PATH_METADATA } from '../../../emulator/stack/bundled-assets';
import { assertBundled, DEFAULT_OUT_DIR, ensureSynthesized, loadStack, PROJECT_ROOT, type SynthesizedStack } from '../../../emulator/stack/cloud-assembly';
import { ResourceType, resourcesOfType, type Template } from '../../../aws/cloudformation/template';
import type { LocalStack } from '../../../emulator/stack/runtime';

const copies: string[] = [];

/** How long a first synth (every function bundled) may take on a slow machine. */
export const SYNTH_TIMEOUT_MS = 300_000;

/**
 * Synthesizes cdk.out when it is missing or stale, as a fresh clone's is: the copies are made from
 * it. Call it in `beforeAll` with {@link SYNTH_TIMEOUT_MS}.
 */
export async function ensureAssembly(): Promise<void> {
  await ensureSynthesized();
}

/** Copies the manifest, the template and every function's bundle of cdk.out (which must be bundled). */
export function copyAssembly(source: string = DEFAULT_OUT_DIR): SynthesizedStack {
  const original = assertBundled(loadStack(source));
  const root = mkdtempSync(path.join(tmpdir(), 'eo-assembly-copy-'));
  copies.push(root);
  const outDir = path.join(root, 'cdk.out');
  for (const file of ['manifest.json', `${original.stackName}.template.json`]) cpSync(path.join(source, file), path.join(outDir, file));
  for (const fn of resourcesOfType(original.template, ResourceType.FUNCTION)) {
    const asset = String(fn.metadata[ASSET_PATH_METADATA]);
    cpSync(path.resolve(source, asset), path.join(outDir, asset), { recursive: true });
  }
  // The bundles leave the AWS SDK external and find it up the tree, as they do in the repository.
  symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  return loadStack(outDir);
}

/** A copy of the assembly whose template `edit` changed, reloaded. */
export function editedAssembly(edit: (template: Template) => void): SynthesizedStack {
  const copy = copyAssembly();
  const file = path.join(copy.outDir, `${copy.stackName}.template.json`);
  const template = JSON.parse(readFileSync(file, 'utf8')) as Template;
  edit(template);
  writeFileSync(file, JSON.stringify(template));
  return loadStack(copy.outDir);
}

/** The logical id of the function whose id starts with `prefix` (e.g. `PageViewCounter`). */
export function functionId(stack: SynthesizedStack, prefix: string): string {
  const found = resourcesOfType(stack.template, ResourceType.FUNCTION).find((fn) => fn.logicalId.startsWith(prefix));
  if (!found) throw new Error(`no function whose logical id starts with ${prefix}`);
  return found.logicalId;
}

/** Replaces the bundle of one function with `source`, as its `index.js`. */
export function replaceBundle(stack: SynthesizedStack, logicalId: string, source: string): void {
  const asset = String(stack.template.Resources[logicalId]?.Metadata?.[ASSET_PATH_METADATA]);
  writeFileSync(path.join(stack.outDir, asset, 'index.js'), source);
}

export function removeCopies(): void {
  for (const root of copies.splice(0)) rmSync(root, { recursive: true, force: true });
}

/**
 * A test file's lifecycle around the copies: cdk.out synthesized first (within
 * {@link SYNTH_TIMEOUT_MS}), every copy removed at the end. Call it once at the top of the file.
 */
export function useAssemblyCopies(): void {
  beforeAll(ensureAssembly, SYNTH_TIMEOUT_MS);
  afterAll(removeCopies);
}

/**
 * Stops, after each test, the local stack that test started; returns the function that hands it
 * over: `const local = stoppedAfterEach(await startLocalStack(...))`.
 */
export function stopStackAfterEach(): (stack: LocalStack) => LocalStack {
  let current: LocalStack | undefined;
  afterEach(async () => {
    await current?.stop();
    current = undefined;
  });
  return (stack) => (current = stack);
}
