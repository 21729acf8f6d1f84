/**
 * The parent side of a runtime host (runtime-host-main.js): one process on a Lambda runtime's Node.js
 * binary, forked once and shared by every execution environment of every function on that
 * runtime, each a worker thread inside it. One process and its threads, not a process per
 * environment: docs/local-mode.md ("Node.js as Lambda runs it") has the measurements behind that.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { InvokeMessage, WorkerMessage } from './protocol';
import { WORKER_FILE, type EnvironmentThread, type ThreadEvents, type ThreadOptions, type ThreadStarter } from './threads';

/** The host's script; plain JavaScript, so it runs on a bare Node.js. */
export const RUNTIME_HOST_FILE = join(__dirname, 'runtime-host-main.js');

/** Parent to host. */
type ToHost =
  | { readonly op: 'start'; readonly id: number; readonly file: string; readonly env: Readonly<Record<string, string>>; readonly workerData: ThreadOptions['workerData']; readonly execArgv: readonly string[] }
  | { readonly op: 'post'; readonly id: number; readonly message: InvokeMessage }
  | { readonly op: 'terminate'; readonly id: number };

/** Host to parent. */
type FromHost =
  | { readonly op: 'ready'; readonly version: string }
  | ({ readonly op: 'message'; readonly id: number; readonly message: WorkerMessage } & WithOutput)
  | ({ readonly op: 'output'; readonly id: number } & WithOutput)
  | ({ readonly op: 'error'; readonly id: number; readonly error: { readonly name: string; readonly message: string } } & WithOutput)
  | ({ readonly op: 'exit'; readonly id: number; readonly code: number } & WithOutput);

/** A thread's output since the host last sent some, in order: it travels with the next message, so that a chunk costs no wake-up of its own. */
interface WithOutput {
  readonly output?: readonly (readonly ['stdout' | 'stderr', string])[];
}

/** One thread of the host as its environment sees it. */
interface HostedThread {
  readonly events: ThreadEvents;
  referenced: boolean;
  exited?: () => void;
}

/**
 * A runtime host on one Node.js binary. It starts with the first thread, keeps this process alive
 * only while one of its threads is referenced (working), and starts again after it dies (its
 * threads end as crashes).
 */
export class RuntimeHost {
  private child: ChildProcess | undefined;
  private readonly threads = new Map<number, HostedThread>();
  private nextId = 0;

  public constructor(private readonly binary: string) {}

  /** Starts threads in this host. */
  public readonly threadStarter: ThreadStarter = (options, events) => this.startThread(options, events);

  /** Kills the host; its threads end as crashes. */
  public close(): void {
    this.child?.kill('SIGKILL');
  }

  private startThread(options: ThreadOptions, events: ThreadEvents): EnvironmentThread {
    const id = ++this.nextId;
    const thread: HostedThread = { events, referenced: true };
    this.threads.set(id, thread);
    this.send({ op: 'start', id, file: WORKER_FILE, env: options.env, workerData: options.workerData, execArgv: options.execArgv });
    this.updateReference();
    return {
      postMessage: (message) => this.send({ op: 'post', id, message }),
      terminate: () => this.terminate(id),
      ref: () => this.reference(id, true),
      unref: () => this.reference(id, false),
    };
  }

  private terminate(id: number): Promise<void> {
    const thread = this.threads.get(id);
    if (thread === undefined) return Promise.resolve();
    const exited = new Promise<void>((resolve) => (thread.exited = resolve));
    this.send({ op: 'terminate', id });
    return exited;
  }

  private reference(id: number, referenced: boolean): void {
    const thread = this.threads.get(id);
    if (thread === undefined) return;
    thread.referenced = referenced;
    this.updateReference();
  }

  /** The host (its process and channel) keeps this process alive while a thread is referenced. */
  private updateReference(): void {
    const child = this.child;
    if (child === undefined) return;
    const referenced = [...this.threads.values()].some((thread) => thread.referenced);
    const channel = child.channel as { ref(): void; unref(): void } | undefined;
    if (referenced) {
      child.ref();
      channel?.ref();
    } else {
      child.unref();
      channel?.unref();
    }
  }

  private send(message: ToHost): void {
    const child = this.child ?? this.spawn();
    if (child.connected) child.send(message);
  }

  private spawn(): ChildProcess {
    // No loader flags of this process (tsx, ts-jest), no NODE_OPTIONS: each thread gets its own options and env.
    const child = fork(RUNTIME_HOST_FILE, [], {
      execPath: this.binary,
      execArgv: [],
      env: { PATH: process.env.PATH ?? '' },
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.on('message', (message: FromHost) => this.receive(message));
    child.on('exit', (code, signal) => this.hostExited(child, signal ?? `exit code ${code}`));
    child.on('error', (error) => this.hostExited(child, error.message));
    this.child = child;
    return child;
  }

  private receive(message: FromHost): void {
    if (message.op === 'ready') return;
    const thread = this.threads.get(message.id);
    if (thread === undefined) return;
    for (const [stream, chunk] of message.output ?? []) thread.events.onOutput(chunk, stream);
    if (message.op === 'message') thread.events.onMessage(message.message);
    else if (message.op === 'output') return;
    else if (message.op === 'error') thread.events.onError(Object.assign(new Error(message.error.message), { name: message.error.name }));
    else this.threadExited(message.id, message.code);
  }

  private threadExited(id: number, code: number): void {
    const thread = this.threads.get(id);
    if (thread === undefined) return;
    this.threads.delete(id);
    this.updateReference();
    thread.events.onExit(code);
    thread.exited?.();
  }

  /** Every thread of a host that died ends as a crash; the next thread starts a new host. */
  private hostExited(child: ChildProcess, cause: string): void {
    if (this.child !== child) return;
    this.child = undefined;
    for (const [id, thread] of [...this.threads]) {
      thread.events.onError(new Error(`the runtime host (${this.binary}) exited: ${cause}`));
      this.threadExited(id, 1);
    }
  }
}
