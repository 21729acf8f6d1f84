/**
 * The template's Lambda functions as local functions: the bundled asset from `cdk.out`, the
 * handler, timeout and memory from the template, and its environment with every `Ref` and
 * `Fn::GetAtt` resolved to the local resources, plus the endpoints of the local engines.
 */
import * as path from 'node:path';
import { LocalFunction, type OutputSink } from '../functions';
import { resolveValue } from './intrinsics';
import type { ProvisionedStack } from './provision';
import { numberProp, ResourceType, resourcesOfType, stringProp, type NamedResource, type Template } from './template';

/** A template function as local mode runs it. */
export interface FunctionSpec {
  readonly logicalId: string;
  readonly name: string;
  readonly assetDir: string;
  readonly handler: string;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  readonly environment: Record<string, string>;
}

export interface FunctionSpecOptions {
  readonly template: Template;
  readonly outDir: string;
  readonly stack: ProvisionedStack;
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
  const variables = (fn.properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
  const resolved = resolveValue(variables, options.stack.context) as Record<string, unknown>;
  return {
    logicalId: fn.logicalId,
    name: options.stack.context.resources.get(fn.logicalId)?.ref ?? fn.logicalId,
    assetDir: path.resolve(options.outDir, assetPath),
    handler: stringProp(fn.properties, 'Handler') ?? 'index.handler',
    timeoutSeconds: numberProp(fn.properties, 'Timeout') ?? 3,
    memoryMb: numberProp(fn.properties, 'MemorySize') ?? 128,
    environment: { ...stringify(resolved), ...options.extraEnvironment },
  };
}

function stringify(values: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, String(value)]));
}

/** Starts a local function per spec (each cold-starts on its first invocation). */
export function startFunctions(specs: readonly FunctionSpec[], options: { concurrency: number; output?: OutputSink }): Map<string, LocalFunction> {
  return new Map(specs.map((spec) => [spec.logicalId, new LocalFunction({ ...spec, concurrency: options.concurrency, output: options.output })]));
}
