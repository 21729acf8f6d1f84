/**
 * `npm run eo` and `npm run demo` start engines and write state that they remove on Ctrl-C. They
 * must run the CLI in one process: tsx's own CLI runs the script as its child, relays a signal to
 * it, and SIGKILLs it when the child has not acknowledged the signal within 30 ms twice, which a
 * busy event loop cannot do, so the cleanup never ran on a loaded machine (a CI run left
 * `eo local up`'s state files behind). The fixture stands in for a busy `eo local up`; the test
 * signals its whole process group as a terminal's Ctrl-C does.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '..', '..', '..');
const FIXTURE = path.join(__dirname, 'fixtures', 'busy-until-terminated.ts');
const LONG_RUNNING_SCRIPTS = ['eo', 'demo', 'bench'];
/** How long the process may take to clean up after SIGTERM with its event loop this busy. */
const CLEANUP_MS = 5_000;

jest.setTimeout(30_000);

let scratch: string;
beforeEach(() => (scratch = mkdtempSync(path.join(tmpdir(), 'script-signals-'))));
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

/** The command a script runs its entry with: everything before the entry's path. */
function runnerOf(script: string): string[] {
  const scripts = (JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const words = scripts[script].split(/\s+/);
  const entry = words.findIndex((word) => word.endsWith('.ts'));
  if (entry < 1) throw new Error(`npm script ${script} (${scripts[script]}) runs no TypeScript entry`);
  return words.slice(0, entry);
}

/** Starts `runner fixture marker` in its own process group; resolves once the fixture is running. */
async function startInGroup(runner: string[], marker: string): Promise<number> {
  const [command, ...args] = runner;
  const child = spawn(command === 'node' ? process.execPath : command, [...args, FIXTURE, marker], { cwd: REPO, detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString('utf8').includes('ready') && resolve());
    child.once('exit', (code, signal) => reject(new Error(`${runner.join(' ')} exited (${code ?? signal}) before the fixture was ready`)));
  });
  return child.pid!;
}

async function groupGone(pgid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return true;
    }
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test.each(LONG_RUNNING_SCRIPTS)('npm run %s lets a busy CLI clean up when its process group is terminated', async (script) => {
  const marker = path.join(scratch, 'cleaned');
  const pgid = await startInGroup(runnerOf(script), marker);
  try {
    process.kill(-pgid, 'SIGTERM');
    expect(await groupGone(pgid, CLEANUP_MS)).toBe(true);
  } finally {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  expect(existsSync(marker)).toBe(true);
});
