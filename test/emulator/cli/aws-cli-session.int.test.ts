/**
 * docs/local-mode.md's "A session with the AWS CLI", run as written: starts `eo local up` as a
 * child process with its state in a temporary folder, waits for the banner, runs the doc's
 * ```bash session block with `bash -euo pipefail` from that folder (the block sources the env file
 * `eo local up` wrote there), and checks through the gateways that the counters hold the views,
 * the order is at its version and the DLQ holds the poison with its context.
 *
 * It takes the `aws` on PATH (`EO_AWS_CLI=/path/to/aws` picks another) and does not use the
 * engines Jest's global setup starts: the stack it drives is the child's.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { awsCliFilesBeside } from '../../../emulator/cli/aws-cli-config';
import type { LocalStateFile } from '../../../operations/dlq';
import { ExecuteStatementCommand } from '@aws-sdk/client-rds-data';
import { dynamoDbClient, sqsClient } from '../../../emulator/engines';
import { dataApiClient } from '../../../emulator/engines/clients';
import { PAGE_VIEW_COUNTER_SHARDS } from '../../../example/counter-shards';
import { readCounter } from '../../../lambdas/runtime';

const REPO = path.resolve(__dirname, '..', '..', '..');
const DOC = path.join(REPO, 'docs', 'local-mode.md');
const BANNER_END = 'Press Ctrl-C to stop.';
/** A synth may come first (cdk.out older than the sources), on a machine that may be busy. */
const BANNER_TIMEOUT_MS = 6 * 60_000;
const SESSION_TIMEOUT_MS = 4 * 60_000;
const STOP_TIMEOUT_MS = 30_000;

jest.setTimeout(BANNER_TIMEOUT_MS + SESSION_TIMEOUT_MS + 2 * STOP_TIMEOUT_MS);

/** The one ```bash session block of the doc. */
function sessionBlock(markdown: string): string {
  const blocks = [...markdown.matchAll(/^```bash session\n([\s\S]*?)^```$/gm)];
  if (blocks.length !== 1) throw new Error(`${DOC} must hold exactly one \`\`\`bash session block (found ${blocks.length})`);
  return blocks[0][1];
}

/**
 * The AWS CLI's version, or an error that says what to install. Configured endpoints (the env
 * file's variables and the profile's services section) came with AWS CLI v1 1.29 and v2 2.13.
 */
function requireAwsCli(aws: string): string {
  const result = spawnSync(aws, ['--version'], { encoding: 'utf8' });
  const install = 'Install AWS CLI v1 (`pip install awscli`, 1.29 or later) or a current v2 (the awscli-exe-linux zip from AWS); not Debian\'s `awscli` 2.9.';
  if (result.error) throw new Error(`The AWS CLI (\`${aws}\`) cannot be run (${result.error.message}): this test runs docs/local-mode.md's session with it. ${install}`);
  const version = /aws-cli\/(\d+)\.(\d+)\.\d+/.exec(`${result.stdout}${result.stderr}`);
  const [major, minor] = version ? [Number(version[1]), Number(version[2])] : [0, 0];
  if ((major === 1 && minor >= 29) || (major === 2 && minor >= 13)) return version![0];
  throw new Error(`\`${aws} --version\` says ${JSON.stringify(`${result.stdout}${result.stderr}`.trim())}: it reads no configured endpoints. ${install}`);
}

/** A `bin` folder whose `aws` is the CLI to test, put first on PATH, when `EO_AWS_CLI` names one. */
function pathWithAwsCli(folder: string): string {
  const chosen = process.env.EO_AWS_CLI;
  if (!chosen) return process.env.PATH ?? '';
  const bin = path.join(folder, 'bin');
  mkdirSync(bin, { recursive: true });
  symlinkSync(chosen, path.join(bin, 'aws'));
  return `${bin}${path.delimiter}${process.env.PATH ?? ''}`;
}

/** `eo local up` running as a child, in its own process group so that one signal reaches its engines too. */
class LocalUp {
  public readonly child: ChildProcess;
  private stdout = '';
  private stderr = '';

