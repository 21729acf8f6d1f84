/**
 * What `eo local up` hands a shell so that the AWS CLI (v1 and v2) and the SDKs reach the local
 * stack, through the contract layer's gateways, without flags: an AWS config file with a profile
 * (region, the local account's credentials, one endpoint per service) and an env file that selects
 * it and names the stack's outputs. Both are written beside the state file and removed when the
 * stack stops.
 *
 * Why both, and what each client honours (measured with AWS CLI 1.45 / botocore 1.43, AWS CLI
 * 2.9.19 and the SDK v3 here; docs/local-mode.md has the table):
 * - AWS CLI v1 reads `AWS_DEFAULT_REGION`, not `AWS_REGION`; the SDKs read `AWS_REGION`.
 * - `AWS_ENDPOINT_URL_<SERVICE>` and a profile's `services` section work for the SDK v3 and AWS
 *   CLI v1 for every service here but one: AWS CLI v1 pins SQS to `queue.amazonaws.com` (its
 *   `overridesslcommonname` customization sets an explicit endpoint for SQS in every commercial
 *   region, and an explicit endpoint wins over configured ones), so `aws sqs` needs
 *   `--endpoint-url "$AWS_ENDPOINT_URL_SQS"`. AWS CLI v2 2.9 reads neither (configured endpoints
 *   came with 2.13).
 * - DynamoDB Streams is its own service to the clients (`dynamodb_streams`), though DynamoDB Local
 *   serves it on DynamoDB's endpoint.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { LocalStateFile } from '../../operations/dlq';
import { LOCAL_CREDENTIALS } from '../engines/account';

/** The profile the generated config file defines and the env file selects. */
export const LOCAL_PROFILE = 'eo-local';

/** The files' names, beside the state file (`.eo/aws-config`, `.eo/aws-env.sh` by default). */
export const AWS_CONFIG_FILE_NAME = 'aws-config';
export const AWS_ENV_FILE_NAME = 'aws-env.sh';

/** The prefix of the variables that name the stack's outputs (`PageViewsQueueUrl` -> `EO_PAGE_VIEWS_QUEUE_URL`). */
export const OUTPUT_VARIABLE_PREFIX = 'EO_';

type Engine = keyof LocalStateFile['endpoints'];

/**
 * Each service a session uses, by the id the clients look up (`AWS_ENDPOINT_URL_<ID>` upper case,
 * the `services` section's key lower case), and the engine that answers it: fauxqs serves SNS and
 * S3 (the failure archives) on the SQS endpoint, DynamoDB Local serves its streams on its own, the
 * stack's functions answer Lambda's Invoke, and a stack with an Aurora cluster has the RDS Data API.
 */
export const SERVICE_ENGINES: ReadonlyArray<readonly [serviceId: string, engine: Engine]> = [
  ['sqs', 'sqs'],
  ['sns', 'sqs'],
  ['s3', 'sqs'],
  ['dynamodb', 'dynamodb'],
  ['dynamodb_streams', 'dynamodb'],
  ['kinesis', 'kinesis'],
  ['lambda', 'lambda'],
  ['rds_data', 'rdsData'],
];

/** The services whose engine this stack has (the Data API only with an Aurora cluster), with its endpoint. */
function servedEndpoints(endpoints: LocalStateFile['endpoints']): [serviceId: string, endpoint: string][] {
  return SERVICE_ENGINES.flatMap(([serviceId, engine]) => {
    const endpoint = endpoints[engine];
    return endpoint === undefined ? [] : [[serviceId, endpoint] as [string, string]];
  });
}

/**
 * Variables a shell may still hold from work on AWS that would spoil a local session: static keys
 * and a session token are a second credential source beside the profile (the SDK v3 warns
 * "Multiple credential sources detected", and the AWS CLI would sign with them, as env keys win
 * over a profile), and the ignore switch makes every client skip the configured endpoints and call
 * AWS itself.
 */
export const UNSET_VARIABLES = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_IGNORE_CONFIGURED_ENDPOINT_URLS'] as const;

/** Where the files go; every path absolute, so that the env file works from any directory. */
export interface AwsCliFiles {
  readonly stateFile: string;
  readonly configFile: string;
  readonly envFile: string;
}

/** The files beside `stateFile`. */
export function awsCliFilesBeside(stateFile: string): AwsCliFiles {
  const absolute = path.resolve(stateFile);
  const folder = path.dirname(absolute);
  return { stateFile: absolute, configFile: path.join(folder, AWS_CONFIG_FILE_NAME), envFile: path.join(folder, AWS_ENV_FILE_NAME) };
}

/** `AWS_ENDPOINT_URL_<ID>` for each service, pointing at its engine's gateway. */
export function endpointVariables(endpoints: LocalStateFile['endpoints']): Record<string, string> {
  return Object.fromEntries(servedEndpoints(endpoints).map(([serviceId, endpoint]) => [`AWS_ENDPOINT_URL_${serviceId.toUpperCase()}`, endpoint]));
}

