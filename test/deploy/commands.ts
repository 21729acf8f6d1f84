/**
 * The commands the deploy test runs as a user would (`npx cdk ...`, `npx tsx bin/eo.ts ...`,
 * `aws ...`), all pointed at moto and at nothing else.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import * as path from 'node:path';
import type { Readable } from 'node:stream';

/** The repository root: where `npx cdk` finds cdk.json. */
export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');

/** moto's default account; STS on moto answers with it. */
export const ACCOUNT = '123456789012';
export const REGION = 'us-east-1';
export const CREDENTIALS = { accessKeyId: 'testing', secretAccessKey: 'testing' } as const;

/**
 * A Docker host that cannot exist. moto runs a mapping's function in Docker when a message or
 * record reaches its source, pulling an image from the network first; without a Docker host each
 * such invocation fails at once ("error running docker" in moto's log). moto's stub Lambda
 * (`use_docker: false`) is no way out: its API does not see the functions CloudFormation created.
 * The CDK would bundle in Docker only without esbuild, which is a devDependency.
 */
export const NO_DOCKER_HOST = 'unix:///nonexistent/eo-deploy-test/docker.sock';

const OUTPUT_TAIL_CHARS = 4_000;

/** Where moto listens and where the test keeps its files. */
export interface Target {
  readonly port: number;
  /** A scratch directory of this run. */
  readonly workDir: string;
}

/**
 * `http://localhost:<port>`: moto reads a CloudFormation `TemplateURL` path-style only when its
 * host says `localhost`.
 */
export function motoEndpoint(target: Target): string {
  return `http://localhost:${target.port}`;
}

/**
 * The environment of every command: fake credentials, one region, every AWS endpoint on moto.
 * The caller's AWS and CDK variables are dropped, so no profile, SSO session or endpoint of the
 * machine leaks in. S3 gets the IP form: the CDK's S3 client goes path-style only for an IP
 * endpoint, and moto's S3 understands nothing else.
 */
export function motoEnv(target: Target): NodeJS.ProcessEnv {
  const inherited = Object.entries(process.env).filter(([name]) => !/^(AWS|CDK)_/.test(name));
  return {
    ...Object.fromEntries(inherited),
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    AWS_REGION: REGION,
    AWS_DEFAULT_REGION: REGION,
    AWS_ENDPOINT_URL: motoEndpoint(target),
    AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${target.port}`,
    AWS_CONFIG_FILE: path.join(target.workDir, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: path.join(target.workDir, 'no-aws-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    DOCKER_HOST: NO_DOCKER_HOST,
    CDK_DEFAULT_ACCOUNT: ACCOUNT,
    CDK_DEFAULT_REGION: REGION,
    CDK_DISABLE_VERSION_CHECK: 'true',
    CDK_DISABLE_CLI_TELEMETRY: 'true',
    // npx runs the local aws-cdk and tsx; offline, it cannot reach the registry even to check for updates.
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
  };
}

export interface CommandResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

export interface RunOptions {
  /** What the test was doing, for the error message: "cdk deploy". */
  readonly step: string;
  readonly env: NodeJS.ProcessEnv;
  readonly timeoutMs: number;
  /** The exit code that means the command did what the test expects. @default 0 */
  readonly exitCode?: number;
}

/**
 * Runs a command from the repository root and resolves with its output once it exits with 0 (or
 * the `exitCode` expected).
 *
 * @throws Error naming the step, the exit code or the timeout, and the end of the output
 */
export async function run(command: string, args: readonly string[], options: RunOptions): Promise<CommandResult> {
  const started = Date.now();
  const { code, stdout, stderr, timedOut } = await spawnAndWait(command, args, options);
  const ms = Date.now() - started;
  if (code === (options.exitCode ?? 0)) return { stdout, stderr, ms };
  const how = timedOut ? `did not finish within ${options.timeoutMs / 1000} s` : `exited with ${code}`;
  throw new Error(`${options.step} (${command} ${args.join(' ')}) ${how} after ${Math.round(ms / 1000)} s\n--- stderr (end) ---\n${stderr.slice(-OUTPUT_TAIL_CHARS)}\n--- stdout (end) ---\n${stdout.slice(-OUTPUT_TAIL_CHARS)}`);
}

interface Outcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

/** Process groups of the commands running now: stopped if the test process exits first. */
const running = new Set<number>();
process.once('exit', () => running.forEach(killGroup));

function killGroup(pid: number | undefined): void {
  // No pid means the spawn failed: there is no group of ours to signal.
  if (pid === undefined || pid <= 0) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Its own process group, so that a timeout stops `npx` and whatever it started. */
function spawnAndWait(command: string, args: readonly string[], options: RunOptions): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: PROJECT_ROOT, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const pid = child.pid;
    if (pid !== undefined) running.add(pid);
    const output = collect(child);
    let timedOut = false;
    const timer = setTimeout(() => ((timedOut = true), killGroup(pid)), options.timeoutMs);
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new Error(`${options.step}: could not run ${command}${error.code === 'ENOENT' ? ': it is not on PATH' : `: ${error.message}`}`, { cause: error }));
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (pid !== undefined) running.delete(pid);
      resolve({ code, ...output, timedOut });
    });
  });
}

function collect(child: ChildProcessByStdio<null, Readable, Readable>): { stdout: string; stderr: string } {
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString('utf8')));
  return output;
}

/** Parses a command's JSON output, or says which step printed something else. */
export function parseJson<T>(step: string, text: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new Error(`${step} printed no JSON on stdout: ${text.slice(0, OUTPUT_TAIL_CHARS)}`, { cause: error });
  }
}
