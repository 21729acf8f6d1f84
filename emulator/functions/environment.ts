import { randomBytes } from 'node:crypto';

/** What `lambdaEnvironment` needs to know about the function. */
export interface EnvironmentSource {
  readonly functionName: string;
  readonly assetDir: string;
  readonly handler: string;
  readonly memoryMb: number;
  readonly region: string;
  readonly logGroupName: string;
  readonly logStreamName: string;
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** The function's own variables, as the template resolves them. */
  readonly variables: Readonly<Record<string, string>>;
  /** On Lambda Managed Instances, the invocations an environment runs at once: Lambda sets `AWS_LAMBDA_MAX_CONCURRENCY` to it. */
  readonly maxConcurrency?: number;
}

/**
 * Node options that a worker thread accepts and that Lambda honours in `NODE_OPTIONS`. The CDK's
 * Node.js functions set `--enable-source-maps`; per-process options would make `new Worker` throw.
 */
export const WORKER_NODE_OPTIONS: ReadonlySet<string> = new Set(['--enable-source-maps']);

/** `<yyyy>/<mm>/<dd>/[$LATEST]<32 hex>`: Lambda's log stream name, one per execution environment. */
export function logStreamName(now = new Date()): string {
  const day = now.toISOString().slice(0, 10).replace(/-/g, '/');
  return `${day}/[$LATEST]${randomBytes(16).toString('hex')}`;
}

/**
 * The environment of one execution environment: Lambda's defined runtime variables, then the
 * function's own. Nothing else of the host leaks in but `PATH`, so a handler sees what it would see
 * on Lambda. The function's variables come last: on AWS they cannot override reserved names, but
 * local mode may need to (e.g. credentials for the emulators).
 */
export function lambdaEnvironment(source: EnvironmentSource): Record<string, string> {
  return {
    ...(process.env.PATH !== undefined && { PATH: process.env.PATH }),
    LANG: 'en_US.UTF-8',
    _HANDLER: source.handler,
    LAMBDA_TASK_ROOT: source.assetDir,
    AWS_EXECUTION_ENV: `AWS_Lambda_nodejs${process.versions.node.split('.')[0]}.x`,
    AWS_REGION: source.region,
    AWS_DEFAULT_REGION: source.region,
    AWS_LAMBDA_FUNCTION_NAME: source.functionName,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(source.memoryMb),
    // An unqualified invoke of a function on Managed Instances runs its $LATEST.PUBLISHED version.
    AWS_LAMBDA_FUNCTION_VERSION: source.maxConcurrency === undefined ? '$LATEST' : '$LATEST.PUBLISHED',
    AWS_LAMBDA_INITIALIZATION_TYPE: source.maxConcurrency === undefined ? 'on-demand' : 'lambda-managed-instances',
    AWS_LAMBDA_LOG_GROUP_NAME: source.logGroupName,
    AWS_LAMBDA_LOG_STREAM_NAME: source.logStreamName,
    AWS_ACCESS_KEY_ID: source.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: source.credentials.secretAccessKey,
    ...(source.maxConcurrency !== undefined && { AWS_LAMBDA_MAX_CONCURRENCY: String(source.maxConcurrency) }),
    ...source.variables,
  };
}

/** The worker's `execArgv`: the options of `NODE_OPTIONS` that a worker accepts, the rest dropped. */
export function workerExecArgv(variables: Readonly<Record<string, string>>): string[] {
  const options = (variables.NODE_OPTIONS ?? '').split(/\s+/);
  return options.filter((option) => WORKER_NODE_OPTIONS.has(option));
}
