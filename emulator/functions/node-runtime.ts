/**
 * The Node.js binary of a Lambda runtime's major (`nodejs24.x`: Node.js 24), whatever Node.js runs
 * the tools: the host's own when its major matches; else the binary named by `EO_NODE_<major>`;
 * else the pinned release below, fetched once from the npm registry into a cache
 * (./node-download.ts). Local mode runs the functions on it (./runtime-threads.ts), and `npm run
 * test:lambda-node` the runtime's tests.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';
import { downloadNodeRelease } from './node-download';

/**
 * The Node.js release that local mode runs for each Lambda Node.js runtime it supports. Lambda
 * patches its runtimes itself and does not publish the exact version it runs; these are the newest
 * releases of each major on the npm registry when they were pinned (2026-12-02; 26 on 2026-12-08,
 * for the newest aws-cdk-lib, which knows nodejs26.x). Raise them here.
 */
export const LAMBDA_NODE_RELEASES: Readonly<Record<number, string>> = { 20: '20.20.2', 22: '22.23.5', 24: '24.22.3', 26: '26.12.1' };

/** The variable that names a binary for one major instead of the cache, e.g. `EO_NODE_24=/usr/local/bin/node`. */
export function nodeBinaryVariable(major: number): string {
  return `EO_NODE_${major}`;
}

/** The binary a function runs on, and where it came from. */
export interface NodeBinary {
  readonly path: string;
  /** Without the `v`, e.g. `24.22.3`. */
  readonly version: string;
  readonly source: 'host' | 'variable' | 'cache' | 'download';
}

/** Where and how binaries are found; the defaults are the process's. */
export interface NodeBinaryOptions {
  /** @default EO_NODE_CACHE, else $XDG_CACHE_HOME/effectively-once/node, else ~/.cache/effectively-once/node */
  readonly cacheDir?: string;
  /** @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** @default process.execPath and process.versions.node */
  readonly host?: { readonly path: string; readonly version: string };
  /** Told before a release is downloaded, e.g. to print a progress line. */
  readonly onDownload?: (version: string) => void;
}

/**
 * The major of a Lambda Node.js runtime identifier.
 *
 * @throws Error for a runtime that is not Node.js, or a Node.js major local mode has no release for
 */
export function nodeMajorOf(runtime: string): number {
  const match = /^nodejs(\d+)\.x$/.exec(runtime);
  if (match === null) throw new Error(`local mode runs Node.js functions only: runtime ${JSON.stringify(runtime)} is not nodejs<major>.x`);
  const major = Number(match[1]);
  if (LAMBDA_NODE_RELEASES[major] === undefined) {
    throw new Error(`local mode has no Node.js release for ${runtime} (it knows ${knownRuntimes()}); add one to LAMBDA_NODE_RELEASES in emulator/functions/node-runtime.ts`);
  }
  return major;
}

const resolved = new Map<string, Promise<NodeBinary>>();

/**
 * The binary for `runtime`, downloaded on first use; one lookup per runtime, cache and host binary per process.
 *
 * @throws Error naming the runtime and what to do when no binary can be found or fetched
 */
export function nodeBinaryFor(runtime: string, options: NodeBinaryOptions = {}): Promise<NodeBinary> {
  const cacheDir = options.cacheDir ?? defaultCacheDir(options.env ?? process.env);
  const host = options.host ?? { path: process.execPath, version: process.versions.node };
  const key = `${runtime}\0${cacheDir}\0${host.path}\0${host.version}`;
  let binary = resolved.get(key);
  if (binary === undefined) {
    binary = findBinary(nodeMajorOf(runtime), cacheDir, { ...options, host });
    binary.catch(() => resolved.delete(key));
    resolved.set(key, binary);
  }
  return binary;
}

async function findBinary(major: number, cacheDir: string, options: NodeBinaryOptions): Promise<NodeBinary> {
  const host = options.host ?? { path: process.execPath, version: process.versions.node };
  if (majorOf(host.version) === major) return { path: host.path, version: host.version, source: 'host' };
  const named = (options.env ?? process.env)[nodeBinaryVariable(major)];
  if (named !== undefined && named !== '') return { path: named, version: checkedVersion(named, major, nodeBinaryVariable(major)), source: 'variable' };
  const version = LAMBDA_NODE_RELEASES[major] as string;
  const cached = cachedBinaryPath(cacheDir, version);
  if (existsSync(cached)) return { path: cached, version: checkedVersion(cached, major, 'the cache'), source: 'cache' };
  options.onDownload?.(version);
  try {
    await downloadNodeRelease(version, cacheDir);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`could not fetch Node.js ${version} for nodejs${major}.x functions (${reason}); install Node.js ${major} and set ${nodeBinaryVariable(major)} to its binary`, { cause: error });
  }
  return { path: cached, version: checkedVersion(cached, major, 'the download'), source: 'download' };
}

/** Where a binary came from, in words: "the tools' own", "EO_NODE_24", "cached in <dir>", "fetched into <dir>". */
export function nodeSourceText(node: NodeBinary): string {
  if (node.source === 'host') return "the tools' own";
  if (node.source === 'variable') return `${nodeBinaryVariable(majorOf(node.version))}: ${node.path}`;
  return `${node.source === 'cache' ? 'cached' : 'fetched'}: ${node.path}`;
}

/** `<cacheDir>/node-v<version>-<platform>-<arch>/bin/node`. */
export function cachedBinaryPath(cacheDir: string, version: string): string {
  return path.join(cacheDir, `node-v${version}-${process.platform}-${process.arch}`, 'bin', 'node');
}

function defaultCacheDir(env: Readonly<Record<string, string | undefined>>): string {
  if (env.EO_NODE_CACHE) return env.EO_NODE_CACHE;
  return path.join(env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'effectively-once', 'node');
}

/** Runs `<binary> --version` and checks its major. @throws Error naming where the binary came from */
function checkedVersion(binary: string, major: number, from: string): string {
  const run = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  const version = (run.stdout ?? '').trim().replace(/^v/, '');
  if (run.status !== 0 || !/^\d+\.\d+\.\d+/.test(version)) throw new Error(`${binary} (from ${from}) does not run as Node.js: ${run.error?.message ?? (run.stderr || `exit ${run.status}`)}`);
  if (majorOf(version) !== major) throw new Error(`${binary} (from ${from}) is Node.js ${version}, not ${major}`);
  return version;
}

function majorOf(version: string): number {
  return Number(version.replace(/^v/, '').split('.')[0]);
}

function knownRuntimes(): string {
  return Object.keys(LAMBDA_NODE_RELEASES).map((major) => `nodejs${major}.x`).join(', ');
}
