import { randomUUID } from 'node:crypto';
import type { InvokeResult } from '../types';
import type { OutputSink } from './output';
import type { InvokeMessage, WorkerConfig, WorkerError, WorkerMessage } from './protocol';
import { IN_PROCESS_THREADS, type EnvironmentThread, type ThreadStarter } from './threads';

/** Lambda gives the init phase (loading the module, top-level code) at most this long. */
export const INIT_TIMEOUT_MS = 10_000;

/** How one execution environment is started. */
export interface ExecutionEnvironmentOptions {
  readonly config: WorkerConfig;
  readonly env: Readonly<Record<string, string>>;
  readonly execArgv: readonly string[];
  readonly output: OutputSink;
  /** Which configuration of the function this environment runs; see `LocalFunction.setEnvironment`. */
  readonly generation: number;
  /** Where its thread runs. @default IN_PROCESS_THREADS */
  readonly threads?: ThreadStarter;
  /** Called when the cold start fails for a reason of the function's own (not a stop or kill meanwhile). */
  readonly onInitFailure?: (failure: InitFailureDetail) => void;
}

/** Why a cold start failed, with the stack of the error the module threw, if it threw one. */
export type InitFailureDetail = Failure & { readonly stack?: string };

type Failure = Extract<InvokeResult, { ok: false }>['error'];

/** What ends a wait on the worker. */
type WorkerEvent =
  | { readonly kind: 'message'; readonly message: WorkerMessage }
  | { readonly kind: 'exit'; readonly detail: string }
  | { readonly kind: 'timeout' };

/**
 * One Lambda execution environment: a worker thread (of this process or of a runtime host) with the function's own `env`, which loads
 * the handler once (the cold start) and then runs one invocation at a time. A timeout terminates
 * the worker, as Lambda discards a sandbox that timed out.
 */
export class ExecutionEnvironment {
  public readonly generation: number;
  private readonly worker: EnvironmentThread;
  private readonly ready: Promise<Failure | undefined>;
  private waiter: ((event: WorkerEvent) => void) | undefined;
  private exitDetail: string | undefined;
  private terminatedBecause: string | undefined;
  private lastError: Error | undefined;
  private nextId = 0;

  public constructor(private readonly options: ExecutionEnvironmentOptions) {
    this.generation = options.generation;
    const start = options.threads ?? IN_PROCESS_THREADS;
    this.worker = start(
      { env: options.env, workerData: options.config, execArgv: options.execArgv },
      {
        onMessage: (message) => this.waiter?.({ kind: 'message', message }),
        onError: (error) => (this.lastError = error),
        onExit: (code) => this.onExit(code),
        onOutput: (chunk, stream) => this.options.output(chunk, { functionName: this.options.config.functionName, stream }),
      },
    );
    this.ready = this.initialise();
  }

  /** False once the worker has exited or is being terminated: the environment cannot be reused. */
  public get alive(): boolean {
    return this.exitDetail === undefined && this.terminatedBecause === undefined;
  }

  /** Runs the handler once; waits for the cold start first if there is one. */
  public async invoke(event: unknown, timeoutMs: number, clientContext?: unknown): Promise<InvokeResult> {
    this.worker.ref();
    try {
      const initFailure = await this.ready;
      if (initFailure !== undefined) return { ok: false, error: initFailure, durationMs: 0 };
      return await this.run(event, timeoutMs, clientContext);
    } finally {
      this.worker.unref();
    }
  }

  /** Stops the worker; an invocation in flight ends as a crash (`reason` says why). */
  public async terminate(reason: string): Promise<void> {
    this.terminatedBecause ??= reason;
    await this.worker.terminate();
  }

  private async run(event: unknown, timeoutMs: number, clientContext: unknown): Promise<InvokeResult> {
    const started = Date.now();
    const id = ++this.nextId;
    const outcome = this.next(timeoutMs);
    const message: InvokeMessage = {
      type: 'invoke',
      id,
      requestId: randomUUID(),
      deadlineMs: started + timeoutMs,
      // Lambda hands a function invoked without a payload `{}`.
      event: JSON.stringify(event === undefined ? {} : event),
      ...(clientContext !== undefined && { clientContext: JSON.stringify(clientContext) }),
    };
    this.worker.postMessage(message);
    const result = this.toResult(await outcome, timeoutMs);
    return { ...result, durationMs: Date.now() - started };
  }

  private toResult(event: WorkerEvent, timeoutMs: number): { ok: true; response: unknown } | { ok: false; error: Failure } {
    if (event.kind === 'timeout') {
      void this.terminate('timed out');
      return { ok: false, error: { kind: 'timeout', name: 'Sandbox.Timedout', message: `Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds` } };
    }
    if (event.kind === 'exit') return { ok: false, error: { kind: 'crash', name: 'Runtime.ExitError', message: event.detail } };
    const { message } = event;
    if (message.type !== 'result') return { ok: false, error: { kind: 'crash', name: 'Runtime.InvalidResponse', message: `unexpected ${message.type}` } };
    if (message.ok) return { ok: true, response: JSON.parse(message.response) as unknown };
    return { ok: false, error: errorFailure(message.error) };
  }

  /** The cold start: resolves once the handler is loaded, or with why it could not be. */
  private async initialise(): Promise<Failure | undefined> {
    const event = await this.next(INIT_TIMEOUT_MS);
    if (event.kind === 'message' && event.message.type === 'ready') return undefined;
    const failure = initFailure(event);
    // Stopped or killed while starting: the function is not at fault, and there is nothing to report.
    const interrupted = this.terminatedBecause !== undefined;
    void this.terminate('init failed');
    if (!interrupted) this.options.onInitFailure?.({ ...failure, stack: initErrorStack(event) });
    return failure;
  }

  /** The next message from the worker, its exit, or the timeout, whichever comes first. */
  private next(timeoutMs: number): Promise<WorkerEvent> {
    if (this.exitDetail !== undefined) return Promise.resolve({ kind: 'exit', detail: this.exitDetail });
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
      const finish = (event: WorkerEvent): void => {
        clearTimeout(timer);
        this.waiter = undefined;
        resolve(event);
      };
      this.waiter = finish;
    });
  }

  private onExit(code: number): void {
    const cause = this.lastError ? `${this.lastError.name}: ${this.lastError.message}` : `exit code ${code}`;
    this.exitDetail = this.terminatedBecause
      ? `The execution environment was terminated (${this.terminatedBecause})`
      : `Runtime exited with error: ${cause}`;
    this.waiter?.({ kind: 'exit', detail: this.exitDetail });
  }
}

function errorFailure(error: WorkerError): Failure {
  return { kind: 'error', name: error.name, message: error.message };
}

function initErrorStack(event: WorkerEvent): string | undefined {
  return event.kind === 'message' && event.message.type === 'init-error' ? event.message.error.stack : undefined;
}

function initFailure(event: WorkerEvent): Failure {
  if (event.kind === 'timeout') {
    return { kind: 'timeout', name: 'Sandbox.Timedout', message: `Init phase timed out after ${(INIT_TIMEOUT_MS / 1000).toFixed(2)} seconds` };
  }
  if (event.kind === 'exit') return { kind: 'crash', name: 'Runtime.ExitError', message: event.detail };
  if (event.message.type === 'init-error') return errorFailure(event.message.error);
  return { kind: 'crash', name: 'Runtime.InvalidResponse', message: `expected ready, got ${event.message.type}` };
}
