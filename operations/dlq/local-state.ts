/**
 * The state file `eo local up` writes (`.eo/local.json`) and `eo dlq ... --local` reads: the
 * engines' endpoints and the Lambda API's, the environment that points the AWS CLI and SDK at
 * them, and the stack's topology (outputs, dead-letter queues with their roles and sources,
 * streams, tables).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { dlqClients, destroyDlqClients } from './clients';
import { DEFAULT_STATE_FILE } from './defaults';
import { LocalStackNotRunningError } from './errors';
import type { DlqClients, DlqContext, StackTopology } from './types';

export { DEFAULT_STATE_FILE };

/** 3: `endpoints.lambda`, the stack's Lambda Invoke API (2: the topology names the consumers' dedup windows). */
export const LOCAL_STATE_VERSION = 3;

export interface LocalStateFile {
  readonly version: typeof LOCAL_STATE_VERSION;
  /** The process that runs the stack; the state is stale once it is gone. */
  readonly pid: number;
  readonly startedAt: string;
  /** The contract layer's gateways: one per engine, and `lambda`, the functions' Invoke API. */
  readonly endpoints: {
    readonly dynamodb: string;
    readonly sqs: string;
    readonly kinesis: string;
    readonly lambda: string;
    /** The RDS Data API, for a stack with an Aurora cluster (`SqlEffectDatabase`); absent otherwise. */
    readonly rdsData?: string;
  };
  /** `AWS_ENDPOINT_URL_*`, `AWS_REGION` and local credentials, as `export` lines print them. */
  readonly env: Readonly<Record<string, string>>;
  readonly topology: StackTopology;
  /** A stack with an Aurora cluster (`SqlEffectDatabase`): what reads its database. @default - none */
  readonly sql?: LocalSqlState;
}

/** The local SQL database: each cluster as the Data API serves it, and the PostgreSQL they all live in. */
export interface LocalSqlState {
  /** Each cluster: its ARN (`--resource-arn`), its secret (`--secret-arn`) and its database. */
  readonly clusters: readonly { readonly resourceArn: string; readonly secretArn: string; readonly database: string }[];
  /** The local PostgreSQL's superuser, on 127.0.0.1: past the Data API and its IAM checks, for reading. */
  readonly postgres: { readonly host: string; readonly port: number; readonly user: string; readonly password: string };
}

export function writeLocalState(file: string, state: LocalStateFile): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`);
}

/** Removes the state file if it is still the one `pid` wrote. */
export function removeLocalState(file: string, pid: number = process.pid): void {
  if (!existsSync(file)) return;
  try {
    if ((JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalStateFile>).pid === pid) rmSync(file);
  } catch {
    // A broken file is no one's state: leave it for the next `local up` to overwrite.
  }
}

/** @throws LocalStackNotRunningError when there is no state, or its process is gone */
export function readLocalState(file: string = DEFAULT_STATE_FILE): LocalStateFile {
  if (!existsSync(file)) throw new LocalStackNotRunningError(`no local stack state at ${file}`);
  const state = JSON.parse(readFileSync(file, 'utf8')) as LocalStateFile;
  if (state.version !== LOCAL_STATE_VERSION) throw new LocalStackNotRunningError(`${file} has state version ${String(state.version)}, this CLI reads ${LOCAL_STATE_VERSION}`);
  if (!isAlive(state.pid)) throw new LocalStackNotRunningError(`the local stack in ${file} (process ${state.pid}) is no longer running`);
  return state;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Clients for the engines the state names, and its topology. */
export function localDlqContext(state: LocalStateFile): DlqContext & { destroy(): void } {
  const clients = localDlqClients(state);
  return { clients, topology: state.topology, destroy: () => destroyDlqClients(clients) };
}

/**
 * Clients for the engines a state names, signed with the credentials its `env` holds (those the
 * engines' contract layer knows as the local account's). Explicit endpoints make the SQS client
 * send to the endpoint (fauxqs's queue URLs name `sqs.<region>.localhost`) and Kinesis speak
 * HTTP/1.1 (kinesalite has no HTTP/2). fauxqs serves S3 on the SQS port, path-style; the stack's
 * functions answer Lambda's Invoke on the Lambda endpoint; the Data API gateway, when the stack has
 * an Aurora cluster, answers the reads of SQL dedup rows (a stack without one has no SQL consumer
 * whose rows would be read).
 */
export function localDlqClients(state: Pick<LocalStateFile, 'endpoints' | 'env' | 'topology'>): DlqClients {
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } = state.env;
  if (!accessKeyId || !secretAccessKey) throw new LocalStackNotRunningError('the local state names no AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in its env (an older `eo local up` wrote it)');
  const { sqs, kinesis, dynamodb, lambda, rdsData } = state.endpoints;
  const region = state.env.AWS_REGION ?? state.topology.region;
  const endpoints = { SQS: sqs, KINESIS: kinesis, DYNAMODB: dynamodb, DYNAMODB_STREAMS: dynamodb, S3: sqs, LAMBDA: lambda, ...(rdsData && { RDS_DATA: rdsData }) };
  return dlqClients({ region, credentials: { accessKeyId, secretAccessKey }, endpoints });
}
