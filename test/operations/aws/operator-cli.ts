/**
 * Runs `eo` as an operator's install would: in its own process, through bin/eo.ts, with every
 * devDependency unresolvable from the project's files (a `Module._resolveFilename` hook, loaded
 * before anything else). `tsx`, which runs the TypeScript today, is the one exception.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const RUNNER = 'tsx';

/** CommonJS, written to a temporary file: Node loads it with `--require` before tsx. */
const BLOCKER = `
const Module = require('node:module');
const path = require('node:path');
const root = process.env.EO_BLOCK_ROOT + path.sep;
const blocked = new Set(JSON.parse(process.env.EO_BLOCKED_PACKAGES));
const packageOf = (request) => request.split('/').slice(0, request.startsWith('@') ? 2 : 1).join('/');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  const from = parent && parent.filename;
  if (from && from.startsWith(root) && !from.includes(path.sep + 'node_modules' + path.sep) && blocked.has(packageOf(request))) {
    const error = new Error(request + ' is a devDependency, required by ' + path.relative(root, from) + ': an operator install (npm ci --omit=dev) does not have it');
    error.code = 'MODULE_NOT_FOUND';
    throw error;
  }
  return resolve.call(this, request, parent, ...rest);
};
`;

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

let blockerFile: string | undefined;

function blocker(): string {
  blockerFile ??= path.join(mkdtempSync(path.join(tmpdir(), 'eo-operator-')), 'block-dev-dependencies.cjs');
  writeFileSync(blockerFile, BLOCKER);
  return blockerFile;
}

/** The devDependencies, but the runner. */
export function blockedPackages(): string[] {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> };
  return Object.keys(manifest.devDependencies ?? {}).filter((name) => name !== RUNNER);
}

/**
 * `eo <args>` with `env` added to a clean environment (PATH and HOME kept, no AWS_* inherited).
 *
 * @param blocked - packages that must not resolve. @default every devDependency but tsx
 */
export function runEo(args: readonly string[], env: Readonly<Record<string, string>>, blocked: readonly string[] = blockedPackages()): Promise<CliRun> {
  const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), AWS_CONFIG_FILE: '/dev/null', AWS_SHARED_CREDENTIALS_FILE: '/dev/null' };
  const childEnv = { ...base, ...env, EO_BLOCK_ROOT: ROOT, EO_BLOCKED_PACKAGES: JSON.stringify(blocked) };
  const child = spawn(process.execPath, ['--require', blocker(), '--import', RUNNER, path.join(ROOT, 'bin', 'eo.ts'), ...args], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

/** A run's output, for an assertion's message. */
export function describeRun(run: CliRun): string {
  return `exit ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
}
