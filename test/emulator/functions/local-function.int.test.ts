/**
 * LocalFunction runs handlers as Lambda does: one worker thread per execution environment, with
 * the function's own environment, a real context, timeouts that kill the sandbox and cold starts
 * after it. The last test calls DynamoDB Local from inside a worker through the function's env.
 * Every test runs twice: with the threads in this process, and in a runtime host (a process on
 * the nodejs24.x functions' Node.js that holds their threads), as local mode runs them when the
 * tools run on another major.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { destroyClients, endpointEnv, type LocalClients } from '../../../emulator/engines';
import { fileOutput, IN_PROCESS_THREADS, LocalFunction, nodeBinaryFor, RuntimeHost, type LocalFunctionConfig, type OutputSource, type ThreadStarter } from '../../../emulator/functions';
import type { InvokeResult } from '../../../emulator/types';
import { createTable, testClients, testEndpoints, uniqueName } from '../../helpers/engines';
import { pollUntil } from '../../helpers/poll';
import { bundledAsset, commonJsAsset, removeAssets } from './assets';

const started: LocalFunction[] = [];
let clients: LocalClients;
let threads: ThreadStarter = IN_PROCESS_THREADS;
beforeAll(() => {
  clients = testClients();
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((fn) => fn.stop()));
});
afterAll(async () => {
  destroyClients(clients);
  await removeAssets();
});

/** A function on a CommonJS asset; stopped after the test. */
async function localFunction(source: string, config: Partial<LocalFunctionConfig> = {}): Promise<LocalFunction> {
  const fn = new LocalFunction({ name: uniqueName('fn'), assetDir: await commonJsAsset(source), timeoutSeconds: 3, environment: {}, threads, ...config });
  started.push(fn);
  return fn;
}

function responseOf(result: InvokeResult): unknown {
  if (!result.ok) throw new Error(`invocation failed: ${result.error.kind} ${result.error.name}: ${result.error.message}`);
  return result.response;
}

/** Counts invocations per module instance: a new count means a new execution environment. */
const COUNTING_HANDLER = `
let calls = 0;
exports.handler = async (event) => {
  calls += 1;
  if (event.spin) for (;;) {}
  if (event.sleepMs) await new Promise((resolve) => setTimeout(resolve, event.sleepMs));
  if (event.exit) process.exit(3);
  return { calls, acceptSchemaV2: process.env.ACCEPT_SCHEMA_V2 };
};`;


/** The threads of this process, and a runtime host on the nodejs24.x binary (the tools' own when they run on 24, in a process of its own all the same). */
const THREAD_KINDS: readonly (readonly [string, () => Promise<{ threads: ThreadStarter; close(): void }>])[] = [
  ['in this process', async () => ({ threads: IN_PROCESS_THREADS, close: () => undefined })],
  ['in a Node.js 24 runtime host', async () => {
    const host = new RuntimeHost((await nodeBinaryFor('nodejs24.x')).path);
    return { threads: host.threadStarter, close: () => host.close() };
  }],
];

