/**
 * Starts the bench's latency gateway in a child process (`gateway-child.ts`), so that the contract
 * layer's CPU is not charged to the consumer being measured: in the bench's own process it would
 * slow most the strategies that make the most requests, the peer first.
 */
import { fork, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import type { LatencyProfileLabel } from '../../emulator/gateway';

/** The child gateway's endpoint, and how to stop it. */
export interface GatewayProcess {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** How long the child may take to listen. */
const START_TIMEOUT_MS = 30_000;

/** Forks the gateway in front of `engine`, waiting `latency` (seeded); resolves once it listens. */
export async function startGatewayProcess(engine: string, latency: LatencyProfileLabel, seed: number): Promise<GatewayProcess> {
  const child = fork(path.join(__dirname, 'gateway-child.ts'), [engine, latency.name, String(latency.scale), String(seed)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
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