/**
 * The AWS variables the env file exports: the profile, both region variables (AWS CLI v1 reads
 * only `AWS_DEFAULT_REGION`) and the endpoints. The credentials are the profile's alone: one
 * credential source, so that the SDK v3 does not warn and no client picks another. The profile
 * says the region and endpoints again, for clients started without this environment.
 */
export function awsVariables(state: LocalStateFile, files: AwsCliFiles): Record<string, string> {
  const region = state.topology.region;
  return {
    AWS_CONFIG_FILE: files.configFile,
    AWS_PROFILE: LOCAL_PROFILE,
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    ...endpointVariables(state.endpoints),
  };
}

/** `EO_<OUTPUT>` for each of the stack's outputs, and `EO_LOCAL_STATE` for the whole topology. */
export function outputVariables(state: LocalStateFile, files: AwsCliFiles): Record<string, string> {
  const outputs = Object.entries(state.topology.outputs).map(([name, value]) => [outputVariableName(name), value]);
  return { ...Object.fromEntries(outputs), [`${OUTPUT_VARIABLE_PREFIX}LOCAL_STATE`]: files.stateFile };
}

/** The variable that holds every DLQ's URL, one per line, whatever the stack outputs. */
export const ALL_DLQ_URLS_VARIABLE = `${OUTPUT_VARIABLE_PREFIX}DLQ_URLS`;

/**
 * Each DLQ's URL, whether or not the stack outputs it: `EO_<NAME>_URL`, where the name is the
 * queue's without the stack's prefix, CDK's 8-character hash and `.fifo` (local mode names a queue
 * `<stack>-<logical id>`: `EffectivelyOnce-PageViewCounterDlq1E749A05` -> `EO_PAGE_VIEW_COUNTER_DLQ_URL`,
 * the variable an output `PageViewCounterDlqUrl` would give), and all of them in `EO_DLQ_URLS`.
 * Two DLQs whose names give one variable get none (`EO_DLQ_URLS` still holds them).
 */
export function dlqVariables(state: LocalStateFile): Record<string, string> {
  const { stackName, deadLetterQueues } = state.topology;
  const named = deadLetterQueues.map((dlq) => [outputVariableName(`${dlqBaseName(dlq.name, stackName)}Url`), dlq.url] as const);
  const unique = named.filter(([variable]) => named.filter(([other]) => other === variable).length === 1);
  return { ...Object.fromEntries(unique), [ALL_DLQ_URLS_VARIABLE]: deadLetterQueues.map((dlq) => dlq.url).join('\n') };
}

/**
 * What reads a stack's SQL database: for each Aurora cluster, the Data API's `--resource-arn`,
 * `--secret-arn` and `--database` (`EO_DATA_API_RESOURCE_ARN`, `EO_DATA_API_SECRET_ARN`,
 * `EO_DATA_API_DATABASE`), and `EO_PSQL_URL`, a connection string of the local PostgreSQL's
 * superuser for `psql` (past the Data API and its IAM checks: for reading, not for testing
 * grants). With more than one cluster, each variable ends in its database's name
 * (`EO_DATA_API_RESOURCE_ARN_EFFECTS`). None for a stack without a cluster.
 */
export function sqlVariables(state: LocalStateFile): Record<string, string> {
  const { sql } = state;
  if (sql === undefined) return {};
  const { host, port, user, password } = sql.postgres;
  return Object.fromEntries(
    sql.clusters.flatMap((cluster) => {
      const suffix = sql.clusters.length === 1 ? '' : `_${cluster.database.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
      const psql = `postgresql://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${host}:${port}/${encodeURIComponent(cluster.database)}`;
      return [
        [`${OUTPUT_VARIABLE_PREFIX}DATA_API_RESOURCE_ARN${suffix}`, cluster.resourceArn],
        [`${OUTPUT_VARIABLE_PREFIX}DATA_API_SECRET_ARN${suffix}`, cluster.secretArn],
        [`${OUTPUT_VARIABLE_PREFIX}DATA_API_DATABASE${suffix}`, cluster.database],
        [`${OUTPUT_VARIABLE_PREFIX}PSQL_URL${suffix}`, psql],
      ];
    }),
  );
}

/** `EffectivelyOnce-AccountLedger-9023C79C-dlq.fifo` -> `AccountLedgerDlq`. */
function dlqBaseName(queueName: string, stackName: string): string {
  const local = queueName.startsWith(`${stackName}-`) ? queueName.slice(stackName.length + 1) : queueName;
  const words = local.replace(/\.fifo$/, '').replace(/[0-9A-F]{8}(?=$|-)/g, '').split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');
}

/** `PageViewsQueueUrl` -> `EO_PAGE_VIEWS_QUEUE_URL` (an output's name is a CloudFormation logical id: letters and digits). */
export function outputVariableName(outputName: string): string {
  const words = outputName.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2');
  return `${OUTPUT_VARIABLE_PREFIX}${words.toUpperCase()}`;
}

