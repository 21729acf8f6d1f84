/**
 * `eo local up` and `eo demo` run again on the Node.js major that the stack's functions name, when
 * the tools run on another: the functions are then worker threads of that one process, each on its
 * runtime's Node.js as on Lambda, with no process between the mappings and the functions. A runtime
 * host (../functions/runtime-host.ts) gives the same Node.js from a second process, but under CPU
 * contention it was up to 2.8 times slower (docs/local-mode.md, "Node.js as Lambda runs it"); it
 * still serves the functions of a stack whose runtimes differ from the one the tools run on.
 *
 * The run on the runtime's binary gets this process's Node.js flags and arguments (tsx's loader
 * flags included), its standard streams, and its own session (`detached`), so that a Ctrl-C reaches
 * it once, forwarded from here; if this process dies without forwarding, the run sees its channel
 * close and stops as on SIGTERM.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { nodeBinaryFor, nodeMajorOf, nodeSourceText } from '../functions';
import type { Template } from '../../aws/cloudformation/template';
import { functionRuntimes, functionsNodeOf } from '../stack/functions';

/** Set in the run on the runtime's Node.js (to its version), so that it never relaunches again. */
export const RELAUNCHED_VARIABLE = 'EO_RELAUNCHED_ON';

/** The signals a user or a supervisor stops `eo local up` or the demo with. */
const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export interface RelaunchOptions {
  /** The `Runtime` of every function of the stack, e.g. `['nodejs24.x', 'nodejs24.x']`. */
  readonly runtimes: readonly string[];
  /** Told what happens: a fetch of the binary, the relaunch. @default - nothing */
  readonly onPhase?: (phase: string) => void;
  /** @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The command line to run again, after the binary. @default process.execArgv, then process.argv without its binary */
  readonly args?: readonly string[];
}

/**
 * The runtime most of the functions name; on a tie, the newest major. Undefined for a stack with no function.
 * @throws Error for a runtime that is not one of local mode's Node.js runtimes
 */
export function prevailingRuntime(runtimes: readonly string[]): string | undefined {
  const counts = new Map<string, { count: number; major: number }>();
  for (const runtime of runtimes) counts.set(runtime, { count: (counts.get(runtime)?.count ?? 0) + 1, major: nodeMajorOf(runtime) });
  const ranked = [...counts].sort(([, a], [, b]) => b.count - a.count || b.major - a.major);
  return ranked[0]?.[0];
}

/**
 * Runs this command again on the Node.js of the runtime most of the stack's functions name, unless
 * this process already runs that major, `EO_FUNCTIONS_NODE` is `tools`, or this is that run.
 *
 * @returns the exit code of that run (128 plus the signal's number when a signal ended it), or
 *   undefined when this process should run the command itself
 * @throws Error naming the runtime when no binary of its major can be found or fetched
 */
export async function relaunchOnRuntimeNode(options: RelaunchOptions): Promise<number | undefined> {
  const env = options.env ?? process.env;
  if (env[RELAUNCHED_VARIABLE] !== undefined) {
    // The channel is this process's own only when its own environment says it was relaunched.
    if (process.env[RELAUNCHED_VARIABLE] !== undefined) stopWhenLauncherGoes();
    return undefined;
  }
  const runtime = prevailingRuntime(options.runtimes);
  if (runtime === undefined || functionsNodeOf(env) === 'tools') return undefined;
  const node = await nodeBinaryFor(runtime, { env, onDownload: (version) => options.onPhase?.(`fetching Node.js ${version} for ${runtime} from the npm registry (once per machine)`) });
  if (node.source === 'host') return undefined;
  options.onPhase?.(`the stack's functions run on ${runtime}: eo runs again on Node.js ${node.version} (${nodeSourceText(node)}); EO_FUNCTIONS_NODE=tools keeps them on this Node.js ${process.versions.node}`);
  const args = options.args ?? [...process.execArgv, ...process.argv.slice(1)];
  return runToExit(node.path, args, { ...env, [RELAUNCHED_VARIABLE]: node.version });
}

/** Runs `file` in its own session, forwarding the stop signals this process gets, until it exits. */
function runToExit(file: string, args: readonly string[], env: Readonly<Record<string, string | undefined>>): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['inherit', 'inherit', 'inherit', 'ipc'], detached: true, env });
    const forward = (signal: NodeJS.Signals): void => {
      child.kill(signal);
    };
    for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
    const settle = (): void => {
      for (const signal of FORWARDED_SIGNALS) process.off(signal, forward);
    };
    child.once('error', (error) => {
      settle();
      reject(new Error(`could not run ${file}: ${error.message}`, { cause: error }));
    });
    child.once('exit', (code, signal) => {
      settle();
      resolve(code ?? 128 + (signal === null ? 0 : constants.signals[signal]));
    });
  });
}

/**
 * In the relaunched run: its launcher's channel is no reason to stay alive, and its closing (the
 * launcher killed without a chance to forward a signal) stops this run as SIGTERM would.
 */
function stopWhenLauncherGoes(): void {
  if (process.channel === undefined) return;
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}

/**
 * What `eo local up` and the demo do once they have synthesized: relaunch for the stack's
 * functions when {@link relaunchOnRuntimeNode} says so. True when that run has ended and its exit
 * code is this process's (`process.exitCode`): the caller stops. False when the caller runs here.
 */
export async function ranOnRuntimeNode(template: Template, onPhase: (phase: string) => void): Promise<boolean> {
  const relaunched = await relaunchOnRuntimeNode({ runtimes: functionRuntimes(template), onPhase });
  if (relaunched === undefined) return false;
  process.exitCode = relaunched;
  return true;
}
