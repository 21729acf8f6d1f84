import type { ChildProcess } from 'node:child_process';

const children = new Set<ChildProcess>();
const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
let installed = false;

/**
 * Kills `child` when this process exits, is interrupted, or crashes, so an engine never outlives
 * the test run or demo that started it. The process-wide handlers are installed once, however
 * many children come and go; a child leaves the set when it exits.
 */
export function killOnExit(child: ChildProcess): void {
  installHandlers();
  children.add(child);
  child.once('exit', () => children.delete(child));
}

function installHandlers(): void {
  if (installed) return;
  installed = true;
  // 'exit' runs on normal exit, process.exit() and after an uncaught exception. The monitor kills
  // at the moment of a crash, before any other handler can hang; unlike 'uncaughtException' it
  // does not swallow the error.
  process.on('exit', killAll);
  process.on('uncaughtExceptionMonitor', killAll);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

function killAll(): void {
  // Only synchronous work is possible here; SIGKILL needs no cooperation from the child.
  for (const child of children) child.kill('SIGKILL');
  children.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  killAll();
  // Our listener replaced Node's default "exit on signal". If nobody else handles the signal,
  // step aside and re-raise it, so the process still dies the way the sender meant.
  if (process.listenerCount(signal) > 1) return;
  process.removeListener(signal, onSignal);
  process.kill(process.pid, signal);
}
