import { isAbsolute } from 'node:path';
import { LOCAL_ACCOUNT_ID, LOCAL_CREDENTIALS, LOCAL_REGION } from '../engines/account';
import type { InvokeOptions, InvokeResult, Invoker } from '../types';
import { lambdaEnvironment, logStreamName, workerExecArgv } from './environment';
import { ExecutionEnvironment, type InitFailureDetail } from './execution-environment';
import { initFailureLogLine, type InitFailure, type InitFailureListener } from './init-failure';
import { DROP_OUTPUT, type OutputSink } from './output';
import type { WorkerConfig } from './protocol';
import type { ThreadStarter } from './threads';

/** Defaults of {@link LocalFunctionConfig}, named once for the code and its docs. */
export const LOCAL_FUNCTION_DEFAULTS = {
  handler: 'index.handler',
  memoryMb: 128,
  concurrency: 1,
} as const;

/** A function as the template declares it, with its environment already resolved. */
export interface LocalFunctionConfig {
  readonly name: string;
  /** Absolute path of the bundled code, e.g. `<repo>/cdk.out/asset.<hash>`. */
  readonly assetDir: string;
  /** `<file>.<export>`; the file may be `.js` (CommonJS) or `.mjs`. @default 'index.handler' */
  readonly handler?: string;
  /** Up to 900, as on Lambda; fractions are allowed, for compressed local time and fast tests. */
  readonly timeoutSeconds: number;
  /** Reported in the context and `AWS_LAMBDA_FUNCTION_MEMORY_SIZE`; not enforced. @default 128 */
  readonly memoryMb?: number;
  /** The function's variables, added to Lambda's own (`AWS_REGION`, `AWS_LAMBDA_FUNCTION_NAME`, ...). */
  readonly environment: Readonly<Record<string, string>>;
  /** Execution environments that may run at once; further calls wait for one. @default 1 */
  readonly concurrency?: number;
  /**
   * Set for a function on Lambda Managed Instances (the template's
   * `CapacityProviderConfig.LambdaManagedInstancesCapacityProviderConfig.PerExecutionEnvironmentMaxConcurrency`):
   * each environment then takes up to this many invocations at once in its one worker thread, with
   * `AWS_LAMBDA_MAX_CONCURRENCY` set and an invoke store per invocation, and a timeout reports the
   * invocation failed without stopping its code. 1 to 1600, as on AWS.
   * @default - Lambda's default model: one invocation per environment
   */
  readonly perEnvironmentMaxConcurrency?: number;
  /** Where the functions' stdout and stderr go. @default DROP_OUTPUT */
  readonly output?: OutputSink;
  /**
   * Told of every execution environment whose init failed (the module did not load, the handler is
   * not exported, top-level code threw or exited), after the failure's JSON line went to `output`.
   * @default - only the log line
   */
  readonly onInitFailure?: InitFailureListener;
  /**
   * Where the execution environments' threads run: `threadsForRuntime` gives the ones of the
   * function's Lambda runtime. @default IN_PROCESS_THREADS (the tools' own Node.js)
   */
  readonly threads?: ThreadStarter;
  /** @default LOCAL_REGION */
  readonly region?: string;
  /** @default LOCAL_ACCOUNT_ID */
  readonly accountId?: string;
}

/** Counts since the function was created. Each invocation that did not succeed counts once, by kind. */
export interface LocalFunctionStats {
  readonly invocations: number;
  readonly coldStarts: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly crashes: number;
  /** Execution environments whose init failed (each of their invocations also counts as an error, timeout or crash). */
  readonly initFailures: number;
  /** The most invocations one execution environment ran at once: 1 in Lambda's default model, up to its concurrency on Managed Instances. */
  readonly peakEnvironmentLoad: number;
}

type MutableStats = { -readonly [K in keyof LocalFunctionStats]: LocalFunctionStats[K] };