  public constructor(stateFile: string, functionsLog: string) {
    // One process, as `npm run eo` and the package's bin run it: tsx's CLI would run it as a child
    // and SIGKILL it when it is slow to acknowledge a relayed signal, before its cleanup.
    this.child = spawn(process.execPath, ['--import', 'tsx', 'bin/eo.ts', 'local', 'up', '--state', stateFile, '--functions-log', functionsLog, '--quiet'], {
      cwd: REPO,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    });
    this.child.stdout!.on('data', (chunk: Buffer) => (this.stdout += chunk.toString('utf8')));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
  }

  /** The banner, once printed; fails if the child exits or takes too long first. */
  public async banner(): Promise<string> {
    const deadline = Date.now() + BANNER_TIMEOUT_MS;
    while (!this.stdout.includes(BANNER_END)) {
      if (this.child.exitCode !== null || this.child.signalCode !== null) throw new Error(`eo local up exited (${this.child.exitCode ?? this.child.signalCode}) before its banner:\n${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`no banner from eo local up after ${BANNER_TIMEOUT_MS} ms:\n${this.stdout}\n${this.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return this.stdout;
  }

  /** Ctrl-C's equivalent for the whole group, then SIGKILL for whatever is left after a while. */
  public async stop(): Promise<void> {
    if (!this.groupAlive()) return;
    this.signalGroup('SIGTERM');
    const deadline = Date.now() + STOP_TIMEOUT_MS;
    while (this.groupAlive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    this.signalGroup('SIGKILL');
  }

  /** How the child ended and what it last wrote, for a failure message. */
  public ending(): string {
    return `eo local up ended with ${this.child.exitCode ?? this.child.signalCode}; its stderr:\n${this.stderr.slice(-2_000)}`;
  }

  /** For the 'exit' handler, which can only do synchronous work. */
  public kill(): void {
    this.signalGroup('SIGKILL');
  }

  private groupAlive(): boolean {
    return this.signalGroup(0);
  }

  private signalGroup(signal: NodeJS.Signals | 0): boolean {
    try {
      process.kill(-this.child.pid!, signal);
      return true;
    } catch {
      return false;
    }
  }
}

interface SessionResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the block as a user's shell would: from `folder`, with no AWS variables of the test's own. */
function runSession(block: string, folder: string): Promise<SessionResult> {
  const env = { PATH: pathWithAwsCli(folder), HOME: process.env.HOME ?? folder, LANG: 'C.UTF-8' };
  const shell = spawn('bash', ['-euo', 'pipefail', '-c', block], { cwd: folder, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  shell.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  shell.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => shell.kill('SIGKILL'), SESSION_TIMEOUT_MS);
  return new Promise((resolve) => shell.on('close', (status) => {
    clearTimeout(timer);
    resolve({ status, stdout, stderr });
  }));
}

const folder = mkdtempSync(path.join(tmpdir(), 'eo-aws-cli-session-'));
const stateFile = path.join(folder, '.eo', 'local.json');
const files = awsCliFilesBeside(stateFile);
let localUp: LocalUp | undefined;
const killOnExit = (): void => localUp?.kill();

beforeAll(() => {
  requireAwsCli(process.env.EO_AWS_CLI ?? 'aws');
  process.on('exit', killOnExit);
  localUp = new LocalUp(stateFile, path.join(folder, '.eo', 'functions.log'));
});

afterAll(async () => {
  await localUp?.stop();
  process.off('exit', killOnExit);
  rmSync(folder, { recursive: true, force: true });
});

/** A number attribute of an item, read through the gateway. */
async function numberOf(state: LocalStateFile, table: string, pk: string, attribute: string): Promise<number | undefined> {
  const client = dynamoDbClient(state.endpoints.dynamodb);
  try {
    const { Item } = await client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: pk } } }));
    return Item?.[attribute]?.N === undefined ? undefined : Number(Item[attribute].N);
  } finally {
    client.destroy();
  }
}