/** The first line of both files: who wrote them, so that only that process removes them. */
export function fileHeader(state: LocalStateFile): string {
  return `# Written by \`eo local up\` (process ${state.pid}) for the local stack ${state.topology.stackName}; removed when it stops.`;
}

/**
 * The AWS config file: the `eo-local` profile and its `services` section. `cli_binary_format`
 * makes AWS CLI v2 take `--data` as raw text, as v1 does, so that one `put-record` line works
 * for both; `cli_pager` keeps v2 from paging a script's output. v1 ignores both.
 */
export function awsConfigText(state: LocalStateFile): string {
  const services = servedEndpoints(state.endpoints).flatMap(([serviceId, endpoint]) => [`${serviceId} =`, `  endpoint_url = ${endpoint}`]);
  return [
    fileHeader(state),
    `[profile ${LOCAL_PROFILE}]`,
    `region = ${state.topology.region}`,
    `aws_access_key_id = ${LOCAL_CREDENTIALS.accessKeyId}`,
    `aws_secret_access_key = ${LOCAL_CREDENTIALS.secretAccessKey}`,
    'cli_binary_format = raw-in-base64-out',
    'cli_pager =',
    `services = ${LOCAL_PROFILE}`,
    '',
    `[services ${LOCAL_PROFILE}]`,
    ...services,
    '',
  ].join('\n');
}

/** The env file a user sources: unsets what would spoil the session, exports the AWS and `EO_` variables (an output's wins over a DLQ's or the SQL database's of the same name). */
export function envFileText(state: LocalStateFile, files: AwsCliFiles): string {
  const exportLines = Object.entries({ ...awsVariables(state, files), ...dlqVariables(state), ...sqlVariables(state), ...outputVariables(state, files) }).map(([name, value]) => `export ${name}=${shellWord(value)}`);
  return [
    fileHeader(state),
    `# Use: source ${shellWord(files.envFile)}. AWS CLI v1 ignores a configured SQS endpoint: give \`aws sqs\` --endpoint-url "$AWS_ENDPOINT_URL_SQS".`,
    `unset ${UNSET_VARIABLES.join(' ')}`,
    ...exportLines,
    '',
  ].join('\n');
}

/** A value as one shell word: bare when it is safe, single-quoted otherwise. */
export function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Writes the config and env files for `state`, readable by their owner only: the env file may hold the local PostgreSQL's password. */
export function writeAwsCliFiles(files: AwsCliFiles, state: LocalStateFile): void {
  mkdirSync(path.dirname(files.configFile), { recursive: true });
  writeOwnerOnly(files.configFile, awsConfigText(state));
  writeOwnerOnly(files.envFile, envFileText(state, files));
}

/** Mode 0600, also for a file that was there (`writeFileSync`'s mode applies only to a new one). */
function writeOwnerOnly(file: string, text: string): void {
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/** Removes the files that process `pid` wrote; another `eo local up`'s files stay. */
export function removeAwsCliFiles(files: AwsCliFiles, pid: number = process.pid): void {
  for (const file of [files.configFile, files.envFile]) {
    if (existsSync(file) && readFileSync(file, 'utf8').startsWith(`# Written by \`eo local up\` (process ${pid})`)) rmSync(file);
  }
}

/**
 * The banner's lines on the AWS CLI: the one step (source the env file), what it sets, and the
 * one flag AWS CLI v1 still needs.
 */
export function awsCliInstructions(state: LocalStateFile, files: AwsCliFiles, shownEnvFile: string = files.envFile): string[] {
  const exported = Object.entries(awsVariables(state, files)).map(([name, value]) => `${name}=${shellWord(value)}`);
  const outputs = Object.keys(state.topology.outputs).map(outputVariableName);
  const dlqs = Object.keys(dlqVariables(state)).filter((name) => name !== ALL_DLQ_URLS_VARIABLE);
  return [
    'Point the AWS CLI and the SDKs at it, from any shell, in one step:',
    `  source ${shellWord(shownEnvFile)}`,
    `It runs \`unset ${UNSET_VARIABLES.join(' ')}\` and:`,
    `export ${exported.join(' ')}`,
    `and exports the outputs above as ${outputs.join(', ')}, the DLQs' URLs as ${[...dlqs, `${ALL_DLQ_URLS_VARIABLE} (all of them, one a line)`].join(', ')}, and the state file as ${OUTPUT_VARIABLE_PREFIX}LOCAL_STATE.`,
    `The profile ${LOCAL_PROFILE} in ${files.configFile} holds the same region, credentials and endpoints.`,
    'AWS CLI v1 ignores a configured SQS endpoint (it pins queue.amazonaws.com): `aws sqs ... --endpoint-url "$AWS_ENDPOINT_URL_SQS"`.',
    'AWS CLI v2 reads configured endpoints from 2.13 on (Debian 12\'s 2.9 does not); see docs/local-mode.md, "A session with the AWS CLI".',
  ];
}
