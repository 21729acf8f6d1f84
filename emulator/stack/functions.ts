/**
 * The template's Lambda functions as local functions: the bundled asset from `cdk.out`, the
 * handler and memory from the template, its timeout compressed with local time (see
 * function-timeout.ts), and its environment with every `Ref` and `Fn::GetAtt` resolved to the
 * local resources, plus the endpoints of the local engines.
 */
import * as path from 'node:path';
import { LocalFunction, nodeMajorOf, type InitFailureListener, type OutputSink } from '../functions';
import { localFunctionTimeoutSeconds } from './function-timeout';
import { resolveValue } from '../../aws/cloudformation/intrinsics';
import { refOf, type ProvisionedStack } from './provision';
import { numberProp, ResourceType, resourcesOfType, stringProp, type NamedResource, type Template } from '../../aws/cloudformation/template';

/** Lambda's timeout for a function that declares none. */
const LAMBDA_DEFAULT_TIMEOUT_SECONDS = 3;

/** A template function as local mode runs it. */
export interface FunctionSpec {
  readonly logicalId: string;
  readonly name: string;
  readonly assetDir: string;
  readonly handler: string;
  /** What the function gets locally: the template's timeout compressed, with a floor. */
  readonly timeoutSeconds: number;
  /** The template's `Timeout` (Lambda's default, 3, when it has none). */
  readonly templateTimeoutSeconds: number;
  readonly memoryMb: number;
  readonly environment: Record<string, string>;
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

/** Reads every function of the template. @throws when a function's code is not a bundled asset in `cdk.out` */
export function functionSpecs(options: FunctionSpecOptions): FunctionSpec[] {
  return resourcesOfType(options.template, ResourceType.FUNCTION).map((fn) => functionSpec(fn, options));
}

function functionSpec(fn: NamedResource, options: FunctionSpecOptions): FunctionSpec {
  const assetPath = fn.metadata['aws:asset:path'];
  if (typeof assetPath !== 'string') {
    throw new Error(`function ${fn.logicalId} has no bundled asset (metadata aws:asset:path): local mode runs only asset-based functions`);
  }
  checkNodeRuntime(fn);
  const variables = (fn.properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
  const resolved = resolveValue(variables, options.stack.context) as Record<string, unknown>;
  const templateTimeoutSeconds = numberProp(fn.properties, 'Timeout') ?? LAMBDA_DEFAULT_TIMEOUT_SECONDS;
  return {
    logicalId: fn.logicalId,
    name: refOf(options.stack, fn.logicalId),
    assetDir: path.resolve(options.outDir, assetPath),
    handler: stringProp(fn.properties, 'Handler') ?? 'index.handler',
    timeoutSeconds: localFunctionTimeoutSeconds(templateTimeoutSeconds, options.timeScale),
    templateTimeoutSeconds,
    memoryMb: numberProp(fn.properties, 'MemorySize') ?? 128,
    environment: { ...stringify(resolved), ...options.extraEnvironment },
  };
}

/**
 * Local mode runs the functions on the tools' Node.js (docs/local-mode.md), so only Node.js ones.
 * @throws Error for a function with no `Runtime` (a container image) or one that is not Node.js
 */
function checkNodeRuntime(fn: NamedResource): void {
  const runtime = stringProp(fn.properties, 'Runtime');
  if (runtime === undefined) throw new Error(`function ${fn.logicalId} names no Runtime: local mode runs Node.js functions from zip assets only`);
  nodeMajorOf(runtime);
}

function stringify(values: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, String(value)]));
}

/** Starts a local function per spec (each cold-starts on its first invocation). */
export function startFunctions(specs: readonly FunctionSpec[], options: { concurrency: number; output?: OutputSink; onInitFailure?: InitFailureListener }): Map<string, LocalFunction> {
  return new Map(specs.map((spec) => [spec.logicalId, new LocalFunction({ ...spec, concurrency: options.concurrency, output: options.output, onInitFailure: options.onInitFailure })]));
}
