/**
 * Starts the bench's gateways in child processes (`gateway-child.ts` for DynamoDB,
 * `data-api-child.ts` for the Data API), so that the contract layer's CPU is not charged to the
 * consumer being measured: in the bench's own process it would slow most the strategies that make
 * the most requests, the peer first.
 */
import { fork, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import type { PostgresConnection } from '../../emulator/engines/postgres';
import type { LatencyProfileLabel } from '../../emulator/gateway';

/** The child gateway's endpoint, and how to stop it. */
export interface GatewayProcess {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** How long the child may take to listen. */
const START_TIMEOUT_MS = 30_000;

/** Forks the gateway in front of `engine`, waiting `latency` (seeded); resolves once it listens. */
export function startGatewayProcess(engine: string, latency: LatencyProfileLabel, seed: number): Promise<GatewayProcess> {
  return forkGateway('gateway-child.ts', [engine, latency.name, String(latency.scale), String(seed)]);
}

/**
 * Forks a local Data API gateway (`data-api-child.ts`) in front of `postgres`, waiting `latency`
 * (seeded) on every call; resolves once it listens. The connection travels in the child's
 * environment, not its command line, which other users of the machine can read.
 */
export function startDataApiProcess(postgres: PostgresConnection, latency: LatencyProfileLabel, seed: number): Promise<GatewayProcess> {
  return forkGateway('data-api-child.ts', [latency.name, String(latency.scale), String(seed)], { [BENCH_POSTGRES_ENV]: JSON.stringify(postgres) });
}

/** The variable that hands the Data API child its PostgreSQL connection, as JSON. */
export const BENCH_POSTGRES_ENV = 'EO_BENCH_POSTGRES';

async function forkGateway(script: string, args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<GatewayProcess> {
  const child = fork(path.join(__dirname, script), [...args], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: { ...process.env, ...env } });
  try {
    const endpoint = await endpointOf(child);
    return { endpoint, stop: () => stopChild(child) };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

function endpointOf(child: ChildProcess): Promise<string> {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the bench's gateway did not start within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
    child.once('message', (message: { endpoint?: string }) => {
      clearTimeout(timer);
      if (typeof message.endpoint === 'string') resolve(message.endpoint);
      else reject(new Error(`the bench's gateway said ${JSON.stringify(message)} instead of its endpoint`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the bench's gateway exited (code ${String(code)}) before listening: ${stderr.trim()}`));
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.send('stop');
  });
}
