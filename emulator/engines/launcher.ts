import { spawn, type ChildProcess } from 'node:child_process';
import { captureOutput, runningEngine, stopChild, unrefChild } from './child';
import { localEndpoint } from './ports';
import { killOnExit } from './reaper';
import { awaitStartup, startError } from './startup';
import type { EngineName, RunningEngine } from './types';

/** How long a launcher gets to print its port: generous, for a cold start on a busy CI machine. */
export const LAUNCHER_DEADLINE_MS = 15_000;

/** A Node script that runs one engine; see `startLauncher` for the contract it follows. */
export interface LauncherOptions {
  readonly engine: EngineName;
  /** Absolute path of the script. */
  readonly script: string;
  readonly args?: readonly string[];
  /** Added to this process's environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** @default LAUNCHER_DEADLINE_MS */
  readonly deadlineMs?: number;
}

/**
 * Runs an engine in its own Node process, so a hung engine cannot block this one (and an
 * ESM-only engine can run under a CommonJS Jest). Contract: the script listens on a port the OS
 * picks, prints `{"port": n}` as its first stdout line, and exits when its stdin closes, which
 * happens when this process dies, even by SIGKILL.
 */
export async function startLauncher(options: LauncherOptions): Promise<RunningEngine> {
  const child = spawn(process.execPath, [options.script, ...(options.args ?? [])], {
    env: { ...process.env, ...options.env },
    stdio: 'pipe',
  });
  killOnExit(child);
  const output = captureOutput(child);
  const deadlineMs = options.deadlineMs ?? LAUNCHER_DEADLINE_MS;
  try {
    const port = await awaitStartup(child, deadlineMs, (signal) => reportedPort(child, signal));
    unrefChild(child);
    return runningEngine(options.engine, localEndpoint(port), child);
  } catch (error) {
    await stopChild(child);
    throw startError(options.engine, error, { output: output() });
  }
}

function reportedPort(child: ChildProcess, signal: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: string): void => {
      buffered += chunk;
      const end = buffered.indexOf('\n');
      if (end < 0) return;
      child.stdout?.off('data', onData);
      const line = buffered.slice(0, end);
      const port = parsePort(line);
      if (port === undefined) reject(new Error(`printed ${JSON.stringify(line)} instead of {"port": n}`));
      else resolve(port);
    };
    child.stdout?.on('data', onData);
    signal.addEventListener('abort', () => child.stdout?.off('data', onData), { once: true });
  });
}

function parsePort(line: string): number | undefined {
  try {
    const { port } = JSON.parse(line) as { port?: unknown };
    return typeof port === 'number' && Number.isInteger(port) && port > 0 ? port : undefined;
  } catch {
    return undefined;
  }
}
