/**
 * What `eo local up` gives a shell for the AWS CLI and the SDKs: the banner's lines, the AWS config
 * file (a profile with per-service endpoints) and the env file, and that a shell and the SDK v3
 * read them as meant. The AWS CLI itself runs them in test/emulator/cli/aws-cli-session.int.test.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { KinesisClient, ListStreamsCommand } from '@aws-sdk/client-kinesis';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import {
  awsCliFilesBeside,
  awsConfigText,
  envFileText,
  outputVariableName,
  removeAwsCliFiles,
  sqlVariables,
  writeAwsCliFiles,
  type AwsCliFiles,
} from '../../../emulator/cli/aws-cli-config';
import { alarmsLine, banner, functionsNodeLine } from '../../../emulator/cli/local-commands';
import type { AlarmSpecs } from '../../../emulator/stack/alarms';
import { LOCAL_STATE_VERSION } from '../../../operations/dlq/local-state';
import type { LocalStateFile } from '../../../operations/dlq';

const ENDPOINTS = { dynamodb: 'http://127.0.0.1:8001', sqs: 'http://127.0.0.1:8002', kinesis: 'http://127.0.0.1:8003', lambda: 'http://127.0.0.1:8004' };

/** A state file as `eo local up` writes it, for a stack with two outputs. */
function localState(endpoints: LocalStateFile['endpoints'] = ENDPOINTS): LocalStateFile {
  return {
    version: LOCAL_STATE_VERSION,
    pid: 4242,
    startedAt: '2026-12-01T09:00:00.000Z',
    endpoints,
    env: {},
    topology: {
      stackName: 'EffectivelyOnce',
      region: 'us-east-1',
      outputs: { PageViewsQueueUrl: 'http://sqs.us-east-1.localhost:8002/000000000000/PageViews', CountersTableName: 'Counters' },
      deadLetterQueues: [],
      queues: [],
      streams: [],
      tables: [],
      consumerWindows: [],
      consumerFunctions: [],
    },
  };
}

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'eo aws cli '));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

test.each([
  ['PageViewsQueueUrl', 'EO_PAGE_VIEWS_QUEUE_URL'],
  ['PageViewCounterDlqUrl', 'EO_PAGE_VIEW_COUNTER_DLQ_URL'],
  ['OrdersStreamName', 'EO_ORDERS_STREAM_NAME'],
  ['DLQUrl', 'EO_DLQ_URL'],
  ['Orders2Table', 'EO_ORDERS2_TABLE'],
])('output %s is exported as %s', (output, variable) => {
  expect(outputVariableName(output)).toBe(variable);
});

test('the config file holds a profile with region, credentials, CLI v2 settings and one endpoint per service id', () => {
  expect(awsConfigText(localState())).toBe(
    [
      '# Written by `eo local up` (process 4242) for the local stack EffectivelyOnce; removed when it stops.',
      '[profile eo-local]',
      'region = us-east-1',
      'aws_access_key_id = local',
      'aws_secret_access_key = local',
      'cli_binary_format = raw-in-base64-out',
      'cli_pager =',
      'services = eo-local',
      '',
      '[services eo-local]',
      'sqs =',
      '  endpoint_url = http://127.0.0.1:8002',
      'sns =',
      '  endpoint_url = http://127.0.0.1:8002',
      's3 =',
      '  endpoint_url = http://127.0.0.1:8002',
      'dynamodb =',
      '  endpoint_url = http://127.0.0.1:8001',
      'dynamodb_streams =',
      '  endpoint_url = http://127.0.0.1:8001',
      'kinesis =',
      '  endpoint_url = http://127.0.0.1:8003',
      'lambda =',
      '  endpoint_url = http://127.0.0.1:8004',
      '',
    ].join('\n'),
  );
});

