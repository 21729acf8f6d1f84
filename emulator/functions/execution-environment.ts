import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { InvokeResult } from '../types';
import type { OutputSink } from './output';
import type { InvokeMessage, WorkerConfig, WorkerError, WorkerMessage } from './protocol';

/** The bootstrap every execution environment runs; plain JavaScript, so no loader is needed. */
export const BOOTSTRAP_FILE = join(__dirname, 'bootstrap.js');

/** Lambda gives the init phase (loading the module, top-level code) at most this long. */
export const INIT_TIMEOUT_MS = 10_000;

/** How one execution environment is started. */
export interface ExecutionEnvironmentOptions {
  readonly config: WorkerConfig;
  /** The whole environment of the process: nothing of the host's is added. */
  readonly env: Readonly<Record<string, string>>;
  /** The Node.js binary of the function's runtime (./node-runtime.ts). */
  readonly nodeBinary: string;
  readonly output: OutputSink;
  /** Which configuration of the function this environment runs; see `LocalFunction.setEnvironment`. */
  readonly generation: number;
  /** Called when the cold start fails for a reason of the function's own (not a stop or kill meanwhile). */
  readonly onInitFailure?: (failure: InitFailureDetail) => void;
}

/** Why a cold start failed, with the stack of the error the module threw, if it threw one. */
export type InitFailureDetail = Failure & { readonly stack?: string };

type Failure = Extract<InvokeResult, { ok: false }>['error'];

/** What ends a wait on the process. */
type WorkerEvent =
  | { readonly kind: 'message'; readonly message: WorkerMessage }
  | { readonly kind: 'exit'; readonly detail: string }
  | { readonly kind: 'timeout' };

/**
 * One Lambda execution environment: a process of its own, on the Node.js major of the function's
 * runtime, with the function's environment and no more, which loads the handler once (the cold
 * start) and then runs one invocation at a time. A timeout kills the process, as Lambda discards a
 * sandbox that timed out.
 *
 * The process never holds the caller's event loop open by itself: an invocation or a cold start in
 * progress does, through its timeout's timer.
 */
export class ExecutionEnvironment {
  public readonly generation: number;
  private readonly child: ChildProcess;
  private readonly exited: Promise<void>;
  private markExited: () => void = () => undefined;
  private readonly ready: Promise<Failure | undefined>;
  private waiter: ((event: WorkerEvent) => void) | undefined;
  private exitDetail: string | undefined;
  private terminatedBecause: string | undefined;
  private lastError: { readonly name: string; readonly message: string } | undefined;
  private nextId = 0;

  public constructor(private readonly options: ExecutionEnvironmentOptions) {
    this.generation = options.generation;
    this.child = fork(BOOTSTRAP_FILE, [JSON.stringify(options.config)], {
      execPath: options.nodeBinary,
      // The host's flags (a TypeScript loader, a test runner's) are not the function's: Lambda
      // passes none but what NODE_OPTIONS in the function's environment says.
      execArgv: [],
      env: { ...options.env },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'json',
    });
    this.exited = new Promise((resolve) => (this.markExited = resolve));
    this.child.once('exit', (code, signal) => this.onExit(code, signal));
    this.forwardOutput(this.child.stdout, 'stdout');
    this.forwardOutput(this.child.stderr, 'stderr');
    this.child.on('message', (message: WorkerMessage) => this.onMessage(message));
    // Only a process that could not be started reports an error without exiting.
    this.child.on('error', (error) => {
      this.lastError = error;
      if (this.child.pid === undefined) this.onExit(null, null);
    });
    this.unrefProcess();
    this.ready = this.initialise();
  }

  /** False once the process has exited or is being terminated: the environment cannot be reused. */
  public get alive(): boolean {
    return this.exitDetail === undefined && this.terminatedBecause === undefined;
  }

  /** Runs the handler once; waits for the cold start first if there is one. */
  public async invoke(event: unknown, timeoutMs: number, clientContext?: unknown): Promise<InvokeResult> {
    const initFailure = await this.ready;
    if (initFailure !== undefined) return { ok: false, error: initFailure, durationMs: 0 };
    return this.run(event, timeoutMs, clientContext);
  }

  /** Kills the process; an invocation in flight ends as a crash (`reason` says why). */
  public async terminate(reason: string): Promise<void> {
    this.terminatedBecause ??= reason;
    if (this.exitDetail === undefined) this.child.kill('SIGKILL');
    await this.exited;
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
    this.child.send(message, (error) => {
      if (error) this.lastError = error;
    });
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

  /** The next message from the process, its exit, or the timeout, whichever comes first. */
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

  private onMessage(message: WorkerMessage): void {
    if (message.type === 'fatal') this.lastError = message.error;
    else this.waiter?.({ kind: 'message', message });
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exitDetail !== undefined) return;
    const status = code !== null ? `exit code ${code}` : signal !== null ? `signal ${signal}` : 'not started';
    const cause = this.lastError ? `${this.lastError.name}: ${this.lastError.message}` : status;
    this.exitDetail = this.terminatedBecause
      ? `The execution environment was terminated (${this.terminatedBecause})`
      : `Runtime exited with error: ${cause}`;
    this.markExited();
    this.waiter?.({ kind: 'exit', detail: this.exitDetail });
  }

  /** The process, its IPC channel and its pipes keep nobody's event loop alive (see the class). */
  private unrefProcess(): void {
    this.child.unref();
    this.child.channel?.unref();
    for (const stream of [this.child.stdout, this.child.stderr]) (stream as { unref?: () => void } | null)?.unref?.();
  }

  private forwardOutput(stream: Readable | null, name: 'stdout' | 'stderr'): void {
    if (stream === null) return;
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => this.options.output(chunk, { functionName: this.options.config.functionName, stream: name }));
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