/**
 * A Lambda function emulated in this process. Each execution environment is a worker thread (of
 * this process, or of the runtime host on its Lambda runtime's Node.js) with its own `process.env`, so functions with different variables run side by side; it loads
 * the bundle once and serves invocations until it times out, crashes, is killed or recycled.
 *
 * @example
 * const fn = new LocalFunction({ name: 'page-view-counter', assetDir, timeoutSeconds: 30, environment });
 * const result = await fn.invoke(sqsEvent);
 * if (!result.ok) console.log(result.error.kind); // 'error' | 'timeout' | 'crash'
 * await fn.stop();
 */
export class LocalFunction {
  public readonly name: string;
  /** Invokes the function; an `Invoker`, so it can be handed to an event source mapping as it is. */
  public readonly invoke: Invoker = (event, options) => this.run(event, options);
  private readonly config: LocalFunctionConfig & Required<Pick<LocalFunctionConfig, keyof typeof LOCAL_FUNCTION_DEFAULTS>>;
  private variables: Readonly<Record<string, string>>;
  private readonly environments = new Set<ExecutionEnvironment>();
  private readonly idle: ExecutionEnvironment[] = [];
  /** Invocations each environment runs now, as Lambda counts them (one that timed out on Managed Instances no longer counts). */
  private readonly load = new Map<ExecutionEnvironment, number>();
  private readonly waiting: Array<() => void> = [];
  private readonly counts: MutableStats = { invocations: 0, coldStarts: 0, errors: 0, timeouts: 0, crashes: 0, initFailures: 0, peakEnvironmentLoad: 0 };
  private generation = 0;
  private stopped = false;

  public constructor(config: LocalFunctionConfig) {
    validate(config);
    this.name = config.name;
    this.config = { ...LOCAL_FUNCTION_DEFAULTS, ...config };
    this.variables = { ...config.environment };
  }

  /** How long an invocation may run before it times out. */
  public get timeoutSeconds(): number {
    return this.config.timeoutSeconds;
  }

  public stats(): LocalFunctionStats {
    return { ...this.counts };
  }

  /** Terminates every execution environment, as if the sandboxes died: calls in flight end as crashes. */
  public async kill(): Promise<void> {
    await this.terminateAll('killed');
  }

  /**
   * Deploys a new configuration: idle environments go at once, busy ones when their invocation
   * ends, and the next calls cold-start with `environment`.
   */
  public async setEnvironment(environment: Readonly<Record<string, string>>): Promise<void> {
    this.variables = { ...environment };
    this.generation += 1;
    const idle = this.idle.splice(0);
    await Promise.all(idle.map((stale) => this.retire(stale, 'recycled')));
    this.wakeAll();
  }

  /** Terminates every environment; later calls fail as crashes without running. */
  public async stop(): Promise<void> {
    this.stopped = true;
    await this.terminateAll('stopped');
  }

  private async run(event: unknown, options: InvokeOptions = {}): Promise<InvokeResult> {
    const environment = await this.acquire();
    if (environment === undefined) return stoppedResult(this.name);
    this.counts.invocations += 1;
    try {
      const result = await environment.invoke(event, this.config.timeoutSeconds * 1000, options.clientContext);
      this.record(result);
      return result;
    } finally {
      this.release(environment);
    }
  }

