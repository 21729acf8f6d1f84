/**
 * The one test file that runs esbuild (every other test skips bundling to stay fast): a deployed
 * function carries its own AWS SDK, the one package-lock pins, and needs nothing of an
 * installation. Its asset is copied where no `node_modules` can be found and run in a child
 * `node` without `NODE_PATH`; the same entry bundled with the SDK external, as CDK's default
 * would leave it, fails to load there.
 */
import { DescribeLimitsCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Stack } from 'aws-cdk-lib';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Metafile } from 'esbuild';
import { assertNoNodeModulesAbove, bundleHandler } from '../../tools/bench/coldstart';
import { QueueConsumer } from '../../lib';
import { pageView, sqsEvent, sqsRecord } from '../helpers/events';
import { testApp } from './support';

const run = promisify(execFile);
const ROOT = path.join(__dirname, '..', '..');
/** A deployed handler, with everything the real ones import: the runtime, Powertools, zod, the SDK's clients. */
const ENTRY = path.join(ROOT, 'example', 'handlers', 'page-view-counter.ts');

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-bundling-'));
/** The asset as Lambda would unpack it, away from the repository. */
const deployed = path.join(work, 'deployed');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

beforeAll(() => {
  const outdir = path.join(work, 'cdk.out');
  const app = testApp({ bundle: true, outdir });
  const stack = new Stack(app, 'Bundled');
  new QueueConsumer(stack, 'Counter', { consumerName: 'page-view-counter', entry: ENTRY, alarmTopic: new Topic(stack, 'Alarms') });
  app.synth();
  const assets = fs.readdirSync(outdir).filter((name) => name.startsWith('asset.'));
  expect(assets).toHaveLength(1);
  fs.cpSync(path.join(outdir, assets[0] ?? ''), deployed, { recursive: true });
}, 120_000);

test('the asset is index.js and its source map, which maps into the SDK too', () => {
  expect(fs.readdirSync(deployed).sort()).toEqual(['index.js', 'index.js.map']);
  const { sources } = JSON.parse(fs.readFileSync(path.join(deployed, 'index.js.map'), 'utf8')) as { sources: string[] };
  expect(sources.some((source) => source.includes('node_modules/@aws-sdk/client-dynamodb/'))).toBe(true);
  expect(sources.some((source) => source.includes('node_modules/@smithy/'))).toBe(true);
});

test('copied where no node_modules is in reach, NODE_PATH unset, it loads and commits a page view through the SDK it carries: the one installed here', async () => {
  assertNoNodeModulesAbove(deployed);
  const dynamodb = await fakeDynamoDb();
  try {
    const { stdout } = await invoke(deployed, { AWS_ENDPOINT_URL_DYNAMODB: dynamodb.url });
    expect(JSON.parse(stdout.trim().split('\n').pop() ?? '')).toEqual({ batchItemFailures: [] });
    expect(dynamodb.requests.map((headers) => headers['x-amz-target'])).toEqual(['DynamoDB_20120810.TransactWriteItems']);
    await installedClientRequest(dynamodb.url);
    const [bundled, installed] = dynamodb.requests.map((headers) => /api\/dynamodb#\S+/.exec(headers['user-agent'] ?? '')?.[0]);
    expect(bundled).toMatch(/^api\/dynamodb#3\./);
    expect(bundled).toBe(installed);
  } finally {
    dynamodb.server.close();
  }
});

test('the benchmark bundles it byte for byte as CDK does, and it imports nothing but Node.js built-ins', async () => {
  const dir = path.join(work, 'bench-bundled');
  const metafile = await bundleHandler(ENTRY, dir, 'bundled');
  expect(fs.readFileSync(path.join(dir, 'index.js')).equals(fs.readFileSync(path.join(deployed, 'index.js')))).toBe(true);
  expect(externalImports(metafile).filter((name) => !name.startsWith('node:'))).toEqual([]);
});

test('with the SDK external, as CDK leaves it by default, the same copy fails to load: MODULE_NOT_FOUND', async () => {
  const dir = path.join(work, 'sdk-external');
  const metafile = await bundleHandler(ENTRY, dir, 'external');
  expect(externalImports(metafile)).toEqual(expect.arrayContaining(['@aws-sdk/client-dynamodb', '@aws-sdk/client-sqs']));
  assertNoNodeModulesAbove(dir);
  await expect(invoke(dir)).rejects.toMatchObject({ stderr: expect.stringMatching(/Cannot find module '@aws-sdk\/[^']+'[\s\S]*MODULE_NOT_FOUND/) });
});

/** Runs the bundle's handler on one page view in a fresh `node`, with the function's environment and nothing else. */
function invoke(dir: string, extraEnv: Readonly<Record<string, string>> = {}): Promise<{ stdout: string; stderr: string }> {
  const event = JSON.stringify(sqsEvent(sqsRecord(pageView('home'))));
  const script = "require('./index.js').handler(JSON.parse(process.argv[1]),{getRemainingTimeInMillis:()=>30000}).then((r)=>console.log(JSON.stringify(r)))";
  const env = { PATH: process.env.PATH ?? '', HOME: dir, ...FUNCTION_ENV, ...extraEnv };
  return run(process.execPath, ['--enable-source-maps', '-e', script, event], { cwd: dir, env, timeout: 30_000 });
}

const FUNCTION_ENV = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  COUNTERS_TABLE: 'counters',
  IDEMPOTENCY_TABLE: 'idempotency',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  POWERTOOLS_METRICS_DISABLED: 'true',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
} as const;

/** An HTTP endpoint that records each request's headers and answers as DynamoDB does to a committed transaction. */
async function fakeDynamoDb(): Promise<{ server: Server; url: string; requests: IncomingHttpHeaders[] }> {
  const requests: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    requests.push(request.headers);
    request.resume().on('end', () => response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

/** One request from the DynamoDB client of this repository's node_modules (package-lock's), whose user agent names its version. */
async function installedClientRequest(endpoint: string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: FUNCTION_ENV.AWS_REGION, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  try {
    await client.send(new DescribeLimitsCommand({}));
  } finally {
    client.destroy();
  }
}

/** What the bundle leaves to `require` at run time. */
function externalImports(metafile: Metafile): string[] {
  const imports = Object.values(metafile.outputs).flatMap((output) => output.imports.filter((entry) => entry.external).map((entry) => entry.path));
  return [...new Set(imports)].sort();
}
