/**
 * Local mode refuses an assembly whose functions were not bundled: what `cdk destroy` and
 * `cdk list` leave in cdk.out (every function's `aws:asset:path` the project root, no
 * `asset.<hash>` folders, a manifest newer than the sources). It synthesizes again once; if that
 * does not help, it fails at once, naming each function and the command that fixes it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { unbundledFunctions } from '../../../emulator/stack/bundled-assets';
import { CloudAssemblyError, ensureSynthesized, loadStack, PROJECT_ROOT } from '../../../emulator/stack/cloud-assembly';
import { startLocalStack } from '../../../emulator/stack/runtime';

const STACK = 'EffectivelyOnce';
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function functionResource(assetPath: string): Record<string, unknown> {
  return { Type: 'AWS::Lambda::Function', Properties: { Handler: 'index.handler', Timeout: 30 }, Metadata: { 'aws:asset:path': assetPath, 'aws:asset:is-bundled': true, 'aws:asset:property': 'Code' } };
}

/** Writes an assembly with one function per entry: `destroyed` (asset path = the project root), `bundled`, or `empty` (an asset folder without index.js). */
function writeAssembly(outDir: string, functions: Record<string, 'destroyed' | 'bundled' | 'empty'>): void {
  mkdirSync(outDir, { recursive: true });
  const resources: Record<string, unknown> = {};
  for (const [logicalId, shape] of Object.entries(functions)) {
    if (shape === 'destroyed') {
      resources[logicalId] = functionResource(PROJECT_ROOT);
      continue;
    }
    const asset = `asset.${logicalId.toLowerCase()}`;
    mkdirSync(path.join(outDir, asset), { recursive: true });
    if (shape === 'bundled') writeFileSync(path.join(outDir, asset, 'index.js'), 'exports.handler = async () => ({});\n');
    resources[logicalId] = functionResource(asset);
  }
  writeFileSync(path.join(outDir, `${STACK}.template.json`), JSON.stringify({ Resources: resources }));
  writeFileSync(path.join(outDir, 'manifest.json'), JSON.stringify({ version: '55.0.0', artifacts: { [STACK]: { type: 'aws:cloudformation:stack', properties: { templateFile: `${STACK}.template.json` } } } }));
}

function tempOutDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'eo-assembly-'));
  dirs.push(dir);
  return path.join(dir, 'cdk.out');
}

test('finds every function whose asset is the project root or holds no handler file', () => {
  const outDir = tempOutDir();
  writeAssembly(outDir, { PageViewCounterFunction: 'destroyed', OrderProjectionFunction: 'empty', ShipmentNotifierFunction: 'bundled' });
  const found = unbundledFunctions({ ...loadStack(outDir), projectRoot: PROJECT_ROOT });
  expect(found.map((fn) => fn.logicalId)).toEqual(['PageViewCounterFunction', 'OrderProjectionFunction']);
  expect(found[0]?.problem).toContain(`its asset path is the project root (${PROJECT_ROOT})`);
  expect(found[1]?.problem).toMatch(/holds no handler file for index\.handler \(index\.js, index\.mjs, index\.cjs\)/);
});

test('an assembly that cdk destroy rewrote is synthesized again, and the bundled result is used', async () => {
  const outDir = tempOutDir();
  writeAssembly(outDir, { PageViewCounterFunction: 'destroyed' });
  const reasons: string[] = [];
  const synthesize = jest.fn(async (dir: string) => writeAssembly(dir, { PageViewCounterFunction: 'bundled' }));
  const stack = await ensureSynthesized({ outDir, synthesize, onSynthesize: (reason) => reasons.push(reason) });
  expect(synthesize).toHaveBeenCalledTimes(1);
  expect(stack.synthesized).toBe(true);
  expect(stack.template.Resources.PageViewCounterFunction?.Metadata?.['aws:asset:path']).toBe('asset.pageviewcounterfunction');
  // Unless a source file changed meanwhile (then the staleness rule synthesizes first), the reason names the unbundled function.
  if (reasons[0]?.startsWith('cdk.out holds')) expect(reasons[0]).toContain('PageViewCounterFunction');
});

test('an assembly still unbundled after the synth is refused with what is wrong and the command that fixes it', async () => {
  const outDir = tempOutDir();
  writeAssembly(outDir, { PageViewCounterFunction: 'destroyed', OrderProjectionFunction: 'bundled' });
  const failure = ensureSynthesized({ outDir, synthesize: async () => undefined });
  await expect(failure).rejects.toThrow(CloudAssemblyError);
  await expect(failure).rejects.toThrow(/1 function\(s\) whose code was not bundled[\s\S]*PageViewCounterFunction: its asset path is the project root[\s\S]*`npx cdk synth --quiet` --output /);
});

test('a local stack started on an unbundled assembly is refused before any engine starts', async () => {
  const outDir = tempOutDir();
  writeAssembly(outDir, { PageViewCounterFunction: 'destroyed' });
  const started = Date.now();
  await expect(startLocalStack({ synthesized: loadStack(outDir) })).rejects.toThrow(CloudAssemblyError);
  expect(Date.now() - started).toBeLessThan(2_000);
});
