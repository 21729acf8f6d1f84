/**
 * The template's Lambda functions as local functions: the bundled asset from `cdk.out`, the
 * handler and memory from the template, its timeout compressed with local time (see
 * function-timeout.ts), and its environment with every `Ref` and `Fn::GetAtt` resolved to the
 * local resources, plus the endpoints of the local engines.
 */
import * as path from 'node:path';
import { LocalFunction, nodeMajorOf, threadsForRuntime, type InitFailureListener, type NodeBinary, type OutputSink } from '../functions';
import { localFunctionTimeoutSeconds } from './function-timeout';
import { managedInstancesConcurrency } from './managed-instances';
import { resolveValue } from '../../aws/cloudformation/intrinsics';
import { refOf, type ProvisionedStack } from './provision';
import { isAwsCustomResourceProvider, numberProp, ResourceType, resourcesOfType, stringProp, type NamedResource, type Template } from '../../aws/cloudformation/template';

/** Lambda's timeout for a function that declares none. */
const LAMBDA_DEFAULT_TIMEOUT_SECONDS = 3;

/** A template function as local mode runs it. */
export interface FunctionSpec {
  readonly logicalId: string;
  readonly name: string;
  readonly assetDir: string;
  readonly handler: string;
  /** The template's `Runtime`, e.g. `nodejs24.x`: the functions run on its Node.js major. */
  readonly runtime: string;
  /** What the function gets locally: the template's timeout compressed, with a floor. */
  readonly timeoutSeconds: number;
  /** The template's `Timeout` (Lambda's default, 3, when it has none). */
  readonly templateTimeoutSeconds: number;
  readonly memoryMb: number;
  readonly environment: Record<string, string>;
  /** Set for a function on Lambda Managed Instances: the invocations each of its environments runs at once (see managed-instances.ts). */
  readonly perEnvironmentMaxConcurrency?: number;
}

export interface FunctionSpecOptions {
  readonly template: Template;
  readonly outDir: string;
  readonly stack: ProvisionedStack;
  /** Local seconds per template second: the function timeout is compressed with it. */
  readonly timeScale: number;
  /** Added to every function's environment: the engines' endpoints, credentials, quieter logs. */
  readonly extraEnvironment?: Record<string, string>;
}

/** The `Runtime` of each function of the template, e.g. `nodejs24.x` (what local mode runs them on). */
export function functionRuntimes(template: Template): string[] {
  return localFunctions(template).map(nodeRuntimeOf);
}

/** Reads every function of the template that local mode runs. @throws when a function's code is not a bundled asset in `cdk.out` */
export function functionSpecs(options: FunctionSpecOptions): FunctionSpec[] {
  return localFunctions(options.template).map((fn) => functionSpec(fn, options));
}

/**
 * The template's functions but CDK's `AwsCustomResource` provider: local mode makes the calls it
 * would make at deploy itself (sql-clusters.ts), so it is never invoked, and its runtime must not
 * choose the Node.js the others run on.
 */
function localFunctions(template: Template): NamedResource[] {
  return resourcesOfType(template, ResourceType.FUNCTION).filter((fn) => !isAwsCustomResourceProvider(fn.logicalId));
}

function functionSpec(fn: NamedResource, options: FunctionSpecOptions): FunctionSpec {
  const assetPath = fn.metadata['aws:asset:path'];
  if (typeof assetPath !== 'string') {
    throw new Error(`function ${fn.logicalId} has no bundled asset (metadata aws:asset:path): local mode runs only asset-based functions`);
  }
  const runtime = nodeRuntimeOf(fn);
  const variables = (fn.properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
  const resolved = resolveValue(variables, options.stack.context) as Record<string, unknown>;
  const templateTimeoutSeconds = numberProp(fn.properties, 'Timeout') ?? LAMBDA_DEFAULT_TIMEOUT_SECONDS;
  const memoryMb = numberProp(fn.properties, 'MemorySize') ?? 128;
  const perEnvironmentMaxConcurrency = managedInstancesConcurrency(fn, memoryMb, runtime);
  return {
    logicalId: fn.logicalId,
    name: refOf(options.stack, fn.logicalId),
    assetDir: path.resolve(options.outDir, assetPath),
    handler: stringProp(fn.properties, 'Handler') ?? 'index.handler',
    runtime,
    timeoutSeconds: localFunctionTimeoutSeconds(templateTimeoutSeconds, options.timeScale),
    templateTimeoutSeconds,
    memoryMb,
    environment: { ...stringify(resolved), ...options.extraEnvironment },
    ...(perEnvironmentMaxConcurrency !== undefined && { perEnvironmentMaxConcurrency }),
  };
}

/**
 * Local mode runs each function on the Node.js major of its runtime (docs/local-mode.md), so only Node.js ones.
 * @throws Error for a function with no `Runtime` (a container image) or one that is not Node.js
 */
function nodeRuntimeOf(fn: NamedResource): string {
  const runtime = stringProp(fn.properties, 'Runtime');
  if (runtime === undefined) throw new Error(`function ${fn.logicalId} names no Runtime: local mode runs Node.js functions from zip assets only`);
  nodeMajorOf(runtime);
  return runtime;
}

function stringify(values: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, String(value)]));
}

