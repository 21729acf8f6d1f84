/**
 * A LocalFunction on Lambda Managed Instances (`perEnvironmentMaxConcurrency`) runs as AWS's
 * Node.js runtime does there: one environment takes several invocations at once in its one worker
 * thread, sharing the handler's module state, with `AWS_LAMBDA_MAX_CONCURRENCY` set and an invoke
 * store per invocation (Powertools relies on it); a timeout reports the invocation failed while its
 * code runs on. The threads run in this process, and once in a runtime host (same bootstrap, over IPC).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFunction, nodeBinaryFor, RuntimeHost, type LocalFunctionConfig } from '../../../emulator/functions';
import type { InvokeResult } from '../../../emulator/types';
import { uniqueName } from '../../helpers/engines';
import { pollUntil } from '../../helpers/poll';
import { commonJsAsset, removeAssets } from './assets';

const started: LocalFunction[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((fn) => fn.stop()));
});
afterAll(async () => {
  await removeAssets();
});

async function localFunction(assetDir: string, config: Partial<LocalFunctionConfig> = {}): Promise<LocalFunction> {
  const fn = new LocalFunction({ name: uniqueName('lmi'), assetDir, timeoutSeconds: 3, environment: {}, ...config });
  started.push(fn);
  return fn;
}

function responseOf(result: InvokeResult): unknown {
  if (!result.ok) throw new Error(`invocation failed: ${result.error.kind} ${result.error.name}: ${result.error.message}`);
  return result.response;
}

/**
 * Each call names its wait; it answers with what it saw of the module, its context and the invoke
 * store after the wait, when the other calls have run meanwhile.
 */
const PROBE = `
const environment = Math.random().toString(36).slice(2);
let started = 0;
let running = 0;
exports.handler = async (event, context) => {
  started += 1;
  running += 1;
  const mostAtOnce = () => running;
  await new Promise((resolve) => setTimeout(resolve, event.waitMs));
  const seenRunning = mostAtOnce();
  running -= 1;
  const store = globalThis.awslambda && globalThis.awslambda.InvokeStore;
  return {
    environment,
    started,
    seenRunning,
    requestId: context.awsRequestId,
    storeRequestId: store ? store.getRequestId() : undefined,
    maxConcurrency: process.env.AWS_LAMBDA_MAX_CONCURRENCY,
    initializationType: process.env.AWS_LAMBDA_INITIALIZATION_TYPE,
    version: context.functionVersion,
  };
};`;

type Probe = { environment: string; started: number; seenRunning: number; requestId: string; storeRequestId?: string; maxConcurrency?: string; initializationType: string; version: string };