/** A page-view counter, its shards summed, read through the gateway as the stack's readers would. */
async function viewsOf(state: LocalStateFile, table: string, pk: string): Promise<number> {
  const client = dynamoDbClient(state.endpoints.dynamodb);
  try {
    return await readCounter(client, { table, key: { pk }, attribute: 'views', shards: PAGE_VIEW_COUNTER_SHARDS, consistent: true });
  } finally {
    client.destroy();
  }
}

/** Visible plus in-flight messages of a queue (the session's receive leaves its message in flight for a moment). */
async function depthOf(state: LocalStateFile, queueUrl: string): Promise<number> {
  const client = sqsClient(state.endpoints.sqs);
  try {
    const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
    return Number(Attributes?.ApproximateNumberOfMessages) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible);
  } finally {
    client.destroy();
  }
}

/** An invoice's `paid_cents` through the local Data API, with the cluster the state file names. */
async function paidCentsOf(state: LocalStateFile, invoiceId: string): Promise<number | undefined> {
  const [cluster] = state.sql?.clusters ?? [];
  if (cluster === undefined || state.endpoints.rdsData === undefined) throw new Error('the state file names no SQL cluster: the example stack has one');
  const client = dataApiClient(state.endpoints.rdsData);
  try {
    const result = await client.send(new ExecuteStatementCommand({ resourceArn: cluster.resourceArn, secretArn: cluster.secretArn, database: cluster.database, sql: 'SELECT paid_cents FROM invoices WHERE invoice_id = :invoice', parameters: [{ name: 'invoice', value: { stringValue: invoiceId } }] }));
    return result.records?.[0]?.[0]?.longValue;
  } finally {
    client.destroy();
  }
}

test('the session in docs/local-mode.md runs with the AWS CLI against eo local up, and does what it says', async () => {
  const banner = await localUp!.banner();
  expect(banner).toContain(`\n  source ${files.envFile}\n`);
  const state = JSON.parse(readFileSync(stateFile, 'utf8')) as LocalStateFile;
  const { outputs } = state.topology;

  const session = await runSession(sessionBlock(readFileSync(DOC, 'utf8')), folder);
  expect({ status: session.status, stderr: session.stderr }).toEqual({ status: 0, stderr: '' });

  const lines = session.stdout.trim().split('\n');
  expect(lines).toEqual(expect.arrayContaining(['page#home\t3', 'day#2026-12-01\t3', 'cli-1\tPAID\t2\tcli-1:2']));
  expect(await viewsOf(state, outputs.CountersTableName, 'page#home')).toBe(3);
  expect(await viewsOf(state, outputs.CountersTableName, 'day#2026-12-01')).toBe(3);
  expect(await numberOf(state, outputs.CountersTableName, 'page#home', 'views')).toBeUndefined();
  expect(await numberOf(state, outputs.OrdersTableName, 'order#cli-1', 'version')).toBe(2);

  const pageViewsDlq = state.topology.deadLetterQueues.find((dlq) => dlq.url === outputs.PageViewCounterDlqUrl);
  const wrapper = JSON.parse(lines.find((line) => line.startsWith('{')) ?? 'null') as Record<string, unknown>;
  expect(wrapper).toMatchObject({
    format: 'effectively-once/failure',
    consumer: 'page-view-counter',
    reason: 'permanent',
    attempts: 1,
    error: { name: 'InvalidEnvelopeError', kind: 'permanent' },
    source: { kind: 'sqs', arn: pageViewsDlq?.sources[0].arn },
    original: { body: 'not json' },
  });
  expect(await depthOf(state, outputs.PageViewCounterDlqUrl)).toBe(1);
  // The payment the session read through `aws rds-data`, read again here with the state's cluster.
  expect(await paidCentsOf(state, 'inv-cli')).toBe(1500);
});

test('stopping eo local up removes the state, the AWS config file and the env file', async () => {
  await localUp!.stop();
  const left = [stateFile, files.configFile, files.envFile].filter((file) => existsSync(file));
  expect({ left, ...(left.length > 0 && { ending: localUp!.ending() }) }).toEqual({ left: [] });
});
