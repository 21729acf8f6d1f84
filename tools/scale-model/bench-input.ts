/**
 * The part of the bench's `--json` file (tools/bench/report.ts) that the scale model reads, and a
 * reader that checks every field it uses, so that a file from an older or a partial run fails
 * with the field's name instead of a NaN three tables later.
 */
import { readFileSync } from 'node:fs';

/** The two strategies the model compares. */
export const MODELLED_STRATEGIES = ['batch', 'powertools'] as const;
export type ModelledStrategy = (typeof MODELLED_STRATEGIES)[number];

export interface BenchStrategy {
  readonly name: string;
  readonly eventsPerSecond: number;
  readonly requestsPerEvent: number;
  readonly writeUnitsPerEvent: number;
  readonly readUnitsPerEvent: number;
  /** Requests of one round by SDK command name (`TransactWriteItemsCommand`), for `events` records. */
  readonly requestsByCommand: Readonly<Record<string, number>>;
  readonly clientCpuMicrosPerEvent: number;
  readonly exact: boolean;
}

export interface BenchHotItem {
  readonly strategy: string;
  readonly shards: number;
  readonly consumers: number;
  readonly eventsPerSecond: number;
  readonly conflictsPer1000: number;
  readonly exact: boolean;
  readonly hottestItem: { readonly key: string; readonly writeUnitsPerEvent: number };
}

export interface BenchRun {
  /** Records per round, duplicates included. */
  readonly events: number;
  readonly batchSize: number;
  readonly seed: number;
  readonly rounds: number;
  /** When the run was made, if the file says. */
  readonly date?: string;
  readonly workload: { readonly pages: number; readonly days: number };
  readonly strategies: readonly BenchStrategy[];
  readonly hotItem: readonly BenchHotItem[];
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly node: string; readonly dynamodbLocal?: string };
  readonly durationSeconds?: number;
  /**
   * The run's `powertools` was Powertools' own processor with records in parallel (its `peer` says
   * so). Runs before issue 27 have no `peer`: their peer ran one record at a time.
   */
  readonly peerInParallel: boolean;
  /**
   * The latency DynamoDB's requests waited in `strategies`: `none` on the bare engine (runs before
   * issue 27 have no field), `aws` under the AWS latency profile (`npm run bench -- --latency aws`).
   */
  readonly latencyProfile: { readonly name: string; readonly scale: number };
}

/** A bench file that is missing, is not JSON, or lacks a field the model needs. */
export class BenchInputError extends Error {
  public constructor(
    public readonly file: string,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(`${file}: ${problem}`, options);
    this.name = 'BenchInputError';
  }
}

/**
 * Reads and checks a bench JSON file.
 *
 * @throws BenchInputError naming the file and, for a bad field, its path (`strategies[1].exact`)
 */
export function readBenchRun(file: string): BenchRun {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new BenchInputError(file, missing ? `no such file (write one with \`npm run bench -- --json ${file}\`)` : `cannot be read (${String(error)})`, { cause: error });
  }
  return parseBenchRun(parseJson(text, file), file);
}

function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new BenchInputError(file, `is not JSON (${(error as Error).message})`, { cause: error });
  }
}

/**
 * Checks parsed bench JSON; `file` only names it in errors.
 *
 * @throws BenchInputError naming the first missing or mistyped field
 */
export function parseBenchRun(json: unknown, file: string): BenchRun {
  const read = new FieldReader(file);
  const root = read.object(json, '');
  const run: BenchRun = {
    events: read.positive(root, 'events', ''),
    batchSize: read.positive(root, 'batchSize', ''),
    seed: read.number(root, 'seed', ''),
    rounds: read.positive(root, 'rounds', ''),
    date: read.optionalString(root, 'date', ''),
    workload: workloadOf(read, read.object(root.workload, 'workload')),
    strategies: read.array(root.strategies, 'strategies').map((entry, index) => strategyOf(read, entry, `strategies[${index}]`)),
    hotItem: read.array(root.hotItem, 'hotItem').map((entry, index) => hotItemOf(read, entry, `hotItem[${index}]`)),
    machine: machineOf(read, read.object(root.machine, 'machine')),
    durationSeconds: read.optionalNumber(root, 'durationSeconds', ''),
    peerInParallel: peerInParallel(root.peer),
    latencyProfile: latencyProfileOf(root.latencyProfile),
  };
  for (const name of MODELLED_STRATEGIES) {
    if (!run.strategies.some((strategy) => strategy.name === name)) throw new BenchInputError(file, `strategies has no "${name}" entry (run the bench with --strategies including ${MODELLED_STRATEGIES.join(' and ')})`);
  }
  return run;
}

function peerInParallel(peer: unknown): boolean {
  return typeof peer === 'object' && peer !== null && (peer as { processInParallel?: unknown }).processInParallel === true;
}

