/**
 * What crash-points.test.ts needs around a crashing handler: the fixture bundled as the CDK
 * bundles a function, run in a LocalFunction (one process per execution environment, on the runtime's Node.js), and
 * an invoker for an event source mapping that photographs the engines the moment a crash is seen.
 */
import { ScanCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { endpointEnv } from '../../../emulator/engines';
import { LocalFunction, type LocalFunctionStats } from '../../../emulator/functions';
import type { InvokeResult, Invoker } from '../../../emulator/types';
import { testEndpoints } from '../../helpers/engines';
import { pollUntil } from '../../helpers/poll';
import type { CrashPlan, CrashReport } from './fixtures/crash-switch';

const REPO_NODE_MODULES = resolve(__dirname, '../../../node_modules');
const temporary: string[] = [];

/**
 * Bundles a fixture into a fresh asset directory as the CDK's NodejsFunction would: one CommonJS
 * `index.js`, `@aws-sdk/*` external (resolved through a `node_modules` link to the repository's).
 */
export async function bundleFixture(fixture: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'eo-crash-'));
  temporary.push(dir);
  await build({ entryPoints: [join(__dirname, 'fixtures', fixture)], outfile: join(dir, 'index.js'), bundle: true, platform: 'node', format: 'cjs', target: 'node20', external: ['@aws-sdk/*'], logLevel: 'silent' });
  await symlink(REPO_NODE_MODULES, join(dir, 'node_modules'), 'dir');
  return dir;
}

/** Deletes the bundles and marker files. */
export async function removeTemporaryFiles(): Promise<void> {
  await Promise.all(temporary.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** A crash point: which command, before it is sent or after its nth success in one invocation. */
export type CrashPoint = Omit<CrashPlan, 'marker'>;

export interface CrashingFunctionOptions {
  readonly name: string;
  readonly assetDir: string;
  readonly point: CrashPoint;
  /** The function's own variables (tables, queues); the engines' endpoints are added. */
  readonly variables: Readonly<Record<string, string>>;
}

/** A LocalFunction whose handler kills its execution environment once, at the crash point. */
export class CrashingFunction {
  private readonly fn: LocalFunction;
  private readonly marker: string;
  private readonly output: string[] = [];
  private environment: Record<string, string>;

  private constructor(options: CrashingFunctionOptions, markerDir: string) {
    this.marker = join(markerDir, 'crashed.json');
    const { command, when, nth } = options.point;
    this.environment = {
      ...endpointEnv(testEndpoints()),
      ...options.variables,
      CRASH_COMMAND: command,
      CRASH_WHEN: when,
      CRASH_NTH: String(nth),
      CRASH_MARKER: this.marker,
      POWERTOOLS_METRICS_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: 'WARN',
    };
    this.fn = new LocalFunction({ name: options.name, assetDir: options.assetDir, timeoutSeconds: 10, environment: this.environment, output: (chunk) => this.output.push(chunk) });
  }

  /** Starts the function and takes its cold start, so the first batch is not held up by loading the bundle. */
  public static async start(options: CrashingFunctionOptions): Promise<CrashingFunction> {
    const markerDir = await mkdtemp(join(tmpdir(), 'eo-crash-marker-'));
    temporary.push(markerDir);
    const crashing = new CrashingFunction(options, markerDir);
    const warm = await crashing.fn.invoke({ Records: [] });
    if (!warm.ok) throw new Error(`the function did not start: ${warm.error.name}: ${warm.error.message}\n${crashing.output.join('')}`);
    return crashing;
  }

  /**
   * An invoker for a mapping. When an invocation crashes, `snapshot` runs before the mapping sees
   * the result: with one poller (or one batch in flight per shard) nothing is redelivered
   * meanwhile, so the snapshot is the engines' state as the crash left it.
   */
  public invoker<T>(snapshot: () => Promise<T>): { readonly invoke: Invoker; readonly crashed: () => { result: InvokeResult; state: T } | undefined } {
    let crashed: { result: InvokeResult; state: T } | undefined;
    const invoke: Invoker = async (event) => {
      const result = await this.fn.invoke(event);
      if (!result.ok && result.error.kind === 'crash' && crashed === undefined) crashed = { result, state: await snapshot() };
      return result;
    };
    return { invoke, crashed: () => crashed };
  }

  /** Resolves with the marker once the environment has died. */
  public async crashReport(): Promise<CrashReport> {
    try {
      await pollUntil(async () => (existsSync(this.marker) ? true : undefined), `the crash at ${this.environment.CRASH_COMMAND}`, { timeoutMs: 20_000 });
    } catch (error) {
      throw new Error(`${(error as Error).message}; the function wrote:\n${this.output.join('')}`, { cause: error });
    }
    return JSON.parse(await readFile(this.marker, 'utf8')) as CrashReport;
  }

  /** Deploys new variables (a fix): the next invocation cold-starts with them. */
  public async deploy(variables: Readonly<Record<string, string>>): Promise<void> {
    this.environment = { ...this.environment, ...variables };
    await this.fn.setEnvironment(this.environment);
  }

  public stats(): LocalFunctionStats {
    return this.fn.stats();
  }

  public stop(): Promise<void> {
    return this.fn.stop();
  }
}

/** Messages in the queue, visible or not: zero means nothing is waiting to be redelivered. */
export async function messagesIn(sqs: SQSClient, queueUrl: string): Promise<number> {
  const names = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] as const;
  const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: [...names] }));
  return names.reduce((sum, name) => sum + Number(Attributes[name] ?? 0), 0);
}

/** Every order of the orders table as `<status> v<version>`, by key. */
export async function ordersOf(dynamodb: DynamoDBClient, table: string): Promise<Record<string, string>> {
  const { Items = [] } = await dynamodb.send(new ScanCommand({ TableName: table, ConsistentRead: true }));
  return Object.fromEntries(Items.map((item) => unmarshall(item)).map((item) => [item.pk as string, `${item.status as string} v${item.version as number}`]));
}

/** One crash point's figures, for docs/reliability.md (printed with `EO_CRASH_SUMMARY=1`). */
export interface CrashSummary {
  readonly point: string;
  readonly messages: number;
  readonly done: readonly string[];
  readonly atCrash: unknown;
  readonly dlqCopies: number;
  readonly leftInSource: number;
  readonly mapping: Readonly<Record<string, number>>;
  readonly function: LocalFunctionStats;
  readonly ms: number;
}

export function summarise(
  point: CrashPoint,
  messages: number,
  run: { readonly report: CrashReport; readonly atCrash: unknown; readonly dead: readonly unknown[]; readonly left: number },
  mapping: object,
  fn: LocalFunctionStats,
  ms: number,
): CrashSummary {
  const nonZero = Object.fromEntries(Object.entries(mapping).filter(([, value]) => typeof value === 'number' && value > 0)) as Record<string, number>;
  return { point: `${point.when} ${point.command} #${point.nth}`, messages, done: run.report.done, atCrash: run.atCrash, dlqCopies: run.dead.length, leftInSource: run.left, mapping: nonZero, function: fn, ms };
}
