/**
 * The state file `eo local up` writes (`.eo/local.json`) and `eo dlq ... --local` reads: the
 * engines' endpoints, the environment that points the AWS CLI and SDK at them, and the stack's
 * topology (outputs, dead-letter queues with their roles and sources, streams, tables).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { dynamoDbClient, endpointEnv, kinesisClient, LOCAL_CREDENTIALS, LOCAL_REGION, sqsClient } from '../engines';
import type { LocalStack } from '../stack/runtime';
import { LocalStackNotRunningError } from './errors';
import { topologyOfLocalStack } from './topology';
import type { DlqClients, DlqContext, StackTopology } from './types';

/** Where `eo local up` writes its state, relative to the working directory. */
export const DEFAULT_STATE_FILE = path.join('.eo', 'local.json');
export const LOCAL_STATE_VERSION = 1;

export interface LocalStateFile {
  readonly version: typeof LOCAL_STATE_VERSION;
  /** The process that runs the stack; the state is stale once it is gone. */
  readonly pid: number;
  readonly startedAt: string;
  readonly endpoints: { readonly dynamodb: string; readonly sqs: string; readonly kinesis: string };
  /** `AWS_ENDPOINT_URL_*`, `AWS_REGION` and local credentials, as `export` lines print them. */
  readonly env: Readonly<Record<string, string>>;
  readonly topology: StackTopology;
}

/** The state of a stack running in this process. */
export function localStateOf(stack: LocalStack, pid: number = process.pid): LocalStateFile {
  return { version: LOCAL_STATE_VERSION, pid, startedAt: new Date().toISOString(), endpoints: stack.endpoints, env: endpointEnv(stack.endpoints), topology: topologyOfLocalStack(stack) };
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
  const clients = localDlqClients(state.endpoints);
  return { clients, topology: state.topology, destroy: () => [clients.sqs, clients.kinesis, clients.dynamodb, clients.dynamodbStreams].forEach((client) => client.destroy()) };
}

/** Clients for local engines (fauxqs needs `useQueueUrlAsEndpoint: false`, kinesalite HTTP/1.1: the factories set both). */
export function localDlqClients(endpoints: LocalStateFile['endpoints']): DlqClients {
  return {
    sqs: sqsClient(endpoints.sqs),
    kinesis: kinesisClient(endpoints.kinesis),
    dynamodb: dynamoDbClient(endpoints.dynamodb),
    dynamodbStreams: new DynamoDBStreamsClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: endpoints.dynamodb }),
    region: LOCAL_REGION,
  };
}

/** The clients and topology of a local stack running in this process (the demo's redrive phase). */
export function dlqContextOfLocalStack(stack: LocalStack): DlqContext {
  const { sqs, kinesis, dynamodb } = stack.clients;
  return { clients: { sqs, kinesis, dynamodb, dynamodbStreams: stack.dynamodbStreams, region: LOCAL_REGION }, topology: topologyOfLocalStack(stack) };
}