/** The environment a shell has after sourcing the env file into a clean environment. */
function sourced(files: AwsCliFiles, before: Record<string, string> = {}): Record<string, string> {
  const result = spawnSync('bash', ['-c', 'source "$1" && env -0', 'bash', files.envFile], { env: { PATH: process.env.PATH, ...before }, encoding: 'utf8' });
  expect(result.status).toBe(0);
  return Object.fromEntries(result.stdout.split('\0').filter(Boolean).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

test('sourcing the env file sets both region variables, the profile (the one credential source), endpoints and the outputs, even in a folder with a space', () => {
  const files = awsCliFilesBeside(path.join(folder, 'local.json'));
  writeAwsCliFiles(files, localState());
  const env = sourced(files, { AWS_ACCESS_KEY_ID: 'from-aws', AWS_SECRET_ACCESS_KEY: 'from-aws', AWS_SESSION_TOKEN: 'from-aws', AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'true', AWS_PROFILE: 'production' });
  expect(env).toMatchObject({
    AWS_CONFIG_FILE: path.join(folder, 'aws-config'),
    AWS_PROFILE: 'eo-local',
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_ENDPOINT_URL_SQS: ENDPOINTS.sqs,
    AWS_ENDPOINT_URL_SNS: ENDPOINTS.sqs,
    AWS_ENDPOINT_URL_S3: ENDPOINTS.sqs,
    AWS_ENDPOINT_URL_DYNAMODB: ENDPOINTS.dynamodb,
    AWS_ENDPOINT_URL_DYNAMODB_STREAMS: ENDPOINTS.dynamodb,
    AWS_ENDPOINT_URL_KINESIS: ENDPOINTS.kinesis,
    AWS_ENDPOINT_URL_LAMBDA: ENDPOINTS.lambda,
    EO_PAGE_VIEWS_QUEUE_URL: 'http://sqs.us-east-1.localhost:8002/000000000000/PageViews',
    EO_COUNTERS_TABLE_NAME: 'Counters',
    EO_LOCAL_STATE: path.join(folder, 'local.json'),
  });
  expect(env).not.toHaveProperty('AWS_ACCESS_KEY_ID');
  expect(env).not.toHaveProperty('AWS_SECRET_ACCESS_KEY');
  expect(env).not.toHaveProperty('AWS_SESSION_TOKEN');
  expect(env).not.toHaveProperty('AWS_IGNORE_CONFIGURED_ENDPOINT_URLS');
});

/** The example stack's DLQs as local mode names them: none of them is a stack output here. */
function withDlqs(state: LocalStateFile): LocalStateFile {
  const queue = (name: string) => ({ name, url: `http://sqs.us-east-1.localhost:8002/000000000000/${name}`, arn: `arn:aws:sqs:us-east-1:000000000000:${name}`, sources: [] });
  const names = ['EffectivelyOnce-PageViewCounterDlq1E749A05', 'EffectivelyOnce-OrderProjectionDlq0BB512FC', 'EffectivelyOnce-AccountLedger-9023C79C-dlq.fifo', 'EffectivelyOnce-Twin-1A2B3C4D-dlq', 'EffectivelyOnce-Twin-5E6F7A8B-dlq'];
  return { ...state, topology: { ...state.topology, deadLetterQueues: names.map(queue) } };
}

test("the env file exports every DLQ's URL without a stack output: one variable each, and all of them in EO_DLQ_URLS", () => {
  const files = awsCliFilesBeside(path.join(folder, 'local.json'));
  const state = withDlqs(localState());
  writeAwsCliFiles(files, state);
  const env = sourced(files);
  const urls = state.topology.deadLetterQueues.map((dlq) => dlq.url);
  expect(env).toMatchObject({
    EO_PAGE_VIEW_COUNTER_DLQ_URL: urls[0],
    EO_ORDER_PROJECTION_DLQ_URL: urls[1],
    EO_ACCOUNT_LEDGER_DLQ_URL: urls[2],
    EO_DLQ_URLS: urls.join('\n'),
  });
  // Two DLQs that would share a name get no variable of their own rather than one the other's URL.
  expect(env).not.toHaveProperty('EO_TWIN_DLQ_URL');
  const text = banner(state, { state: path.join('.eo', 'local.json'), functionsLog: path.join('.eo', 'functions.log') });
  for (const url of urls) expect(text).toContain(url);
  expect(text).toContain('the DLQs\' URLs as EO_PAGE_VIEW_COUNTER_DLQ_URL, EO_ORDER_PROJECTION_DLQ_URL, EO_ACCOUNT_LEDGER_DLQ_URL, EO_DLQ_URLS (all of them, one a line)');
});

test('a stack output wins over a DLQ variable of the same name', () => {
  const state = withDlqs(localState());
  const text = envFileText({ ...state, topology: { ...state.topology, outputs: { PageViewCounterDlqUrl: 'from-the-output' } } }, awsCliFilesBeside(path.join(folder, 'local.json')));
  expect(text).toContain('export EO_PAGE_VIEW_COUNTER_DLQ_URL=from-the-output\n');
  expect(text.match(/EO_PAGE_VIEW_COUNTER_DLQ_URL=/g)).toHaveLength(1);
});

test('the env file names itself and the flag AWS CLI v1 needs for SQS', () => {
  const files = awsCliFilesBeside(path.join(folder, 'local.json'));
  const text = envFileText(localState(), files);
  expect(text).toContain(`# Use: source '${files.envFile}'.`);
  expect(text).toContain('--endpoint-url "$AWS_ENDPOINT_URL_SQS"');
});

test('the banner gives the source line, the exports for AWS CLI v1 and v2 and the SDKs, and the SQS flag', () => {
  const text = banner(localState(), { state: path.join('.eo', 'local.json'), functionsLog: path.join('.eo', 'functions.log') });
  expect(text).toContain(`\n  source ${path.join('.eo', 'aws-env.sh')}\n`);
  const exportLine = text.split('\n').find((line) => line.startsWith('export '));
  expect(exportLine).toBe(
    `export AWS_CONFIG_FILE=${path.resolve('.eo', 'aws-config')} AWS_PROFILE=eo-local AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1 ` +
      'AWS_ENDPOINT_URL_SQS=http://127.0.0.1:8002 AWS_ENDPOINT_URL_SNS=http://127.0.0.1:8002 AWS_ENDPOINT_URL_S3=http://127.0.0.1:8002 ' +
      'AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:8001 AWS_ENDPOINT_URL_DYNAMODB_STREAMS=http://127.0.0.1:8001 AWS_ENDPOINT_URL_KINESIS=http://127.0.0.1:8003 ' +
        'AWS_ENDPOINT_URL_LAMBDA=http://127.0.0.1:8004',
  );
  expect(text).toContain('unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN AWS_IGNORE_CONFIGURED_ENDPOINT_URLS');
  expect(text).toContain('the outputs above as EO_PAGE_VIEWS_QUEUE_URL, EO_COUNTERS_TABLE_NAME, the DLQs\' URLs as EO_DLQ_URLS (all of them, one a line), and the state file as EO_LOCAL_STATE.');
  expect(text).toContain('--endpoint-url "$AWS_ENDPOINT_URL_SQS"');
});

test('a stack with an Aurora cluster adds the RDS Data API to the banner, the exports and the profile; one without has none of it', () => {
  const state = localState({ ...ENDPOINTS, rdsData: 'http://127.0.0.1:8005' });
  const text = banner(state, { state: path.join('.eo', 'local.json'), functionsLog: path.join('.eo', 'functions.log') });
  expect(text).toContain('\n  RDS Data API (PostgreSQL)      http://127.0.0.1:8005\n');
  expect(text.split('\n').find((line) => line.startsWith('export '))).toMatch(/ AWS_ENDPOINT_URL_LAMBDA=http:\/\/127\.0\.0\.1:8004 AWS_ENDPOINT_URL_RDS_DATA=http:\/\/127\.0\.0\.1:8005$/);
  expect(awsConfigText(state)).toContain('\nrds_data =\n  endpoint_url = http://127.0.0.1:8005\n');
  const without = localState();
  expect(banner(without, { state: path.join('.eo', 'local.json'), functionsLog: path.join('.eo', 'functions.log') })).not.toContain('RDS Data API');
  expect(awsConfigText(without)).not.toContain('rds_data');
});

/** An Aurora cluster's reading details, as `eo local up` writes them for `SqlEffectDatabase`. */
const CLUSTER = { resourceArn: 'arn:aws:rds:us-east-1:000000000000:cluster:effects', secretArn: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:rds!cluster-effects-AbCdEf', database: 'effects' };
const POSTGRES = { host: '127.0.0.1', port: 54_321, user: 'eo', password: "p@ss w'rd/1" };

test("the env file says how to read a stack's SQL database: the Data API's ARNs and database, and a psql connection string; owner-only, as it holds a password", () => {
  const files = awsCliFilesBeside(path.join(folder, 'local.json'));
  writeAwsCliFiles(files, { ...localState({ ...ENDPOINTS, rdsData: 'http://127.0.0.1:8005' }), sql: { clusters: [CLUSTER], postgres: POSTGRES } });
  expect(sourced(files, {})).toMatchObject({
    EO_DATA_API_RESOURCE_ARN: CLUSTER.resourceArn,
    EO_DATA_API_SECRET_ARN: CLUSTER.secretArn,
    EO_DATA_API_DATABASE: 'effects',
    EO_PSQL_URL: "postgresql://eo:p%40ss%20w'rd%2F1@127.0.0.1:54321/effects",
  });
  expect(new URL(sourced(files, {}).EO_PSQL_URL as string).password).toBe(encodeURIComponent(POSTGRES.password));
  for (const file of [files.envFile, files.configFile]) expect(statSync(file).mode & 0o777).toBe(0o600);
});

test('with two clusters each variable ends in its database; a stack without one has none', () => {
  const second = { ...CLUSTER, resourceArn: `${CLUSTER.resourceArn}-2`, database: 'audit-log' };
  const variables = sqlVariables({ ...localState(), sql: { clusters: [CLUSTER, second], postgres: POSTGRES } });
  expect(Object.keys(variables).sort()).toEqual(['EFFECTS', 'AUDIT_LOG'].flatMap((db) => ['DATA_API_DATABASE', 'DATA_API_RESOURCE_ARN', 'DATA_API_SECRET_ARN', 'PSQL_URL'].map((name) => `EO_${name}_${db}`)).sort());
  expect(variables.EO_DATA_API_RESOURCE_ARN_AUDIT_LOG).toBe(second.resourceArn);
  expect(sqlVariables(localState())).toEqual({});
});

test('only the process that wrote the files removes them', () => {
  const files = awsCliFilesBeside(path.join(folder, 'local.json'));
  writeAwsCliFiles(files, localState());
  removeAwsCliFiles(files, 1);
  expect([existsSync(files.configFile), existsSync(files.envFile)]).toEqual([true, true]);
  removeAwsCliFiles(files, 4242);
  expect([existsSync(files.configFile), existsSync(files.envFile)]).toEqual([false, false]);
});

describe('the SDK v3, given only AWS_CONFIG_FILE and AWS_PROFILE', () => {
  const saved = { ...process.env };
  const servers: Server[] = [];
  afterEach(async () => {
    process.env = { ...saved };
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  /** A server that answers every request with an empty JSON object and records, under `name`, who signed it for which region and service. */
  async function recordingServer(name: string, hits: string[]): Promise<string> {
    const server = createServer((request: IncomingMessage, response) => {
      const credential = /Credential=([^/]+)\/\d+\/([^/]+)\/([^/]+)\//.exec(request.headers.authorization ?? '');
      hits.push(`${name}: ${credential?.slice(1).join(' ') ?? 'unsigned'}`);
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end('{}');
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  test('reads the region, the credentials and each service endpoint from the profile', async () => {
    const hits: string[] = [];
    const endpoints = { dynamodb: await recordingServer('dynamodb engine', hits), sqs: await recordingServer('sqs engine', hits), kinesis: await recordingServer('kinesis engine', hits), lambda: await recordingServer('lambda api', hits) };
    const files = awsCliFilesBeside(path.join(folder, 'local.json'));
    writeAwsCliFiles(files, localState(endpoints));
    // Nothing from the test's own environment: what the clients find must come from the file.
    process.env = Object.fromEntries(Object.entries(saved).filter(([name]) => !name.startsWith('AWS_') || name === 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'));
    Object.assign(process.env, { AWS_CONFIG_FILE: files.configFile, AWS_PROFILE: 'eo-local' });
    await new DynamoDBClient({}).send(new ListTablesCommand({}));
    await new SQSClient({}).send(new ListQueuesCommand({}));
    await new KinesisClient({ requestHandler: new NodeHttpHandler() }).send(new ListStreamsCommand({}));
    await new LambdaClient({}).send(new InvokeCommand({ FunctionName: 'page-view-counter' }));
    expect(hits).toEqual(['dynamodb engine: local us-east-1 dynamodb', 'sqs engine: local us-east-1 sqs', 'kinesis engine: local us-east-1 kinesis', 'lambda api: local us-east-1 lambda']);
  });
});

describe('a node process started from a shell that sourced the env file', () => {
  let server: Server;
  const hits: string[] = [];
  beforeAll(async () => {
    server = createServer((request: IncomingMessage, response) => {
      hits.push(/Credential=([^/]+)\//.exec(request.headers.authorization ?? '')?.[1] ?? 'unsigned');
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  /** Runs an SQS call in a child node with exactly `env`; its stderr. */
  async function sdkCallIn(env: Record<string, string>): Promise<string> {
    const script = "const { SQSClient, ListQueuesCommand } = require('@aws-sdk/client-sqs'); new SQSClient({}).send(new ListQueuesCommand({})).then(() => undefined, (error) => { console.error('call failed: ' + error.name); process.exitCode = 1; });";
    const child = spawn(process.execPath, ['-e', script], { cwd: path.resolve(__dirname, '../../..'), env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, stderr }).toMatchObject({ code: 0 });
    return stderr;
  }

  test('the SDK v3 finds one credential source, the profile, with no warning, even after a shell that held AWS keys', async () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const files = awsCliFilesBeside(path.join(folder, 'local.json'));
    writeAwsCliFiles(files, localState({ ...ENDPOINTS, sqs: url }));
    const env = sourced(files, { AWS_ACCESS_KEY_ID: 'AKIAFROMAWSWORK', AWS_SECRET_ACCESS_KEY: 'from-aws-work', HOME: folder });
    hits.length = 0;
    const stderr = await sdkCallIn({ ...env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });
    expect(stderr).not.toMatch(/Multiple credential sources/);
    expect(stderr).toBe('');
    expect(hits).toEqual(['local']);
    expect(env).not.toHaveProperty('AWS_ACCESS_KEY_ID');
    expect(env).not.toHaveProperty('AWS_SECRET_ACCESS_KEY');
  });
});

test('the alarms line counts the alarms local mode evaluates and gives each reason for the others once', () => {
  const alarm = (alarmName: string) => ({ alarmName }) as AlarmSpecs['evaluated'][number];
  const throttles = (alarmName: string) => ({ alarmName, metric: 'AWS/Lambda Throttles', reason: 'local functions do not throttle', dimensionValues: [] });
  expect(alarmsLine({ evaluated: [alarm('a'), alarm('b')], notEvaluated: [throttles('c'), throttles('d')] })).toBe(
    'Alarms: 2 of 4 evaluated locally, notifying their topics; not evaluated: AWS/Lambda Throttles: local functions do not throttle.',
  );
  expect(alarmsLine({ evaluated: [alarm('a')], notEvaluated: [] })).toBe('Alarms: 1 of 1 evaluated locally, notifying their topics.');
});

test('the functions line names the Node.js each runtime runs on', () => {
  expect(functionsNodeLine(new Map([['nodejs24.x', '24.22.3'], ['nodejs22.x', '22.23.5']]))).toBe('Functions: nodejs24.x on Node.js 24.22.3, nodejs22.x on Node.js 22.23.5.');
  expect(functionsNodeLine(new Map())).toBe('Functions: none.');
});
