/**
 * A function that cannot load or initialize fails loudly, as on Lambda: the error goes to the
 * functions' log as one JSON line (errorType, errorMessage, the function's name), and up to
 * whoever runs the function, once per execution environment whose init failed.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { fileOutput, InitFailureSignal, LocalFunction, type InitFailure } from '../../../emulator/functions';
import { uniqueName } from '../../helpers/engines';
import { commonJsAsset, removeAssets } from './assets';

const started: LocalFunction[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((fn) => fn.stop()));
});
afterAll(removeAssets);

async function brokenFunction(source: string, logFile: string, onInitFailure: (failure: InitFailure) => void): Promise<{ fn: LocalFunction; close: () => Promise<void> }> {
  const log = fileOutput(logFile);
  const fn = new LocalFunction({ name: uniqueName('broken'), assetDir: await commonJsAsset(source), timeoutSeconds: 3, environment: {}, output: log.sink, onInitFailure });
  started.push(fn);
  return { fn, close: log.close };
}

test.each([
  ['a missing handler export', 'exports.notTheHandler = async () => ({});', 'Runtime.HandlerNotFound', 'index.handler is undefined or not exported'],
  ['a module that throws at top level', 'throw new TypeError("config missing: TABLE_NAME");', 'TypeError', 'config missing: TABLE_NAME'],
  ['a syntax error', 'exports.handler = async () => {', 'Runtime.UserCodeSyntaxError', 'SyntaxError: Unexpected end of input'],
  ['a module that cannot be found', 'require("./not-there");', 'Runtime.ImportModuleError', "Error: Cannot find module './not-there'"],
])('%s is logged as Lambda logs it and reported up', async (_, source, errorType, message) => {
  const logFile = join(tmpdir(), `${uniqueName('init-failure')}.log`);
  const failures: InitFailure[] = [];
  const { fn, close } = await brokenFunction(source, logFile, (failure) => failures.push(failure));
  const result = await fn.invoke({});
  await close();
  expect(result.ok).toBe(false);
  expect(failures).toHaveLength(1);
  expect(failures[0]).toMatchObject({ functionName: fn.name, errorType });
  expect(failures[0]?.errorMessage).toContain(message);
  const lines = (await readFile(logFile, 'utf8')).trim().split('\n');
  expect(lines).toHaveLength(1);
  const prefix = `[${fn.name} stderr] `;
  expect(lines[0]?.startsWith(prefix)).toBe(true);
  expect(JSON.parse(lines[0]?.slice(prefix.length) ?? '')).toMatchObject({ level: 'ERROR', phase: 'init', functionName: fn.name, errorType, errorMessage: expect.stringContaining(message) });
  expect(fn.stats().initFailures).toBe(1);
});

test('every failed cold start is reported; the signal fires once, at the first, and a race rejects with it', async () => {
  const logFile = join(tmpdir(), `${uniqueName('init-failure')}.log`);
  const signal = new InitFailureSignal();
  const { fn, close } = await brokenFunction('exports.notTheHandler = 1;', logFile, signal.report);
  const slowWork = new Promise((resolve) => setTimeout(resolve, 30_000).unref());
  const raced = expect(signal.race(slowWork)).rejects.toThrow(`function ${fn.name} failed to initialize: Runtime.HandlerNotFound: index.handler is undefined or not exported`);
  const startedAt = Date.now();
  await fn.invoke({});
  await fn.invoke({});
  await close();
  await raced;
  expect(Date.now() - startedAt).toBeLessThan(10_000);
  expect(signal.signal.aborted).toBe(true);
  expect(signal.first?.functionName).toBe(fn.name);
  expect(fn.stats()).toMatchObject({ coldStarts: 2, initFailures: 2 });
});

test('a function stopped while it starts is not reported as an init failure', async () => {
  const failures: InitFailure[] = [];
  const log = fileOutput(join(tmpdir(), `${uniqueName('init-failure')}.log`));
  const fn = new LocalFunction({ name: uniqueName('slow-start'), assetDir: await commonJsAsset('const end = Date.now() + 2000; while (Date.now() < end) {} exports.handler = async () => ({});'), timeoutSeconds: 3, environment: {}, output: log.sink, onInitFailure: (failure) => failures.push(failure) });
  const invocation = fn.invoke({});
  await new Promise((resolve) => setTimeout(resolve, 300));
  await fn.stop();
  await invocation;
  await log.close();
  expect(failures).toEqual([]);
});
