/**
 * Which CDK app local mode runs, and when it synthesizes it: the folder with the cdk.json (the
 * working directory or `--app`), its assembly (`--out`, by default its cdk.out), stale once any
 * of the app's own source files is newer, whatever the app's folders are called.
 *
 * Local mode refuses an assembly whose functions were not bundled: what `cdk destroy` and
 * `cdk list` leave in cdk.out (every function's `aws:asset:path` the project root, no
 * `asset.<hash>` folders, a manifest newer than the sources). It synthesizes again once; if that
 * does not help, it fails at once, naming each function and the command that fixes it.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { unbundledFunctions } from '../../../emulator/stack/bundled-assets';
import { cdkProject, CloudAssemblyError, ensureSynthesized, loadStack, PROJECT_ROOT, sourceFiles, staleness, synthesize } from '../../../emulator/stack/cloud-assembly';
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
  if (!reasons[0]?.includes('changed after')) expect(reasons[0]).toMatch(/holds functions that were not bundled[\s\S]*PageViewCounterFunction/);
});

test('an assembly still unbundled after the synth is refused with what is wrong and the command that fixes it', async () => {
  const outDir = tempOutDir();
  writeAssembly(outDir, { PageViewCounterFunction: 'destroyed', OrderProjectionFunction: 'bundled' });
  const failure = ensureSynthesized({ outDir, synthesize: async () => undefined });
  await expect(failure).rejects.toThrow(CloudAssemblyError);
  await expect(failure).rejects.toThrow(/1 function\(s\) whose code was not bundled[\s\S]*PageViewCounterFunction: its asset path is the project root[\s\S]*`npx cdk synth --quiet --output [^`]+`/);
});

test('a local stack started on an unbundled assembly is refused before any engine starts', async () => {
  const outDir = tempOutDir();
  writeAssembly(outDir, { PageViewCounterFunction: 'destroyed' });
  const started = Date.now();
  await expect(startLocalStack({ synthesized: loadStack(outDir) })).rejects.toThrow(CloudAssemblyError);
  expect(Date.now() - started).toBeLessThan(2_000);
});

/** A CDK app of another team, in a temporary folder: its own folder names, a cdk.json, no CDK CLI installed. */
function otherApp(files: Record<string, string> = { 'cdk.json': '{"app": "node app.js"}', 'app.js': '', 'infra/stack.js': '', 'functions/handler.js': '' }): string {
  const root = mkdtempSync(path.join(tmpdir(), 'eo-other-app-'));
  dirs.push(root);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

/** Sets a file's modification time to `secondsAgo` before now. */
function age(file: string, secondsAgo: number): void {
  const time = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(file, time, time);
}

describe('the CDK app local mode runs', () => {
  test('is the folder with the cdk.json, its assembly the cdk.out in it unless --out names another', () => {
    const root = otherApp();
    expect(cdkProject({ app: root })).toEqual({ root, outDir: path.join(root, 'cdk.out') });
    expect(cdkProject({ app: root, out: 'build/assembly' })).toEqual({ root, outDir: path.resolve('build/assembly') });
    expect(cdkProject()).toEqual({ root: process.cwd(), outDir: path.join(process.cwd(), 'cdk.out') });
  });

  test('a folder without a cdk.json is refused, naming it and --app', () => {
    const root = otherApp({ 'app.js': '' });
    expect(() => cdkProject({ app: root })).toThrow(new CloudAssemblyError(`${root} holds no cdk.json, so it is not a CDK app: run this in your CDK app's folder (the one with cdk.json), or name that folder with --app <dir>`));
  });

  test('its sources are every file outside node_modules, .git, dist, cdk.out, .eo and the assembly, whatever the folders are called', () => {
    const root = otherApp({ 'cdk.json': '{}', 'infra/stack.ts': '', 'functions/a/handler.ts': '', 'node_modules/x/index.js': '', 'dist/app.js': '', 'cdk.out/manifest.json': '', '.eo/local.json': '', 'build/assembly/manifest.json': '', 'functions/a/node_modules/y.js': '' });
    expect(sourceFiles(root, path.join(root, 'build', 'assembly')).sort()).toEqual(['cdk.json', path.join('functions', 'a', 'handler.ts'), path.join('infra', 'stack.ts')]);
  });

  test('in a git work tree its sources are what git lists: files that .gitignore excludes do not count', () => {
    const root = otherApp({ 'cdk.json': '{}', '.gitignore': '*.generated.ts\n', 'infra/stack.ts': '', 'infra/types.generated.ts': '', 'new-handler.ts': '' });
    spawnSync('git', ['init', '--quiet'], { cwd: root });
    spawnSync('git', ['add', 'cdk.json', '.gitignore', 'infra/stack.ts'], { cwd: root });
    expect(sourceFiles(root).sort()).toEqual(['.gitignore', 'cdk.json', path.join('infra', 'stack.ts'), 'new-handler.ts']);
  });

  test('its assembly is stale once one of its source files is newer than the manifest, and the reason names the file', () => {
    const root = otherApp({ 'cdk.json': '{}', 'infra/stack.ts': '', 'node_modules/x/index.js': '', 'cdk.out/manifest.json': '{}' });
    const outDir = path.join(root, 'cdk.out');
    expect(staleness(path.join(root, 'elsewhere'), root)).toBe('elsewhere holds no synthesized app');
    for (const file of ['cdk.json', 'infra/stack.ts']) age(path.join(root, file), 60);
    age(path.join(root, 'cdk.out', 'manifest.json'), 30);
    expect(staleness(outDir, root)).toBeUndefined();
    age(path.join(root, 'infra', 'stack.ts'), 0);
    expect(staleness(outDir, root)).toBe(`${path.join('infra', 'stack.ts')} changed after cdk.out was synthesized`);
  });

  test('is synthesized in its own folder, into its own assembly', async () => {
    const root = otherApp();
    const synthesized: string[] = [];
    const synthesize = async (dir: string) => {
      synthesized.push(dir);
      writeAssembly(dir, { PageViewCounterFunction: 'bundled' });
    };
    const stack = await ensureSynthesized({ root, synthesize });
    expect(synthesized).toEqual([path.join(root, 'cdk.out')]);
    expect(stack).toMatchObject({ outDir: path.join(root, 'cdk.out'), projectRoot: root, synthesized: true });
  });

  test("runs the project's own CDK CLI with each context value as -c key=value, into the assembly asked for", async () => {
    // A stand-in for node_modules/.bin/cdk that writes down its arguments: what is under test is the command line, not the CDK.
    const argsFile = 'cdk-args.json';
    const root = otherApp({ 'cdk.json': '{"app": "node app.js"}', 'app.js': '', 'node_modules/.bin/cdk': `#!/usr/bin/env node\nrequire('node:fs').writeFileSync(${JSON.stringify(argsFile)}, JSON.stringify(process.argv.slice(2)));\n` });
    chmodSync(path.join(root, 'node_modules', '.bin', 'cdk'), 0o755);
    const outDir = path.join(root, '.eo', 'managed-instances.cdk.out');
    await synthesize(outDir, root, { managedInstances: 'true', alarmEmail: 'ops@example.com' });
    expect(JSON.parse(readFileSync(path.join(root, argsFile), 'utf8'))).toEqual(['synth', '--quiet', '--output', outDir, '-c', 'managedInstances=true', '-c', 'alarmEmail=ops@example.com']);
    await synthesize(path.join(root, 'cdk.out'), root);
    expect(JSON.parse(readFileSync(path.join(root, argsFile), 'utf8'))).toEqual(['synth', '--quiet', '--output', path.join(root, 'cdk.out')]);
  });

  test('without its own CDK CLI, synth fails naming the missing file and the fix', async () => {
    const root = otherApp();
    await expect(synthesize(path.join(root, 'cdk.out'), root)).rejects.toThrow(
      new CloudAssemblyError(`the CDK CLI is not installed in ${root} (no ${path.join(root, 'node_modules', '.bin', 'cdk')}): add aws-cdk to its devDependencies and run \`npm ci\` (or \`npm install\`) there first`),
    );
  });
});
