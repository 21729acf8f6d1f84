/**
 * Demo runs that cannot finish stop loudly and leave their dump behind. A function that fails to
 * initialize stops the run at once (no draining against a function that cannot run), naming the
 * function and the error on the terminal, in the report and in the functions' log; a drain that
 * stalls names what did not drain. Either way --dump-dir holds published.jsonl, state.json,
 * functions.log and error.txt. Each run is a copy of the stack on the engines of this Jest run.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { AbortReason, DemoAbortedError } from '../../../emulator/demo/abort';
import { createProgress } from '../../../cli/progress';
import { DEMO_DEFAULTS, runDemo, type DemoOptions } from '../../../emulator/demo/run';
import type { Engines } from '../../../emulator/engines';
import type { SynthesizedStack } from '../../../emulator/stack/cloud-assembly';
import { sharedEngines, uniqueName } from '../../helpers/engines';
import { copyAssembly, functionId, replaceBundle, useAssemblyCopies } from '../stack/assembly-copy';

let engines: Engines;
beforeAll(() => {
  engines = sharedEngines();
});
useAssemblyCopies();

function demoOptions(synthesized: SynthesizedStack, overrides: Partial<DemoOptions> = {}): DemoOptions & { dumpDir: string } {
  return {
    ...DEMO_DEFAULTS,
    events: 60,
    seed: 11,
    progress: createProgress(process.stderr, true),
    dumpDir: mkdtempSync(path.join(tmpdir(), 'eo-demo-dump-')),
    localStack: { engines, synthesized, nameSuffix: `-${uniqueName('t')}` },
    ...overrides,
  };
}

async function abortedRun(options: DemoOptions): Promise<DemoAbortedError> {
  const error = await runDemo(options).then(() => undefined, (caught: unknown) => caught);
  if (!(error instanceof DemoAbortedError)) throw new Error(`expected the run to abort, got ${String(error)}`);
  return error;
}

function dumped(dir: string, file: string): string {
  return readFileSync(path.join(dir, file), 'utf8');
}

test('a function whose handler is not exported stops the demo within seconds, named in the report, the terminal and the log', async () => {
  const assembly = copyAssembly();
  const counter = functionId(assembly, 'PageViewCounter');
  replaceBundle(assembly, counter, 'exports.notTheHandler = async () => ({});\n');
  const alerts: string[] = [];
  const options = demoOptions(assembly, { alert: (message) => alerts.push(message) });
  const startedAt = Date.now();
  const error = await abortedRun(options);
  expect(Date.now() - startedAt).toBeLessThan(30_000);
  expect(error.abort).toMatchObject({ reason: AbortReason.INIT_FAILURE, initFailure: { errorType: 'Runtime.HandlerNotFound' } });
  expect(error.abort.initFailure?.functionName).toMatch(/page-view-counter|PageViewCounter/i);
  expect(error.message).toMatch(/failed to initialize: Runtime\.HandlerNotFound: index\.handler is undefined or not exported/);
  expect(alerts[0]).toContain(`function ${error.abort.initFailure?.functionName} failed to initialize: Runtime.HandlerNotFound`);
  const logLine = dumped(options.dumpDir, 'functions.log').split('\n').find((line) => line.includes('"errorType":"Runtime.HandlerNotFound"'));
  expect(JSON.parse(logLine?.slice(logLine.indexOf('{')) ?? '{}')).toMatchObject({ level: 'ERROR', functionName: error.abort.initFailure?.functionName, errorMessage: 'index.handler is undefined or not exported' });
  expect(dumped(options.dumpDir, 'error.txt')).toContain('Runtime.HandlerNotFound');
  expect(existsSync(path.join(options.dumpDir, 'state.json'))).toBe(true);
}, 120_000);

test('a module that throws at top level is reported with its own error', async () => {
  const assembly = copyAssembly();
  replaceBundle(assembly, functionId(assembly, 'OrderProjection'), 'throw new Error("ORDERS_TABLE is not set");\n');
  const error = await abortedRun(demoOptions(assembly, { alert: () => undefined }));
  expect(error.abort.initFailure).toMatchObject({ errorType: 'Error', errorMessage: 'ORDERS_TABLE is not set' });
}, 120_000);

test('a drain that stalls still writes the whole dump, and error.txt names what did not drain', async () => {
  const assembly = copyAssembly();
  // Nothing can drain in a millisecond: the drain gives up at its first look without progress.
  const options = demoOptions(assembly, { drainStallMs: 1 });
  const error = await abortedRun(options);
  expect(error.abort.reason).toBe(AbortReason.DRAIN_STALLED);
  expect(error.abort.phase).toMatch(/^draining/);
  expect(error.abort.undrained?.length).toBeGreaterThan(0);
  const published = dumped(options.dumpDir, 'published.jsonl').trim().split('\n');
  expect(published.length).toBeGreaterThanOrEqual(60);
  expect(JSON.parse(dumped(options.dumpDir, 'state.json'))).toEqual(expect.objectContaining({ counters: expect.any(Object), orders: expect.any(Object), notifications: expect.any(Array) }));
  expect(existsSync(path.join(options.dumpDir, 'functions.log'))).toBe(true);
  const errorText = dumped(options.dumpDir, 'error.txt');
  expect(errorText).toContain('DrainStalledError');
  expect(errorText).toContain(`not drained: ${error.abort.undrained?.[0]?.name}`);
}, 120_000);
