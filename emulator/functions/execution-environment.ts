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
  /**
   * Set for a function on Lambda Managed Instances: the invocations this environment runs at once
   * (its `PerExecutionEnvironmentMaxConcurrency`), in one worker thread that shares the handler and
   * its module state, and a timeout that reports the invocation failed without stopping its code.
   * @default - Lambda's default model: one invocation at a time, and a timeout ends the environment
   */
  readonly maxConcurrency?: number;
}

/** Why a cold start failed, with the stack of the error the module threw, if it threw one. */
export type InitFailureDetail = Failure & { readonly stack?: string };

type Failure = Extract<InvokeResult, { ok: false }>['error'];

/** What ends a wait on the worker. */
type WorkerEvent =
  | { readonly kind: 'message'; readonly message: WorkerMessage }
  | { readonly kind: 'exit'; readonly detail: string }
  | { readonly kind: 'timeout' };

/** Who waits on the worker: the cold start, or an invocation by its id. */
type WaiterKey = 'init' | number;

/**
 * One Lambda execution environment: a worker thread (of this process or of a runtime host) with
 * the function's own `env`, which loads the handler once (the cold start) and then runs
 * invocations. By default it runs one at a time, and a timeout terminates the worker, as Lambda
 * discards a sandbox that timed out. With `maxConcurrency` (Lambda Managed Instances) it runs up to
 * that many at once, each waited on by its id, and a timeout fails the invocation while its code
 * runs on, as there.
 */
export class ExecutionEnvironment {
  public readonly generation: number;
  /** The invocations it takes at once. */
  public readonly capacity: number;
  private readonly worker: EnvironmentThread;
  private readonly ready: Promise<Failure | undefined>;
  private readonly waiters = new Map<WaiterKey, (event: WorkerEvent) => void>();
  private running = 0;
  private exitDetail: string | undefined;
  private terminatedBecause: string | undefined;
  private lastError: Error | undefined;
  private nextId = 0;

  public constructor(private readonly options: ExecutionEnvironmentOptions) {
    this.generation = options.generation;
    this.capacity = options.maxConcurrency ?? 1;
    const start = options.threads ?? IN_PROCESS_THREADS;
    this.worker = start(
      { env: options.env, workerData: options.config, execArgv: options.execArgv },
      {
        onMessage: (message) => this.waiters.get(waiterOf(message))?.({ kind: 'message', message }),
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
    this.running += 1;
    this.worker.ref();
    try {
      const initFailure = await this.ready;
      if (initFailure !== undefined) return { ok: false, error: initFailure, durationMs: 0 };
      return await this.run(event, timeoutMs, clientContext);
    } finally {
      this.running -= 1;
      if (this.running === 0) this.worker.unref();
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
    const outcome = this.next(id, timeoutMs);
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
      // On Managed Instances the code runs on past its deadline: only Lambda's default model ends the sandbox.
      if (this.options.maxConcurrency === undefined) void this.terminate('timed out');
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
    const event = await this.next('init', INIT_TIMEOUT_MS);
    if (event.kind === 'message' && event.message.type === 'ready') return undefined;
    const failure = initFailure(event);
    // Stopped or killed while starting: the function is not at fault, and there is nothing to report.
    const interrupted = this.terminatedBecause !== undefined;
    void this.terminate('init failed');
    if (!interrupted) this.options.onInitFailure?.({ ...failure, stack: initErrorStack(event) });
    return failure;
  }

  /** The worker's next message for `key` (the cold start's, or an invocation's result), its exit, or the timeout, whichever comes first. */
  private next(key: WaiterKey, timeoutMs: number): Promise<WorkerEvent> {
    if (this.exitDetail !== undefined) return Promise.resolve({ kind: 'exit', detail: this.exitDetail });
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
      const finish = (event: WorkerEvent): void => {
        clearTimeout(timer);
        this.waiters.delete(key);
        resolve(event);
      };
      this.waiters.set(key, finish);
    });
  }

  private onExit(code: number): void {
    const cause = this.lastError ? `${this.lastError.name}: ${this.lastError.message}` : `exit code ${code}`;
    this.exitDetail = this.terminatedBecause
      ? `The execution environment was terminated (${this.terminatedBecause})`
      : `Runtime exited with error: ${cause}`;
    const exit: WorkerEvent = { kind: 'exit', detail: this.exitDetail };
    for (const finish of [...this.waiters.values()]) finish(exit);
  }
}

/** Whom a message of the worker answers: a result goes to its invocation, the rest to the cold start. */
function waiterOf(message: WorkerMessage): WaiterKey {
  return message.type === 'result' ? message.id : 'init';
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
