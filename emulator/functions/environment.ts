import { randomBytes } from 'node:crypto';

/** What `lambdaEnvironment` needs to know about the function. */
export interface EnvironmentSource {
  readonly functionName: string;
  readonly assetDir: string;
  readonly handler: string;
  /** Lambda's runtime identifier, e.g. `nodejs24.x`. */
  readonly runtime: string;
  readonly memoryMb: number;
  readonly region: string;
  readonly logGroupName: string;
  readonly logStreamName: string;
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** The function's own variables, as the template resolves them. */
  readonly variables: Readonly<Record<string, string>>;
}

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
    AWS_EXECUTION_ENV: `AWS_Lambda_${source.runtime}`,
    AWS_REGION: source.region,
    AWS_DEFAULT_REGION: source.region,
    AWS_LAMBDA_FUNCTION_NAME: source.functionName,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(source.memoryMb),
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_LAMBDA_LOG_GROUP_NAME: source.logGroupName,
    AWS_LAMBDA_LOG_STREAM_NAME: source.logStreamName,
    AWS_ACCESS_KEY_ID: source.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: source.credentials.secretAccessKey,
    ...source.variables,
  };
}