  /** An idle environment (or, on Managed Instances, one with room), a new one if the concurrency allows, or the next one released. */
  private async acquire(): Promise<ExecutionEnvironment | undefined> {
    while (!this.stopped) {
      const warm = this.takeIdle() ?? this.takeWithRoom();
      if (warm !== undefined) return this.claim(warm);
      if (this.environments.size < this.config.concurrency) return this.claim(this.spawn());
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    return undefined;
  }

  private takeIdle(): ExecutionEnvironment | undefined {
    for (let environment = this.idle.pop(); environment !== undefined; environment = this.idle.pop()) {
      if (this.reusable(environment)) return environment;
      void this.retire(environment, 'stale');
    }
    return undefined;
  }

  /** On Managed Instances: a busy environment of this generation that can take one more invocation at once. */
  private takeWithRoom(): ExecutionEnvironment | undefined {
    for (const [environment, running] of this.load) {
      if (running > 0 && running < environment.capacity && this.reusable(environment)) return environment;
    }
    return undefined;
  }

  /** Counts the invocation on its environment at once, so that no other call can take the same room meanwhile. */
  private claim(environment: ExecutionEnvironment): ExecutionEnvironment {
    const running = (this.load.get(environment) ?? 0) + 1;
    this.load.set(environment, running);
    this.counts.peakEnvironmentLoad = Math.max(this.counts.peakEnvironmentLoad, running);
    return environment;
  }

  private release(environment: ExecutionEnvironment): void {
    const running = (this.load.get(environment) ?? 1) - 1;
    this.load.set(environment, running);
    if (running === 0) {
      if (this.reusable(environment)) this.idle.push(environment);
      else void this.retire(environment, 'recycled');
    }
    this.waiting.shift()?.();
  }

  private reusable(environment: ExecutionEnvironment): boolean {
    return !this.stopped && environment.alive && environment.generation === this.generation;
  }

  private spawn(): ExecutionEnvironment {
    this.counts.coldStarts += 1;
    const config = this.workerConfig();
    const environment = new ExecutionEnvironment({
      config,
      env: lambdaEnvironment({ ...config, credentials: LOCAL_CREDENTIALS, variables: this.variables, maxConcurrency: this.config.perEnvironmentMaxConcurrency }),
      execArgv: workerExecArgv(this.variables),
      output: this.config.output ?? DROP_OUTPUT,
      generation: this.generation,
      threads: this.config.threads,
      maxConcurrency: this.config.perEnvironmentMaxConcurrency,
      onInitFailure: (failure) => this.initFailed(failure),
    });
    this.environments.add(environment);
    return environment;
  }

  private workerConfig(): WorkerConfig {
    const { name, assetDir, handler, memoryMb, region = LOCAL_REGION, accountId = LOCAL_ACCOUNT_ID } = this.config;
    return { functionName: name, assetDir, handler, memoryMb, region, accountId, logGroupName: `/aws/lambda/${name}`, logStreamName: logStreamName() };
  }

  /** As Lambda logs it, then up to whoever runs the function. */
  private initFailed(detail: InitFailureDetail): void {
    this.counts.initFailures += 1;
    const failure: InitFailure = { functionName: this.name, errorType: detail.name, errorMessage: detail.message, stack: detail.stack, at: new Date().toISOString() };
    (this.config.output ?? DROP_OUTPUT)(`${initFailureLogLine(failure)}\n`, { functionName: this.name, stream: 'stderr' });
    this.config.onInitFailure?.(failure);
  }

  private async retire(environment: ExecutionEnvironment, reason: string): Promise<void> {
    this.environments.delete(environment);
    this.load.delete(environment);
    await environment.terminate(reason);
  }

  private async terminateAll(reason: string): Promise<void> {
    const all = [...this.environments];
    this.idle.length = 0;
    await Promise.all(all.map((environment) => this.retire(environment, reason)));
    this.wakeAll();
  }

  private wakeAll(): void {
    for (const wake of this.waiting.splice(0)) wake();
  }

  private record(result: InvokeResult): void {
    if (result.ok) return;
    const counter = ({ error: 'errors', timeout: 'timeouts', crash: 'crashes' } as const)[result.error.kind];
    this.counts[counter] += 1;
  }
}

function stoppedResult(name: string): InvokeResult {
  return { ok: false, error: { kind: 'crash', name: 'LocalFunctionStopped', message: `${name} was stopped` }, durationMs: 0 };
}

function validate(config: LocalFunctionConfig): void {
  if (!config.name) throw new Error('name must not be empty');
  if (!isAbsolute(config.assetDir)) throw new Error(`assetDir must be an absolute path (given ${config.assetDir})`);
  if (!(config.timeoutSeconds > 0 && config.timeoutSeconds <= 900)) throw new Error(`timeoutSeconds must be in (0, 900] (given ${config.timeoutSeconds})`);
  if (config.memoryMb !== undefined) checkInteger('memoryMb', config.memoryMb, 128, 10_240);
  if (config.concurrency !== undefined) checkInteger('concurrency', config.concurrency, 1, 1000);
  if (config.perEnvironmentMaxConcurrency !== undefined) checkInteger('perEnvironmentMaxConcurrency', config.perEnvironmentMaxConcurrency, 1, 1600);
}

function checkInteger(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer ${min}..${max} (given ${value})`);
}
