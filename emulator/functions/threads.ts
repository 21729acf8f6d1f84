/**
 * Where an execution environment's thread runs: a worker thread of this process (when the
 * function's Lambda runtime names the Node.js major running the tools), or one of a runtime host,
 * a process on the runtime's own Node.js that holds worker threads for it (./runtime-host.ts).
 * Either way the environment sees the same few operations and events.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { InvokeMessage, WorkerConfig, WorkerMessage } from './protocol';

/** The bootstrap every execution environment runs; plain JavaScript, so no loader is needed. */
export const WORKER_FILE = join(__dirname, 'bootstrap.js');

/** How a thread is started: the function's own `process.env`, its config, and the Node.js options a worker accepts. */
export interface ThreadOptions {
  readonly env: Readonly<Record<string, string>>;
  readonly workerData: WorkerConfig;
  readonly execArgv: readonly string[];
}

/** What a thread tells its execution environment. */
export interface ThreadEvents {
  readonly onMessage: (message: WorkerMessage) => void;
  /** An error the thread could not handle (it exits next). */
  readonly onError: (error: Error) => void;
  readonly onExit: (code: number) => void;
  readonly onOutput: (chunk: string, stream: 'stdout' | 'stderr') => void;
}

/** One execution environment's thread, wherever it runs. */
export interface EnvironmentThread {
  postMessage(message: InvokeMessage): void;
  /** Resolves once the thread has exited. */
  terminate(): Promise<void>;
  /** Keeps this process alive while the thread works (a thread starts referenced). */
  ref(): void;
  /** Lets this process exit while the thread idles. */
  unref(): void;
}

/** Starts a thread running the bootstrap ({@link WORKER_FILE}). */
export type ThreadStarter = (options: ThreadOptions, events: ThreadEvents) => EnvironmentThread;

/** Threads of this process: the functions run on the Node.js that runs the tools. */
export const IN_PROCESS_THREADS: ThreadStarter = (options, events) => {
  const worker = new Worker(WORKER_FILE, { env: { ...options.env }, workerData: options.workerData, execArgv: [...options.execArgv], stdout: true, stderr: true });
  for (const stream of ['stdout', 'stderr'] as const) {
    worker[stream].setEncoding('utf8');
    worker[stream].on('data', (chunk: string) => events.onOutput(chunk, stream));
  }
  worker.on('message', events.onMessage);
  worker.on('error', events.onError);
  worker.on('exit', events.onExit);
  return {
    postMessage: (message) => worker.postMessage(message),
    terminate: async () => {
      await worker.terminate();
    },
    ref: () => worker.ref(),
    unref: () => worker.unref(),
  };
};
