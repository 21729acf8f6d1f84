/**
 * moto (`moto_server`, an AWS API emulator in Python) for tests that exercise the AWS code paths
 * without an account: started on a free port, waited for, stopped. A test that needs it fails
 * with the reason when it is missing or does not start; nothing is skipped.
 *
 * moto facts the callers rely on (5.2): one server emulates every service on one port; it reads
 * a CloudFormation `TemplateURL` path-style only when the host says `localhost` (pass
 * `TemplateBody`); queue URLs and CloudFormation's queue physical ids name AWS's host
 * (`https://sqs.<region>.amazonaws.com/...`) whatever endpoint was called.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** The command started; override with EO_MOTO_SERVER (a path, or another name on PATH). */
export const MOTO_SERVER_COMMAND = process.env.EO_MOTO_SERVER ?? 'moto_server';

/** Defaults shared by the code and its documentation. */
export const MOTO_DEFAULTS = {
  /** How long a start may take on a loaded machine (moto imports every service at start). */
  startTimeoutMs: 60_000,
  stopTimeoutMs: 5_000,
} as const;

/** A running moto_server. */
export interface MotoServer {
  /** `http://localhost:<port>`: what `AWS_ENDPOINT_URL` is set to. */
  readonly endpoint: string;
  readonly port: number;
  /** Variables that point the SDK (and the CLI) at it, with dummy credentials. */
  env(region: string): Record<string, string>;
  /** Forgets every resource (moto's `/moto-api/reset`). */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

/** moto_server is not installed, or did not come up. */
export class MotoUnavailableError extends Error {
  public constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MotoUnavailableError';
  }
}

/**
 * Starts moto_server on a free port and waits until it answers.
 *
 * @throws MotoUnavailableError naming what to install when `moto_server` is not on PATH, with its output when it exits or does not answer in time
 * @example
 * const moto = await startMoto();
 * afterAll(() => moto.stop());
 */
export async function startMoto(options: { readonly startTimeoutMs?: number } = {}): Promise<MotoServer> {
  const port = await freePort();
  const child = spawn(MOTO_SERVER_COMMAND, ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = captureOutput(child);
  const failed = failureOf(child, output);
  // It settles again when the server is stopped later: that rejection is expected.
  failed.catch(() => undefined);
  try {
    await Promise.race([untilAnswering(port, options.startTimeoutMs ?? MOTO_DEFAULTS.startTimeoutMs, output), failed]);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return motoServer(child, port);
}

function motoServer(child: ChildProcess, port: number): MotoServer {
  const endpoint = `http://localhost:${port}`;
  return {
    endpoint,
    port,
    env: (region) => ({ AWS_ENDPOINT_URL: endpoint, AWS_REGION: region, AWS_DEFAULT_REGION: region, AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing' }),
    reset: async () => void (await fetch(`http://127.0.0.1:${port}/moto-api/reset`, { method: 'POST' })),
    stop: () => stopChild(child),
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no free port could be found');
  return address.port;
}

/** The last lines moto printed, for error messages. */
function captureOutput(child: ChildProcess): () => string {
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    lines.splice(0, Math.max(0, lines.length - 20));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => lines.slice(-20).join('\n');
}

async function untilAnswering(port: number, timeoutMs: number, output: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await answers(port)) return;
    await sleep(100);
  }
  throw new MotoUnavailableError(`${MOTO_SERVER_COMMAND} did not answer on port ${port} within ${timeoutMs} ms. Its output:\n${output()}`);
}

async function answers(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/moto-api/`)).ok;
  } catch {
    return false;
  }
}

/** Rejects when the process cannot start or exits before it answers. */
function failureOf(child: ChildProcess, output: () => string): Promise<never> {
  return new Promise((_, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      const missing = error.code === 'ENOENT';
      const hint = missing ? ` was not found on PATH. Install it (\`pip install 'moto[server]'\`, moto 5.2 is what these tests were written against) or set EO_MOTO_SERVER to its path` : ` could not start: ${error.message}`;
      reject(new MotoUnavailableError(`${MOTO_SERVER_COMMAND}${hint}; the tests of the AWS code paths need it`, { cause: error }));
    });
    child.once('exit', (code, signal) => reject(new MotoUnavailableError(`${MOTO_SERVER_COMMAND} exited (${signal ?? `code ${code}`}) before it answered. Its output:\n${output()}`)));
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const stopped = await Promise.race([exited.then(() => true), sleep(MOTO_DEFAULTS.stopTimeoutMs, false, { ref: false })]);
  if (!stopped) child.kill('SIGKILL');
}