/** The run's latency profile; none when the file predates the field. */
function latencyProfileOf(value: unknown): BenchRun['latencyProfile'] {
  const label = typeof value === 'object' && value !== null ? (value as { name?: unknown; scale?: unknown }) : {};
  return typeof label.name === 'string' && typeof label.scale === 'number' ? { name: label.name, scale: label.scale } : { name: 'none', scale: 1 };
}

function workloadOf(read: FieldReader, workload: Json): BenchRun['workload'] {
  return { pages: read.positive(workload, 'pages', 'workload'), days: read.positive(workload, 'days', 'workload') };
}

function strategyOf(read: FieldReader, value: unknown, path: string): BenchStrategy {
  const entry = read.object(value, path);
  return {
    name: read.string(entry, 'name', path),
    eventsPerSecond: read.positive(entry, 'eventsPerSecond', path),
    requestsPerEvent: read.number(entry, 'requestsPerEvent', path),
    writeUnitsPerEvent: read.number(entry, 'writeUnitsPerEvent', path),
    readUnitsPerEvent: read.number(entry, 'readUnitsPerEvent', path),
    requestsByCommand: read.counts(entry, 'requestsByCommand', path),
    clientCpuMicrosPerEvent: read.number(entry, 'clientCpuMicrosPerEvent', path),
    exact: read.boolean(entry, 'exact', path),
  };
}

function hotItemOf(read: FieldReader, value: unknown, path: string): BenchHotItem {
  const entry = read.object(value, path);
  const hottest = read.object(entry.hottestItem, `${path}.hottestItem`);
  return {
    strategy: read.string(entry, 'strategy', path),
    shards: read.positive(entry, 'shards', path),
    consumers: read.positive(entry, 'consumers', path),
    eventsPerSecond: read.positive(entry, 'eventsPerSecond', path),
    conflictsPer1000: read.number(entry, 'conflictsPer1000', path),
    exact: read.boolean(entry, 'exact', path),
    hottestItem: { key: read.string(hottest, 'key', `${path}.hottestItem`), writeUnitsPerEvent: read.positive(hottest, 'writeUnitsPerEvent', `${path}.hottestItem`) },
  };
}

function machineOf(read: FieldReader, machine: Json): BenchRun['machine'] {
  return {
    cpus: read.positive(machine, 'cpus', 'machine'),
    cpuModel: read.string(machine, 'cpuModel', 'machine'),
    node: read.string(machine, 'node', 'machine'),
    dynamodbLocal: read.optionalString(machine, 'dynamodbLocal', 'machine'),
  };
}

type Json = Readonly<Record<string, unknown>>;

/** Typed access to JSON fields that throws a {@link BenchInputError} naming the field's path. */
class FieldReader {
  public constructor(private readonly file: string) {}

  public object(value: unknown, path: string): Json {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Json;
    throw this.wrong(path || 'the top level', value, 'an object');
  }

  public array(value: unknown, path: string): readonly unknown[] {
    if (Array.isArray(value)) return value;
    throw this.wrong(path, value, 'an array');
  }

  public number(parent: Json, key: string, path: string): number {
    const value = parent[key];
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    throw this.wrong(join(path, key), value, 'a number');
  }

  public positive(parent: Json, key: string, path: string): number {
    const value = this.number(parent, key, path);
    if (value > 0) return value;
    throw new BenchInputError(this.file, `${join(path, key)} is ${value}, expected a number above 0`);
  }

  public string(parent: Json, key: string, path: string): string {
    const value = parent[key];
    if (typeof value === 'string') return value;
    throw this.wrong(join(path, key), value, 'a string');
  }

  public boolean(parent: Json, key: string, path: string): boolean {
    const value = parent[key];
    if (typeof value === 'boolean') return value;
    throw this.wrong(join(path, key), value, 'true or false');
  }

  public optionalString(parent: Json, key: string, path: string): string | undefined {
    return parent[key] === undefined ? undefined : this.string(parent, key, path);
  }

  public optionalNumber(parent: Json, key: string, path: string): number | undefined {
    return parent[key] === undefined ? undefined : this.number(parent, key, path);
  }

  /** An object of numbers, such as `requestsByCommand`. */
  public counts(parent: Json, key: string, path: string): Record<string, number> {
    const counts = this.object(parent[key], join(path, key));
    return Object.fromEntries(Object.keys(counts).map((command) => [command, this.number(counts, command, join(path, key))]));
  }

  private wrong(path: string, value: unknown, expected: string): BenchInputError {
    const type = typeof value;
    const found = value === undefined ? 'is missing' : `is ${Array.isArray(value) ? 'an array' : value === null ? 'null' : `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`}`;
    return new BenchInputError(this.file, `${path} ${found}, expected ${expected}`);
  }
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}
