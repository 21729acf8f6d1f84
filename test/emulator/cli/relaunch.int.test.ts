/**
 * `eo local up` and the demo run again on the Node.js major the stack's functions name: the run
 * on that binary gets the command line and the marker, its exit code comes back, a stop signal is
 * forwarded to it once, and a relaunched run stops by itself when its launcher is killed outright.
 * The binary is the real Node.js 24 that local mode fetches (the jest global setup fetched it).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { nodeBinaryFor, nodeSourceText } from '../../../emulator/functions';
import { prevailingRuntime, RELAUNCHED_VARIABLE, relaunchOnRuntimeNode } from '../../../emulator/cli/relaunch';

const folder = mkdtempSync(path.join(tmpdir(), 'eo-relaunch-'));
const root = path.resolve(__dirname, '..', '..', '..');

/** A script for the relaunched run, written to a file of its own. */
function script(name: string, source: string): string {
  const file = path.join(folder, name);
  writeFileSync(file, source);
  return file;
}

/** The environment of a run that is not yet relaunched and does not keep the functions on the tools' Node.js. */
function launcherEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  delete env.EO_FUNCTIONS_NODE;
  delete env[RELAUNCHED_VARIABLE];
  return { ...env, ...extra };
}

test('the prevailing runtime is the one most functions name, the newest on a tie, none for no function', () => {
  expect(prevailingRuntime(['nodejs22.x', 'nodejs24.x', 'nodejs22.x'])).toBe('nodejs22.x');
  expect(prevailingRuntime(['nodejs22.x', 'nodejs24.x'])).toBe('nodejs24.x');
  expect(prevailingRuntime([])).toBeUndefined();
  expect(() => prevailingRuntime(['python3.13'])).toThrow(/local mode runs Node.js functions only/);
});

test('the command runs again on the runtime\'s Node.js with the marker set, and its exit code comes back', async () => {
  const out = path.join(folder, 'answer.json');
  const file = script('answer.js', `require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify({ node: process.versions.node, marker: process.env.${RELAUNCHED_VARIABLE}, args: process.argv.slice(2) })); process.exitCode = 7;`);
  const phases: string[] = [];
  const code = await relaunchOnRuntimeNode({ runtimes: ['nodejs24.x', 'nodejs24.x'], env: launcherEnv(), args: [file, 'demo', '--events', '10'], onPhase: (phase) => phases.push(phase) });
  expect(code).toBe(7);
  const answer = JSON.parse(readFileSync(out, 'utf8')) as { node: string; marker: string; args: string[] };
  expect(answer.node).toMatch(/^24\./);
  expect(answer.marker).toBe(answer.node);
  expect(answer.args).toEqual(['demo', '--events', '10']);
  expect(phases).toEqual([`the stack's functions run on nodejs24.x: eo runs again on Node.js ${answer.node} (${nodeSourceText(await nodeBinaryFor('nodejs24.x'))}); EO_FUNCTIONS_NODE=tools keeps them on this Node.js ${process.versions.node}`]);
});

test('no relaunch when the functions are kept on the tools\' Node.js, when this is the relaunched run, or when no function names a runtime', async () => {
  const never = script('never.js', 'process.exit(99);');
  expect(await relaunchOnRuntimeNode({ runtimes: ['nodejs24.x'], env: launcherEnv({ EO_FUNCTIONS_NODE: 'tools' }), args: [never] })).toBeUndefined();
  expect(await relaunchOnRuntimeNode({ runtimes: ['nodejs24.x'], env: launcherEnv({ [RELAUNCHED_VARIABLE]: '24.0.0' }), args: [never] })).toBeUndefined();
  expect(await relaunchOnRuntimeNode({ runtimes: [], env: launcherEnv(), args: [never] })).toBeUndefined();
  expect(await relaunchOnRuntimeNode({ runtimes: [`nodejs${process.versions.node.split('.')[0]}.x`], env: launcherEnv(), args: [never] })).toBeUndefined();
});

test('a stop signal this process gets is forwarded to the relaunched run once; one that kills it comes back as 128 plus its number', async () => {
  const stopListeners = () => process.listenerCount('SIGINT') + process.listenerCount('SIGTERM') + process.listenerCount('SIGHUP');
  const listenersBefore = stopListeners();
  const ready = path.join(folder, 'ready');
  const handled = script('handles.js', `let signals = 0; process.on('SIGINT', () => { signals += 1; setTimeout(() => process.exit(40 + signals), 300); }); require('node:fs').writeFileSync(${JSON.stringify(ready)}, ''); setInterval(() => undefined, 1000);`);
  const run = relaunchOnRuntimeNode({ runtimes: ['nodejs24.x'], env: launcherEnv(), args: [handled] });
  await until(() => existsSync(ready));
  process.emit('SIGINT', 'SIGINT');
  expect(await run).toBe(41);
  const killable = script('killable.js', `require('node:fs').writeFileSync(${JSON.stringify(ready)}, ''); setInterval(() => undefined, 1000);`);
  rmSync(ready);
  const killed = relaunchOnRuntimeNode({ runtimes: ['nodejs24.x'], env: launcherEnv(), args: [killable] });
  await until(() => existsSync(ready));
  process.emit('SIGTERM', 'SIGTERM');
  expect(await killed).toBe(128 + 15);
  expect(stopListeners()).toBe(listenersBefore);
});

test('a relaunched run whose launcher dies without forwarding a signal stops as on SIGTERM', async () => {
  // The relaunched side, as eo runs it: the TypeScript through tsx, with the launcher's channel.
  const relaunched = script('relaunched.ts', `
import { relaunchOnRuntimeNode } from ${JSON.stringify(path.join(root, 'emulator', 'cli', 'relaunch'))};
process.on('SIGTERM', () => { process.stdout.write('stopped on SIGTERM\\n'); process.exit(0); });
void relaunchOnRuntimeNode({ runtimes: ['nodejs24.x'] }).then((code) => {
  process.stdout.write(code === undefined ? 'running here\\n' : 'relaunched again\\n');
  setInterval(() => undefined, 1000);
});`);
  const child = spawn(process.execPath, ['--import', 'tsx', relaunched], { cwd: root, env: { ...launcherEnv(), [RELAUNCHED_VARIABLE]: process.versions.node }, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  await until(() => stdout.includes('running here'));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.disconnect();
  expect(await exited).toBe(0);
  expect(stdout).toBe('running here\nstopped on SIGTERM\n');
}, 30_000);

async function until(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
