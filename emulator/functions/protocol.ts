/**
 * The messages between a LocalFunction and the bootstrap of its execution environments
 * (`bootstrap.js`, plain CommonJS so that it runs without a TypeScript loader), each a worker
 * thread. The bootstrap does not import this file: keep the two in step.
 */

/** What the bootstrap needs to load the handler and build each invocation's context (its `workerData`). */
export interface WorkerConfig {
  readonly functionName: string;
  /** Absolute path of the unpacked code (Lambda's `LAMBDA_TASK_ROOT`). */
  readonly assetDir: string;
  /** `<file>.<export>`, e.g. `index.handler`. */
  readonly handler: string;
  readonly memoryMb: number;
  readonly region: string;
  readonly accountId: string;
  readonly logGroupName: string;
  /** One per execution environment, as on Lambda. */
  readonly logStreamName: string;
}

/** An error as it crosses the thread boundary. */
export interface WorkerError {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
}

/** Parent to bootstrap: run the handler once. */
export interface InvokeMessage {
  readonly type: 'invoke';
  readonly id: number;
  readonly requestId: string;
  /** Epoch ms at which the function times out; `getRemainingTimeInMillis` counts down to it. */
  readonly deadlineMs: number;
  /** The event as JSON: the handler receives a parsed copy, as from Lambda's runtime API. */
  readonly event: string;
  /** Invoke's client context as JSON, when the caller gave one: the handler's `context.clientContext`. */
  readonly clientContext?: string;
}

/** Bootstrap to parent. */
export type WorkerMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'init-error'; readonly error: WorkerError }
  | { readonly type: 'result'; readonly id: number; readonly ok: true; readonly response: string }
  | { readonly type: 'result'; readonly id: number; readonly ok: false; readonly error: WorkerError };