/** How the functions start. */
export interface StartFunctionsOptions {
  readonly concurrency: number;
  readonly output?: OutputSink;
  readonly onInitFailure?: InitFailureListener;
  /** Told the Node.js each runtime runs on, once per runtime, after its binary is found (or fetched). */
  readonly onNode?: (runtime: string, node: NodeBinary) => void;
  /** Told before a runtime's Node.js release is fetched (once per machine). */
  readonly onDownload?: (runtime: string, version: string) => void;
  /**
   * Which Node.js runs the functions: `tools`, worker threads of this process; `runtime`, the
   * major of each function's Lambda runtime (a runtime host when it is not this process's).
   * @default FUNCTIONS_NODE_VARIABLE's value, else 'runtime'
   */
  readonly functionsNode?: FunctionsNode;
}

/** The Node.js that runs the tools, as the functions see it when they run in its threads. */
const TOOLS_NODE: NodeBinary = { path: process.execPath, version: process.versions.node, source: 'host' };

/** Which Node.js runs the local functions; see {@link StartFunctionsOptions.functionsNode}. */
export type FunctionsNode = 'tools' | 'runtime';

/** The variable that chooses {@link FunctionsNode} for `eo local up`, the demo and the tests, e.g. `EO_FUNCTIONS_NODE=tools`. */
export const FUNCTIONS_NODE_VARIABLE = 'EO_FUNCTIONS_NODE';

/** The choice `env` makes. @throws Error naming the variable for a value that is neither `tools` nor `runtime` */
export function functionsNodeOf(env: Readonly<Record<string, string | undefined>> = process.env): FunctionsNode {
  const value = env[FUNCTIONS_NODE_VARIABLE];
  if (value === 'tools') return 'tools';
  if (value === undefined || value === '' || value === 'runtime') return 'runtime';
  throw new Error(`${FUNCTIONS_NODE_VARIABLE} is "tools" (the functions run on the Node.js that runs eo) or "runtime" (on their Lambda runtime's Node.js), not ${JSON.stringify(value)}`);
}

/**
 * Starts a local function per spec (each cold-starts on its first invocation), on the tools'
 * Node.js or, when `functionsNode` is `runtime`, on its runtime's: the binary of each runtime is
 * then found (or fetched once per machine) first.
 *
 * @throws Error naming the runtime when no binary of its Node.js major can be found or fetched
 */
export async function startFunctions(specs: readonly FunctionSpec[], options: StartFunctionsOptions): Promise<Map<string, LocalFunction>> {
  const runtimes = [...new Set(specs.map((spec) => spec.runtime))];
  if ((options.functionsNode ?? functionsNodeOf()) === 'tools') {
    for (const runtime of runtimes) options.onNode?.(runtime, TOOLS_NODE);
    return new Map(specs.map((spec) => [spec.logicalId, new LocalFunction({ ...spec, concurrency: options.concurrency, output: options.output, onInitFailure: options.onInitFailure })]));
  }
  const threads = new Map(await Promise.all(runtimes.map(async (runtime) => [runtime, await threadsForRuntime(runtime, { onDownload: (version) => options.onDownload?.(runtime, version) })] as const)));
  for (const [runtime, { node }] of threads) options.onNode?.(runtime, node);
  return new Map(specs.map((spec) => [spec.logicalId, new LocalFunction({ ...spec, concurrency: options.concurrency, output: options.output, onInitFailure: options.onInitFailure, threads: threads.get(spec.runtime)?.threads })]));
}
