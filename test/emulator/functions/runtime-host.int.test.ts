/**
 * The runtime host: the nodejs24.x functions run on Node.js 24 whatever Node.js runs the tools,
 * all their execution environments threads of one process on that binary; a host that dies ends
 * its invocations as crashes, and the next invocation starts a new one. Local mode runs the
 * functions there when EO_FUNCTIONS_NODE is `runtime`.
 */
import { IN_PROCESS_THREADS, LocalFunction, nodeBinaryFor, RuntimeHost, threadsForRuntime } from '../../../emulator/functions';
import { functionsNodeOf, startFunctions, type FunctionSpec } from '../../../emulator/stack/functions';
import type { InvokeResult } from '../../../emulator/types';
import { uniqueName } from '../../helpers/engines';
import { commonJsAsset, removeAssets } from './assets';

const REPORTING_HANDLER = `
exports.handler = async (event) => {
  if (event.sleepMs) await new Promise((resolve) => setTimeout(resolve, event.sleepMs));
  return { node: process.versions.node, pid: process.pid };
};`;

const hosts: RuntimeHost[] = [];
const functions: LocalFunction[] = [];
afterEach(async () => {
  await Promise.all(functions.splice(0).map((fn) => fn.stop()));
  for (const host of hosts.splice(0)) host.close();
});
afterAll(() => removeAssets());

async function hostedFunction(concurrency = 1): Promise<{ fn: LocalFunction; host: RuntimeHost }> {
  const host = new RuntimeHost((await nodeBinaryFor('nodejs24.x')).path);
  hosts.push(host);
  const fn = new LocalFunction({ name: uniqueName('hosted'), assetDir: await commonJsAsset(REPORTING_HANDLER), timeoutSeconds: 5, environment: {}, concurrency, threads: host.threadStarter });
  functions.push(fn);
  return { fn, host };
}

function responseOf(result: InvokeResult): { node: string; pid: number } {
  if (!result.ok) throw new Error(`invocation failed: ${result.error.kind} ${result.error.name}: ${result.error.message}`);
  return result.response as { node: string; pid: number };
}

test('a hosted function runs on Node.js 24, every execution environment a thread of one process that is not this one', async () => {
  const { fn } = await hostedFunction(3);
  const answers = (await Promise.all([1, 2, 3].map(() => fn.invoke({ sleepMs: 200 })))).map(responseOf);
  expect(fn.stats()).toMatchObject({ invocations: 3, coldStarts: 3 });
  expect(new Set(answers.map((answer) => answer.node.split('.')[0]))).toEqual(new Set(['24']));
  const pids = new Set(answers.map((answer) => answer.pid));
  expect(pids.size).toBe(1);
  expect(pids.has(process.pid)).toBe(false);
});

test('a host that dies ends the invocations in flight as crashes that say so, and the next invocation starts a new host', async () => {
  const { fn, host } = await hostedFunction();
  const first = responseOf(await fn.invoke({}));
  const inFlight = fn.invoke({ sleepMs: 5_000 });
  await new Promise((resolve) => setTimeout(resolve, 300));
  host.close();
  expect(await inFlight).toMatchObject({ ok: false, error: { kind: 'crash', name: 'Runtime.ExitError', message: expect.stringContaining('the runtime host') } });
  const next = responseOf(await fn.invoke({}));
  expect(next.node.split('.')[0]).toBe('24');
  expect(next.pid).not.toBe(first.pid);
});

test('threadsForRuntime: the threads of this process when the tools run on the runtime\'s major, a runtime host otherwise', async () => {
  const binary = await nodeBinaryFor('nodejs24.x');
  const same = await threadsForRuntime('nodejs24.x', { host: { path: binary.path, version: binary.version } });
  expect(same.threads).toBe(IN_PROCESS_THREADS);
  const other = await threadsForRuntime('nodejs24.x', { host: { path: '/usr/bin/node-of-another-major', version: '20.19.0' } });
  expect(other.threads).not.toBe(IN_PROCESS_THREADS);
  expect(other.node.version.split('.')[0]).toBe('24');
  await expect(threadsForRuntime('python3.13')).rejects.toThrow(/runs Node.js functions only/);
});

test("startFunctions runs a stack's functions on the tools' Node.js with functionsNode 'tools', and on their runtime's with 'runtime'", async () => {
  const spec: FunctionSpec = { logicalId: 'Reporter', name: uniqueName('reporter'), assetDir: await commonJsAsset(REPORTING_HANDLER), handler: 'index.handler', runtime: 'nodejs24.x', timeoutSeconds: 5, templateTimeoutSeconds: 30, memoryMb: 128, environment: {} };
  const nodes: string[] = [];
  for (const functionsNode of ['tools', 'runtime'] as const) {
    const started = await startFunctions([spec], { concurrency: 1, functionsNode, onNode: (runtime, node) => nodes.push(`${runtime} ${node.version.split('.')[0]}`) });
    const fn = started.get('Reporter') as LocalFunction;
    functions.push(fn);
    const answer = responseOf(await fn.invoke({}));
    expect(answer.node.split('.')[0]).toBe(functionsNode === 'tools' ? process.versions.node.split('.')[0] : '24');
  }
  expect(nodes).toEqual([`nodejs24.x ${process.versions.node.split('.')[0]}`, 'nodejs24.x 24']);
});

test('EO_FUNCTIONS_NODE chooses runtime (the default) or tools, and names itself when it is neither', () => {
  expect(functionsNodeOf({})).toBe('runtime');
  expect(functionsNodeOf({ EO_FUNCTIONS_NODE: '' })).toBe('runtime');
  expect(functionsNodeOf({ EO_FUNCTIONS_NODE: 'tools' })).toBe('tools');
  expect(functionsNodeOf({ EO_FUNCTIONS_NODE: 'runtime' })).toBe('runtime');
  expect(() => functionsNodeOf({ EO_FUNCTIONS_NODE: '24' })).toThrow(/EO_FUNCTIONS_NODE is "tools".*not "24"/);
});
