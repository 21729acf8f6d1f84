/**
 * What the package tests share: copying the repository as a fresh clone would have it, running
 * commands as a person would (each in its own process group, so that a timeout kills all of it),
 * and timing the steps.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/** The repository root. */
export const REPO = path.resolve(__dirname, '..', '..');

const OUTPUT_TAIL_CHARS = 6_000;

/**
 * The environment of every command: this one's, without what would point it elsewhere: the npm
 * variables of the `npm run` that started the tests (an npm child would take the repository for
 * its project), and the machine's AWS and CDK settings (profiles, endpoints, credentials).
 */
export function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const kept = Object.entries(process.env).filter(([name]) => !/^(npm_|INIT_CWD$|AWS_|CDK_)/.test(name) || /^npm_config_(registry|cache|userconfig|https?_proxy|proxy|noproxy)$/.test(name));
  return { ...Object.fromEntries(kept), AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...extra };
}

/** A finished command. */
export interface CommandResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Options of {@link run}. */
export interface RunOptions {
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly env?: NodeJS.ProcessEnv;
  /** Resolve with a non-zero exit too, instead of rejecting. @default false */
  readonly allowFailure?: boolean;
}

/**
 * Runs a command to its end in its own process group; on timeout the whole group is killed.
 * @throws Error with the command, its exit and the tail of its output, when it fails (unless allowed) or times out
 */
export function run(command: string, args: readonly string[], options: RunOptions): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { cwd: options.cwd, env: options.env ?? childEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), options.timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const result = { code, stdout, stderr };
      const line = `${command} ${args.join(' ')} (in ${options.cwd})`;
      if (signal !== null) reject(new Error(`${line} was killed (${signal}) after ${options.timeoutMs} ms:\n${tail(result)}`));
      else if (code !== 0 && options.allowFailure !== true) reject(new Error(`${line} exited ${code}:\n${tail(result)}`));
      else resolve(result);
    });
  });
}

/** The end of a command's output, for an error message. */
export function tail(result: Pick<CommandResult, 'stdout' | 'stderr'>): string {
  return `--- stdout\n${result.stdout.slice(-OUTPUT_TAIL_CHARS)}\n--- stderr\n${result.stderr.slice(-OUTPUT_TAIL_CHARS)}`;
}

/** Sends `signal` to a process group; a group that is gone already is fine. */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/**
 * Every process below `pid`, whatever its group or session (eo's run on the functions' Node.js
 * has a session of its own, and the engines it starts are in it), read from /proc.
 */
export function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = parentOf(Number(entry));
    if (parent !== undefined) parents.set(parent, [...(parents.get(parent) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const walk = (of: number): void => {
    for (const child of parents.get(of) ?? []) {
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

/** A process's parent, from /proc/<pid>/stat (its fourth field, after the name in parentheses); undefined once it is gone. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** Whether a process is still alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether any process of the group is still alive. */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The files a fresh clone of the working tree would hold: what git tracks, and the new files it
 * would track (untracked, not ignored), so that work not yet committed is tested as it will be.
 */
export function checkoutFiles(): string[] {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (listed.status !== 0) throw new Error(`git ls-files failed in ${REPO}: ${listed.stderr}`);
  // A file deleted but not yet staged is still listed; a clone made after the commit would not have it.
  // A node_modules that is a symlink (a worktree sharing another checkout's install) escapes the
  // ignore rule `node_modules/`, which matches folders only; copied, it would let `npm ci` in the
  // copy empty the install it points to. A clone has no node_modules.
  return listed.stdout.split('\0').filter((file) => file !== '' && !/^node_modules(\/|$)/.test(file) && existsSync(path.join(REPO, file)));
}

/** Copies {@link checkoutFiles} into a new folder under the system's temporary directory. @returns the folder */
export function copyCheckout(prefix: string): string {
  const copy = scratchDir(prefix);
  for (const file of checkoutFiles()) {
    mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    cpSync(path.join(REPO, file), path.join(copy, file));
  }
  return copy;
}

const scratch: string[] = [];

/** A new empty folder outside the repository, removed by {@link removeScratch}. */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}

/** Removes every folder {@link scratchDir} made, unless EO_KEEP_PACKAGE_DIRS is set (to look at them after a failure). */
export function removeScratch(): void {
  if (process.env.EO_KEEP_PACKAGE_DIRS) {
    process.stderr.write(`kept: ${scratch.join(' ')}\n`);
    return;
  }
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Times named steps, for the summary a test prints at its end. */
export class StepTimer {
  private readonly steps: [string, number][] = [];
  private readonly started = Date.now();

  /** Runs `step`, recording how long it took under `name`. */
  public async time<T>(name: string, step: () => Promise<T>): Promise<T> {
    const start = Date.now();
    try {
      return await step();
    } finally {
      this.steps.push([name, Date.now() - start]);
    }
  }

  /** One line per step, then the total. */
  public summary(title: string): string {
    const lines = this.steps.map(([name, ms]) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${name}`);
    return `${title}\n${lines.join('\n')}\n  ${((Date.now() - this.started) / 1000).toFixed(1).padStart(6)} s  in all\n`;
  }
}
