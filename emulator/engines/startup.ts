import type { ChildProcess } from 'node:child_process';
import { EngineStartError, type EngineKind } from './errors';

/** Why an engine process did not become ready. */
export type StartupFailure =
  | { readonly reason: 'exited'; readonly code: number | null; readonly signal: NodeJS.Signals | null }
  | { readonly reason: 'spawn-error'; readonly error: Error }
  | { readonly reason: 'deadline'; readonly deadlineMs: number };

/** Thrown by `awaitStartup`; callers turn it into an error that says what to do. */
export class StartupInterrupted extends Error {
  constructor(readonly failure: StartupFailure) {
    super(describeFailure(failure));
    this.name = 'StartupInterrupted';
  }
}

/**
 * Waits for `ready` while watching the child: if it exits, fails to spawn, or the deadline
 * passes first, rejects with `StartupInterrupted`. `ready` receives a signal that aborts once the
 * race is decided, so a readiness poll stops instead of running on in the background.
 */
export async function awaitStartup<T>(
  child: ChildProcess,
  deadlineMs: number,
  ready: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  try {
    return await Promise.race([ready(controller.signal), interruption(child, deadlineMs, controller.signal)]);
  } finally {
    controller.abort();
  }
}

function interruption(child: ChildProcess, deadlineMs: number, signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    const fail = (failure: StartupFailure): void => reject(new StartupInterrupted(failure));
    const onExit = (code: number | null, exitSignal: NodeJS.Signals | null): void =>
      fail({ reason: 'exited', code, signal: exitSignal });
    const onError = (error: Error): void => fail({ reason: 'spawn-error', error });
    const timer = setTimeout(() => fail({ reason: 'deadline', deadlineMs }), deadlineMs);
    child.once('exit', onExit);
    child.once('error', onError);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      child.off('exit', onExit);
      child.off('error', onError);
    }, { once: true });
  });
}

/** A one-line account of a startup failure, for error messages. */
function describeFailure(failure: StartupFailure): string {
  switch (failure.reason) {
    case 'exited':
      return `exited during startup (code ${failure.code}, signal ${failure.signal})`;
    case 'spawn-error':
      return `could not be spawned: ${failure.error.message}`;
    case 'deadline':
      return `did not become ready within ${failure.deadlineMs} ms`;
  }
}

/** Wraps whatever stopped an engine's startup in an `EngineStartError` that quotes its output. */
export function startError(
  engine: EngineKind,
  error: unknown,
  context: { port?: number; output: string; hint?: string },
): EngineStartError {
  const what = error instanceof Error ? error.message : String(error);
  const where = context.port === undefined ? '' : ` (port ${context.port})`;
  const hint = context.hint === undefined ? '' : ` ${context.hint}`;
  return new EngineStartError(engine, `${engine} engine${where} ${what}.${hint}`, context, { cause: error });
}