describe('a function on Lambda Managed Instances, locally', () => {
  test('one environment runs several invocations at once, sharing the module, each answered with its own result and its own invoke-store context', async () => {
    const fn = await localFunction(await commonJsAsset(PROBE), { perEnvironmentMaxConcurrency: 4 });
    // The first call waits longest, so the answers come back in the other order: each must still reach its own caller.
    const results = (await Promise.all([300, 200, 100].map(async (waitMs) => ({ waitMs, probe: responseOf(await fn.invoke({ waitMs })) as Probe })))).map(({ probe }) => probe);
    expect(new Set(results.map((probe) => probe.environment)).size).toBe(1);
    expect(fn.stats()).toMatchObject({ invocations: 3, coldStarts: 1, peakEnvironmentLoad: 3 });
    expect(Math.max(...results.map((probe) => probe.seenRunning))).toBe(3);
    expect(new Set(results.map((probe) => probe.requestId)).size).toBe(3);
    for (const probe of results) {
      expect(probe.storeRequestId).toBe(probe.requestId);
      expect(probe).toMatchObject({ maxConcurrency: '4', initializationType: 'lambda-managed-instances', version: '$LATEST.PUBLISHED' });
    }
  });

  test('in a Node.js 24 runtime host too (as local mode runs a stack whose functions are not on the tools\' major): several invocations at once in one environment, each answered as its own', async () => {
    const host = new RuntimeHost((await nodeBinaryFor('nodejs24.x')).path);
    try {
      const fn = await localFunction(await commonJsAsset(PROBE), { perEnvironmentMaxConcurrency: 4, threads: host.threadStarter });
      const results = (await Promise.all([300, 200, 100].map(async (waitMs) => responseOf(await fn.invoke({ waitMs }))))) as Probe[];
      expect(new Set(results.map((probe) => probe.environment)).size).toBe(1);
      expect(new Set(results.map((probe) => probe.requestId)).size).toBe(3);
      expect(Math.max(...results.map((probe) => probe.seenRunning))).toBe(3);
      for (const probe of results) expect(probe.storeRequestId).toBe(probe.requestId);
      expect(fn.stats()).toMatchObject({ invocations: 3, coldStarts: 1, peakEnvironmentLoad: 3 });
      await fn.stop();
    } finally {
      host.close();
    }
  });

  test('an environment takes at most its PerExecutionEnvironmentMaxConcurrency; more calls go to a new environment, or wait when none may start', async () => {
    const spread = await localFunction(await commonJsAsset(PROBE), { perEnvironmentMaxConcurrency: 2, concurrency: 2 });
    const spreadResults = (await Promise.all([0, 1, 2].map(async () => responseOf(await spread.invoke({ waitMs: 200 }))))) as Probe[];
    expect(new Set(spreadResults.map((probe) => probe.environment)).size).toBe(2);
    expect(Math.max(...spreadResults.map((probe) => probe.seenRunning))).toBe(2);

    const bounded = await localFunction(await commonJsAsset(PROBE), { perEnvironmentMaxConcurrency: 2, concurrency: 1 });
    const boundedResults = (await Promise.all([0, 1, 2].map(async () => responseOf(await bounded.invoke({ waitMs: 200 }))))) as Probe[];
    expect(new Set(boundedResults.map((probe) => probe.environment)).size).toBe(1);
    expect(Math.max(...boundedResults.map((probe) => probe.seenRunning))).toBe(2);
    expect(bounded.stats()).toMatchObject({ invocations: 3, coldStarts: 1, peakEnvironmentLoad: 2 });
  });

  test('a timeout reports the invocation failed, and its code runs on in the same environment', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'eo-lmi-'));
    try {
      const marker = join(dir, 'finished');
      const source = `
        const { writeFileSync } = require('node:fs');
        let calls = 0;
        exports.handler = async (event) => {
          calls += 1;
          if (event.overrun) {
            await new Promise((resolve) => setTimeout(resolve, 1500));
            writeFileSync(${JSON.stringify(marker)}, 'the code ran past its deadline');
          }
          return { calls };
        };`;
      const fn = await localFunction(await commonJsAsset(source), { perEnvironmentMaxConcurrency: 2, timeoutSeconds: 0.5 });
      const timedOut = await fn.invoke({ overrun: true });
      expect(timedOut).toMatchObject({ ok: false, error: { kind: 'timeout', name: 'Sandbox.Timedout' } });
      // The environment was not discarded: the next call shares its module while the first still runs.
      expect(responseOf(await fn.invoke({}))).toEqual({ calls: 2 });
      const written = await pollUntil(async () => (await readFile(marker, 'utf8').catch(() => undefined)), 'the timed-out code to finish', { timeoutMs: 5000 });
      expect(written).toBe('the code ran past its deadline');
      expect(fn.stats()).toMatchObject({ invocations: 2, coldStarts: 1, timeouts: 1 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  /** The repository's own Powertools batch, required by its path: a test asset is a temporary directory with no node_modules. */
  const POWERTOOLS_BATCH = JSON.stringify(require.resolve('@aws-lambda-powertools/batch'));
  const sqsBatch = (id: string, bodies: string[]) => ({ Records: bodies.map((body, index) => ({ messageId: `${id}-${index}`, body, eventSource: 'aws:sqs' })) });

  test("Powertools' batch processor, made per invocation, keeps each of two batches at once apart through the invoke store", async () => {
    const source = `
      const { BatchProcessor, EventType, processPartialResponse } = require(${POWERTOOLS_BATCH});
      exports.handler = async (event, context) =>
        processPartialResponse(event, async (record) => {
          await new Promise((resolve) => setTimeout(resolve, 50));
          if (record.body === 'poison') throw new Error('poison');
        }, new BatchProcessor(EventType.SQS), { context });`;
    const fn = await localFunction(await commonJsAsset(source), { perEnvironmentMaxConcurrency: 2, timeoutSeconds: 10 });
    const [first, second] = await Promise.all([fn.invoke(sqsBatch('a', ['ok', 'poison', 'ok'])), fn.invoke(sqsBatch('b', ['ok', 'ok', 'poison']))]);
    // Each invocation reports its own failures: Powertools keeps its state in the invocation's context of the store.
    expect(responseOf(first)).toEqual({ batchItemFailures: [{ itemIdentifier: 'a-1' }] });
    expect(responseOf(second)).toEqual({ batchItemFailures: [{ itemIdentifier: 'b-2' }] });
    expect(fn.stats()).toMatchObject({ invocations: 2, coldStarts: 1 });
  });

  test("init runs outside any invocation's context: Powertools 2.35's module-scoped batch processor fails its cold start there", async () => {
    // @aws/lambda-invoke-store's multi-context store throws on a write outside a context, and the
    // released Powertools (2.35) writes its state from the processor's constructor; its main branch
    // has since fallen back to instance state outside a context. Local mode shows what AWS would.
    const source = `
      const { BatchProcessor, EventType, processPartialResponse } = require(${POWERTOOLS_BATCH});
      const processor = new BatchProcessor(EventType.SQS);
      exports.handler = async (event, context) => processPartialResponse(event, async () => undefined, processor, { context });`;
    const fn = await localFunction(await commonJsAsset(source), { perEnvironmentMaxConcurrency: 2 });
    expect(await fn.invoke(sqsBatch('a', ['ok']))).toMatchObject({ ok: false, error: { kind: 'error', message: 'No context available' } });
    expect(fn.stats()).toMatchObject({ initFailures: 1 });
  });

  test("Lambda's default model is unchanged: no AWS_LAMBDA_MAX_CONCURRENCY, no invoke store, one invocation per environment", async () => {
    const fn = await localFunction(await commonJsAsset(PROBE), { concurrency: 2 });
    const results = (await Promise.all([0, 1].map(async () => responseOf(await fn.invoke({ waitMs: 100 }))))) as Probe[];
    expect(new Set(results.map((probe) => probe.environment)).size).toBe(2);
    for (const probe of results) {
      expect(probe).toMatchObject({ seenRunning: 1, initializationType: 'on-demand', version: '$LATEST' });
      // JSON drops what is undefined: the keys are absent.
      expect(probe).not.toHaveProperty('maxConcurrency');
      expect(probe).not.toHaveProperty('storeRequestId');
    }
  });

  test('a PerExecutionEnvironmentMaxConcurrency AWS refuses is refused', async () => {
    const assetDir = await commonJsAsset(PROBE);
    for (const value of [0, 1601, 1.5]) {
      expect(() => new LocalFunction({ name: 'refused', assetDir, timeoutSeconds: 3, environment: {}, perEnvironmentMaxConcurrency: value })).toThrow(`perEnvironmentMaxConcurrency must be an integer 1..1600 (given ${value})`);
    }
  });
});