describe.each(THREAD_KINDS)('threads %s', (_kind, startThreads) => {
  let close = (): void => undefined;
  beforeAll(async () => {
    ({ threads, close } = await startThreads());
  });
  afterAll(() => close());

  test('two functions in one process each see only their own environment', async () => {
    const source = 'exports.handler = async () => ({ table: process.env.TABLE_NAME, name: process.env.AWS_LAMBDA_FUNCTION_NAME, home: process.env.EO_TEST_SQS_ENDPOINT });';
    const counter = await localFunction(source, { name: 'page-view-counter', environment: { TABLE_NAME: 'counters' } });
    const projection = await localFunction(source, { name: 'order-projection', environment: { TABLE_NAME: 'orders' } });
    const [a, b] = await Promise.all([counter.invoke({}), projection.invoke({})]);
    // No \`home\`: the host's variables (this Jest worker has EO_TEST_SQS_ENDPOINT) do not leak in.
    expect(responseOf(a)).toEqual({ table: 'counters', name: 'page-view-counter' });
    expect(responseOf(b)).toEqual({ table: 'orders', name: 'order-projection' });
    expect(process.env.TABLE_NAME).toBeUndefined();
  });

  test('the handler gets the event and a Lambda context whose remaining time counts down', async () => {
    const fn = await localFunction(
      `exports.handler = async (event, context) => {
        const before = context.getRemainingTimeInMillis();
        await new Promise((resolve) => setTimeout(resolve, 200));
        const { getRemainingTimeInMillis, done, succeed, fail, ...fields } = context;
        return { event, fields, before, after: getRemainingTimeInMillis(), streamEnv: process.env.AWS_LAMBDA_LOG_STREAM_NAME };
      };`,
      { name: 'context-probe', memoryMb: 256, timeoutSeconds: 3 },
    );
    type Probe = { fields: { logStreamName: string; awsRequestId: string }; before: number; after: number; streamEnv: string };
    const first = responseOf(await fn.invoke({ Records: [{ messageId: 'm1' }] })) as Probe;
    const second = responseOf(await fn.invoke({})) as Probe;
    expect(first).toMatchObject({
      event: { Records: [{ messageId: 'm1' }] },
      fields: {
        functionName: 'context-probe',
        functionVersion: '$LATEST',
        invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:context-probe',
        memoryLimitInMB: '256',
        awsRequestId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        logGroupName: '/aws/lambda/context-probe',
        logStreamName: expect.stringMatching(/^\d{4}\/\d{2}\/\d{2}\/\[\$LATEST\][0-9a-f]{32}$/),
        callbackWaitsForEmptyEventLoop: true,
      },
    });
    expect(first.before).toBeLessThanOrEqual(3000);
    expect(first.before).toBeGreaterThan(2500);
    expect(first.before - first.after).toBeGreaterThanOrEqual(180);
    // Same sandbox: same log stream, new request.
    expect(first.streamEnv).toBe(first.fields.logStreamName);
    expect(second.fields.logStreamName).toBe(first.fields.logStreamName);
    expect(second.fields.awsRequestId).not.toBe(first.fields.awsRequestId);
  });

  test('a thrown error is an error result, and the environment stays warm', async () => {
    const fn = await localFunction(`
      exports.handler = async (event) => {
        if (event.poison) throw Object.assign(new Error('payload.page is required'), { name: 'SchemaViolationError' });
        return 'counted';
      };`);
    const failed = await fn.invoke({ poison: true });
    expect(failed).toMatchObject({ ok: false, error: { kind: 'error', name: 'SchemaViolationError', message: 'payload.page is required' } });
    expect(responseOf(await fn.invoke({}))).toBe('counted');
    expect(fn.stats()).toEqual({ invocations: 2, coldStarts: 1, errors: 1, timeouts: 0, crashes: 0, initFailures: 0, peakEnvironmentLoad: 1 });
  });

  test('code that cannot load fails the call as Runtime.ImportModuleError, and the next call starts afresh', async () => {
    const fn = await localFunction("require('@aws-sdk/client-not-bundled'); exports.handler = async () => 'never';");
    expect(await fn.invoke({})).toMatchObject({ ok: false, error: { kind: 'error', name: 'Runtime.ImportModuleError', message: expect.stringMatching(/Cannot find module '@aws-sdk\/client-not-bundled'/) } });
    await fn.invoke({});
    expect(fn.stats()).toMatchObject({ invocations: 2, coldStarts: 2, errors: 2, initFailures: 2 });
  });

  test('a callback-style handler answers through its callback', async () => {
    const fn = await localFunction('exports.handler = (event, context, callback) => { setTimeout(() => callback(null, { echoed: event.n }), 10); };');
    expect(responseOf(await fn.invoke({ n: 7 }))).toEqual({ echoed: 7 });
  });

  test('a timeout terminates the environment, even a busy one, and the next call cold-starts', async () => {
    const fn = await localFunction(COUNTING_HANDLER, { timeoutSeconds: 0.3 });
    expect(responseOf(await fn.invoke({}))).toMatchObject({ calls: 1 });
    const timedOut = await fn.invoke({ spin: true });
    expect(timedOut).toMatchObject({ ok: false, error: { kind: 'timeout', name: 'Sandbox.Timedout', message: 'Task timed out after 0.30 seconds' } });
    expect(timedOut.durationMs).toBeGreaterThanOrEqual(290);
    expect(timedOut.durationMs).toBeLessThan(1000);
    // A fresh module: the count starts again.
    expect(responseOf(await fn.invoke({}))).toMatchObject({ calls: 1 });
    expect(fn.stats()).toEqual({ invocations: 3, coldStarts: 2, errors: 0, timeouts: 1, crashes: 0, initFailures: 0, peakEnvironmentLoad: 1 });
  });

  test('kill() ends the invocation in flight as a crash, and the next call cold-starts', async () => {
    const fn = await localFunction(COUNTING_HANDLER);
    const inFlight = fn.invoke({ sleepMs: 2_000 });
    await sleep(300);
    await fn.kill();
    expect(await inFlight).toMatchObject({ ok: false, error: { kind: 'crash', name: 'Runtime.ExitError' } });
    expect(responseOf(await fn.invoke({}))).toMatchObject({ calls: 1 });
    expect(fn.stats()).toMatchObject({ coldStarts: 2, crashes: 1 });
  });

  test('a handler that exits its runtime is a crash', async () => {
    const fn = await localFunction(COUNTING_HANDLER);
    const result = await fn.invoke({ exit: true });
    expect(result).toMatchObject({ ok: false, error: { kind: 'crash', name: 'Runtime.ExitError', message: expect.stringMatching(/exit code 3/) } });
    expect(responseOf(await fn.invoke({}))).toMatchObject({ calls: 1 });
  });

  test('an error nothing caught ends the runtime as a crash that names it', async () => {
    const fn = await localFunction("exports.handler = async () => { setTimeout(() => { throw new TypeError('late boom'); }, 10); await new Promise((resolve) => setTimeout(resolve, 1000)); return 'never'; };");
    const result = await fn.invoke({});
    expect(result).toMatchObject({ ok: false, error: { kind: 'crash', name: 'Runtime.ExitError', message: 'Runtime exited with error: TypeError: late boom' } });
    expect(fn.stats()).toMatchObject({ crashes: 1 });
  });

  test('setEnvironment deploys a fix: the next call cold-starts with the new variables', async () => {
    const fn = await localFunction(COUNTING_HANDLER, { environment: { ACCEPT_SCHEMA_V2: 'false' } });
    expect(responseOf(await fn.invoke({}))).toEqual({ calls: 1, acceptSchemaV2: 'false' });
    await fn.setEnvironment({ ACCEPT_SCHEMA_V2: 'true' });
    expect(responseOf(await fn.invoke({}))).toEqual({ calls: 1, acceptSchemaV2: 'true' });
    expect(fn.stats().coldStarts).toBe(2);
  });

  test('no more invocations run at once than the concurrency allows', async () => {
    const fn = await localFunction(
      'exports.handler = async () => { const start = Date.now(); await new Promise((r) => setTimeout(r, 250)); return { start, end: Date.now() }; };',
      { concurrency: 2 },
    );
    const spans = (await Promise.all(Array.from({ length: 5 }, () => fn.invoke({})))).map((result) => responseOf(result) as { start: number; end: number });
    const overlapAt = (t: number): number => spans.filter((span) => span.start <= t && t < span.end).length;
    expect(Math.max(...spans.map((span) => overlapAt(span.start)))).toBe(2);
    expect(fn.stats()).toMatchObject({ invocations: 5, coldStarts: 2 });
  });

  test("the handler's stdout and stderr go to the sink, and fileOutput writes them line by line", async () => {
    const chunks: Array<{ chunk: string } & OutputSource> = [];
    const dir = await commonJsAsset('');
    const log = fileOutput(join(dir, 'functions.log'));
    const source = "exports.handler = async () => { console.log('batch done\\nrecords: 2'); console.error('retrying'); return 'ok'; };";
    const fn = await localFunction(source, {
      name: 'noisy',
      output: (chunk, from) => {
        chunks.push({ chunk, ...from });
        log.sink(chunk, from);
      },
    });
    await fn.invoke({});
    // Output travels on its own stream, so it may land just after the response.
    await pollUntil(async () => (chunks.length >= 2 ? true : undefined), 'the output');
    await fn.stop();
    await log.close();
    expect(chunks).toEqual(
      expect.arrayContaining([
        { chunk: 'batch done\nrecords: 2\n', functionName: 'noisy', stream: 'stdout' },
        { chunk: 'retrying\n', functionName: 'noisy', stream: 'stderr' },
      ]),
    );
    expect((await readFile(join(dir, 'functions.log'), 'utf8')).split('\n').sort()).toEqual(['', '[noisy stderr] retrying', '[noisy stdout] batch done', '[noisy stdout] records: 2']);
  });

  test('a bundled handler reaches DynamoDB Local through AWS_ENDPOINT_URL_DYNAMODB in its environment', async () => {
    const table = await createTable(clients.dynamodb, { name: uniqueName('fn-writes'), partitionKey: 'pk' });
    const assetDir = await bundledAsset(`
      import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
      const client = new DynamoDBClient({});
      export const handler = async (event: { pk: string }) => {
        await client.send(new PutItemCommand({ TableName: process.env.TABLE_NAME, Item: { pk: { S: event.pk }, by: { S: process.env.AWS_LAMBDA_FUNCTION_NAME ?? '' } } }));
        return { written: event.pk };
      };`);
    const environment = { ...endpointEnv({ dynamodb: testEndpoints().dynamodb }), TABLE_NAME: table.tableName };
    const fn = new LocalFunction({ name: 'writer', assetDir, timeoutSeconds: 10, environment, threads });
    started.push(fn);
    expect(responseOf(await fn.invoke({ pk: 'written-from-a-worker' }))).toEqual({ written: 'written-from-a-worker' });
    const { Item } = await clients.dynamodb.send(new GetItemCommand({ TableName: table.tableName, Key: { pk: { S: 'written-from-a-worker' } }, ConsistentRead: true }));
    expect(Item?.by).toEqual({ S: 'writer' });
  });
});
