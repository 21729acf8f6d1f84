/**
 * `npx eo local up` running as a child in its own process group, as a person runs it in a
 * terminal: wait for its banner, read what it printed, stop it with Ctrl-C's signal, and make
 * sure that nothing of it (engines included) outlives the stop.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { alive, childEnv, descendants, groupAlive, killGroup, tail } from './support';

const BANNER_END = 'Press Ctrl-C to stop.';
const STOP_TIMEOUT_MS = 30_000;

/** What the banner tells a person: where the engines listen, the `export` line, the stack's outputs. */
export interface PrintedStack {
  readonly endpoints: { readonly dynamodb: string; readonly sqs: string; readonly kinesis: string };
  /** The variables of the printed `export` line. */
  readonly env: Readonly<Record<string, string>>;
  /** The outputs table. */
  readonly outputs: Readonly<Record<string, string>>;
  /** The functions line: each runtime and the Node.js its functions run on, e.g. `nodejs24.x on Node.js 24.22.3`. */
  readonly functions: string;
}

/** Reads a banner. @throws Error naming the line it could not find */
export function parseBanner(text: string): PrintedStack {
  const endpoint = (label: string) => match(text, new RegExp(`^\\s+${label}\\s+(http://\\S+)$`, 'm'), label);
  const exportLine = match(text, /^export (.+)$/m, 'the export line');
  const env = Object.fromEntries(exportLine.split(' ').map((pair) => pair.split('=', 2) as [string, string]));
  const outputRows = [...text.matchAll(/^\| (\S+)\s+\| (\S+)\s+\|$/gm)].map(([, name, value]) => [name, value] as const);
  return {
    endpoints: { dynamodb: endpoint('DynamoDB and DynamoDB Streams'), sqs: endpoint('SQS and SNS \\(fauxqs\\)'), kinesis: endpoint('Kinesis \\(kinesalite\\)') },
    env,
    outputs: Object.fromEntries(outputRows.filter(([name]) => name !== 'output')),
    functions: match(text, /^Functions: (.+)\.$/m, 'the functions line'),
  };
}

function match(text: string, pattern: RegExp, what: string): string {
  const found = pattern.exec(text)?.[1];
  if (found === undefined) throw new Error(`the banner has no ${what}:\n${text}`);
  return found;
}

/** `eo local up`, by default `npx eo local up` in a folder. */
export class LocalUp {
  private readonly child: ChildProcessByStdio<null, Readable, Readable>;
  private stdout = '';
  private stderr = '';

  /**
   * @param cwd where it runs
   * @param args what follows `eo local up --quiet`
   * @param eo the command that runs `eo` @default - `npx --no-install eo`, the bin of the package installed in `cwd`
   */
  public constructor(cwd: string, args: readonly string[] = [], eo: readonly string[] = ['npx', '--no-install', 'eo']) {
    const [command = 'npx', ...leading] = eo;
    this.child = spawn(command, [...leading, 'local', 'up', '--quiet', ...args], { cwd, env: childEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (chunk: Buffer) => (this.stdout += chunk.toString('utf8')));
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
  }

  /** The banner, once printed. @throws Error when the command exits or takes longer than `timeoutMs` first */
  public async banner(timeoutMs: number): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (!this.stdout.includes(BANNER_END)) {
      if (this.exited()) throw new Error(`eo local up exited (${this.child.exitCode ?? this.child.signalCode}) before its banner:\n${this.output()}`);
      if (Date.now() > deadline) throw new Error(`no banner from eo local up after ${timeoutMs} ms:\n${this.output()}`);
      await sleep(250);
    }
    return this.stdout;
  }

  /** What it printed so far, for an error message. */
  public output(): string {
    return tail({ stdout: this.stdout, stderr: this.stderr });
  }

  /**
   * Ctrl-C (SIGINT to the whole group, as a terminal sends it), then waits until every process
   * of the group and every process it had started (eo's run on the functions' Node.js and its
   * engines are in a session of their own) is gone; SIGKILL for what is left after the timeout.
   * @returns whether they all ended by themselves
   */
  public async stop(): Promise<boolean> {
    const pid = this.child.pid;
    if (pid === undefined || !groupAlive(pid)) return true;
    const started = descendants(pid);
    const running = () => groupAlive(pid) || started.some(alive);
    killGroup(pid, 'SIGINT');
    const deadline = Date.now() + STOP_TIMEOUT_MS;
    while (running() && Date.now() < deadline) await sleep(200);
    const clean = !running();
    if (!clean) {
      killGroup(pid, 'SIGKILL');
      for (const leftover of started.filter(alive)) process.kill(leftover, 'SIGKILL');
    }
    return clean;
  }

  private exited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }
}
