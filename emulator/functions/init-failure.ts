/**
 * A function that cannot load or initialize. On Lambda that is a logged `Runtime.ImportModuleError`,
 * `Runtime.HandlerNotFound`, `Runtime.UserCodeSyntaxError` or the exception its top-level code
 * threw, and every invocation fails until a fixed version is deployed. Locally it must be as loud:
 * a line in the functions' log, a callback up to whoever runs the stack, and a signal that a run
 * can stop on instead of retrying the batch in silence.
 */

/** One failed init of one execution environment. */
export interface InitFailure {
  readonly functionName: string;
  /** Lambda's name for it (`Runtime.ImportModuleError`, ...), or the name of the error the module threw. */
  readonly errorType: string;
  readonly errorMessage: string;
  /** The stack of the error, when the module threw one. */
  readonly stack?: string;
  /** ISO-8601. */
  readonly at: string;
}

/** Called once per execution environment whose init failed. */
export type InitFailureListener = (failure: InitFailure) => void;

/** Thrown (or used as an abort reason) when a run stops because a function failed to initialize. */
export class FunctionInitError extends Error {
  public constructor(public readonly failure: InitFailure) {
    super(initFailureSummary(failure));
    this.name = 'FunctionInitError';
  }
}

/** One line for a terminal: the function, the error type and the first line of the message. */
export function initFailureSummary(failure: InitFailure): string {
  return `function ${failure.functionName} failed to initialize: ${failure.errorType}: ${failure.errorMessage.split('\n')[0]}`;
}

/**
 * The log line for a failed init, in the shape of Lambda's JSON log of an init error: one JSON
 * object with the level, `errorType`, `errorMessage` and `stackTrace`, plus the function's name
 * (on Lambda that is the log group; the local log holds every function's lines).
 */
export function initFailureLogLine(failure: InitFailure): string {
  return JSON.stringify({
    timestamp: failure.at,
    level: 'ERROR',
    phase: 'init',
    functionName: failure.functionName,
    errorType: failure.errorType,
    errorMessage: failure.errorMessage,
    stackTrace: failure.stack?.split('\n').slice(1).map((line) => line.trim()) ?? [],
  });
}

/**
 * The first init failure among a stack's functions, for a run to stop on. `signal` aborts with a
 * {@link FunctionInitError}; {@link InitFailureSignal.race} rejects a piece of work with it.
 *
 * @example
 * const initFailures = new InitFailureSignal();
 * const fn = new LocalFunction({ ...config, onInitFailure: initFailures.report });
 * await initFailures.race(publish());
 * await untilDrained(parts, { signal: initFailures.signal });
 */
export class InitFailureSignal {
  private readonly controller = new AbortController();
  private rejectFailed: ((error: FunctionInitError) => void) | undefined;
  private readonly failed = new Promise<never>((_, reject) => (this.rejectFailed = reject));

  public constructor() {
    // Nobody may be racing when the failure comes: it must not count as an unhandled rejection.
    this.failed.catch(() => undefined);
  }

  /** Aborted, with a {@link FunctionInitError}, at the first failure. */
  public get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The first failure, once there is one. */
  public get first(): InitFailure | undefined {
    return (this.controller.signal.reason as FunctionInitError | undefined)?.failure;
  }

  /** Records a failure; only the first one aborts. An {@link InitFailureListener}, so it can be passed as it is. */
  public readonly report: InitFailureListener = (failure) => {
    if (this.controller.signal.aborted) return;
    const error = new FunctionInitError(failure);
    this.controller.abort(error);
    this.rejectFailed?.(error);
  };

  /** `work`, or a rejection with the {@link FunctionInitError} if a function fails to initialize first. */
  public race<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.failed]);
  }
}
