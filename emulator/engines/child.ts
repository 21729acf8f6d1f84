import type { ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';
import type { EngineName, RunningEngine } from './types';

/** How much of an engine's output an error message quotes. */
export const OUTPUT_TAIL_CHARS = 4000;

/** How long `stopChild` waits after SIGTERM before it sends SIGKILL. */
export const STOP_GRACE_MS = 3000;

/**
 * Keeps the last `maxChars` of a child's stdout and stderr. It also keeps both pipes drained:
 * a child whose pipe buffer fills up blocks on its next write.
 */
export function captureOutput(child: ChildProcess, maxChars = OUTPUT_TAIL_CHARS): () => string {
  let tail = '';
  const append = (chunk: string): void => {
    tail = (tail + chunk).slice(-maxChars);
  };
  for (const stream of [child.stdout, child.stderr]) {
    stream?.setEncoding('utf8');
    stream?.on('data', append);
  }
  return () => tail;
}

/** True once the child has exited, by code or by signal. */
function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Resolves when the child exits (at once if it already has). */
function exited(child: ChildProcess): Promise<void> {
  if (hasExited(child)) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** SIGTERM, then SIGKILL if the child is still there after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = STOP_GRACE_MS): Promise<void> {
  // No pid: the spawn itself failed, so there is nothing to stop and no 'exit' will come.
  if (child.pid === undefined || hasExited(child)) return;
  const done = exited(child);
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await done;
  clearTimeout(timer);
}

/**
 * Lets the parent exit while the child runs; the reaper's exit handler then kills the child.
 * Only call this once startup is over: until then the pipes are what keeps the parent waiting.
 */
export function unrefChild(child: ChildProcess): void {
  child.unref();
  for (const stream of child.stdio) {
    if (stream instanceof Socket) stream.unref();
  }
}

/** The `RunningEngine` for a child process: `stop()` stops it once, however often it is called. */
export function runningEngine(name: EngineName, endpoint: string, child: ChildProcess): RunningEngine {
  let stopping: Promise<void> | undefined;
  return { name, endpoint, stop: () => (stopping ??= stopChild(child)) };
}
