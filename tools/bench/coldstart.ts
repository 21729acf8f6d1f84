/**
 * Cold start, the part our code controls: each handler (the bare baseline, each strategy's, the
 * example app's) bundled with the deployed functions' bundling options (`CONSUMER_BUNDLING`,
 * translated to esbuild as CDK translates them), once with the AWS SDK in the bundle (as deployed)
 * and once with it left to the Lambda runtime (CDK's default, as deployed before); their sizes,
 * and the time a fresh `node` takes to load each (`require`, median of several processes), each
 * also as a ratio to the bare handler's. The runtime's own bootstrap and the first invocation's
 * client setup are not part of it.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { CONSUMER_BUNDLING } from '../../lib/consumer-function';
import { median } from './median';
import { strategyEntry, type StrategyName } from './strategies';

/** The baseline's row name: a handler that only creates the SDK clients (`handlers/bare.ts`). */
export const BARE_HANDLER = 'bare';

/** The example app's handlers, as deployed (`example/handlers/<name>.ts`). */
export const EXAMPLE_HANDLERS = ['page-view-counter', 'order-projection', 'shipment-notifier'] as const;

/** A handler to measure: its row's name and the file whose `handler` is the Lambda entry point. */
export interface ColdStartHandler {
  readonly handler: string;
  readonly entry: string;
}

const run = promisify(execFile);

/** Where a bundle's AWS SDK comes from: inside it, or from the Lambda runtime's own copy. */
export const SDK_PLACEMENTS = ['bundled', 'external'] as const;
export type SdkPlacement = (typeof SDK_PLACEMENTS)[number];

/**
 * What CDK leaves out of a bundle unless `externalModules` says otherwise, for a Node.js 18+
 * runtime with the `sdkV3ExcludeSmithyPackages` flag on (cdk.json): the SDK that the runtime
 * provides. The `external` rows are bundled so, as the functions were deployed before.
 */
export const RUNTIME_PROVIDED_MODULES = ['@aws-sdk/*', '@smithy/*'] as const;

/** The CDK bundling options that {@link esbuildOptions} knows how to pass on. */
const TRANSLATED_OPTIONS: readonly string[] = ['minify', 'sourceMap', 'target', 'externalModules'];

/** The deployed functions run with source maps on (`NODE_OPTIONS`, set by `lib/consumer-function.ts`). */
const NODE_FLAGS = ['--enable-source-maps'];

export interface ColdStart {
  /** {@link BARE_HANDLER}, a strategy's name, or one of {@link EXAMPLE_HANDLERS}. */
  readonly handler: string;
  /** `bundled`: the SDK inside the bundle, as deployed now; `external`: left to the Lambda runtime, as deployed before. */
  readonly sdk: SdkPlacement;
  /** `bundleBytes` in KiB, to one decimal. */
  readonly bundleKiB: number;
  /** Median time to `require` the bundle in a fresh process. */
  readonly initMs: number;
  /** This row's bundle size over the bare handler's with the same SDK placement (1 on the bare rows). */
  readonly bundleRatio: number;
  /** This row's init time over the bare handler's with the same SDK placement (1 on the bare rows). */
  readonly initRatio: number;
  /** @deprecated The same as `handler`, kept for readers of earlier reports. */
  readonly name: string;
  /** `index.js`, minified. */
  readonly bundleBytes: number;
  readonly sourceMapBytes: number;
  /** This row's bundle size and init time over those of the same handler with the SDK external (1 on that row). */
  readonly vsExternal: { readonly bundleBytes: number; readonly initMs: number };
}

/** One bundle's measurement, before it is compared with the others. */
export type MeasuredBundle = Pick<ColdStart, 'handler' | 'sdk' | 'bundleBytes' | 'sourceMapBytes' | 'initMs'>;

/** What the cold-start part measures for `strategies`: the bare handler first, then theirs, then the example app's. */
export function coldStartHandlers(strategies: readonly StrategyName[]): ColdStartHandler[] {
  const examples = path.join(__dirname, '..', '..', 'example', 'handlers');
  return [
    { handler: BARE_HANDLER, entry: path.join(__dirname, 'handlers', 'bare.ts') },
    ...strategies.map((name) => ({ handler: name, entry: strategyEntry(name) })),
    ...EXAMPLE_HANDLERS.map((name) => ({ handler: name, entry: path.join(examples, `${name}.ts`) })),
  ];
}

/**
 * The esbuild options CDK's local bundling runs for `bundling` (`esbuild --bundle
 * --platform=node`, CommonJS), with the SDK where `sdk` puts it. Throws on a bundling option it
 * does not pass on, so that the benchmark cannot silently bundle otherwise than the deployment.
 */
export function esbuildOptions(sdk: SdkPlacement, bundling: BundlingOptions = CONSUMER_BUNDLING): BuildOptions {
  const unknown = Object.keys(bundling).filter((key) => !TRANSLATED_OPTIONS.includes(key));
  if (unknown.length > 0) throw new Error(`the benchmark does not pass the bundling options ${unknown.join(', ')} on to esbuild`);
  const deployed = bundling.externalModules ?? RUNTIME_PROVIDED_MODULES;
  const external = sdk === 'bundled' ? [...deployed] : [...new Set([...deployed, ...RUNTIME_PROVIDED_MODULES])];
  return { bundle: true, platform: 'node', format: 'cjs', minify: bundling.minify, sourcemap: bundling.sourceMap, target: bundling.target, external, logLevel: 'silent' };
}

/** Bundles `entry` into `outdir/index.js` and its source map, with the SDK where `sdk` puts it; returns esbuild's metafile. */
export async function bundleHandler(entry: string, outdir: string, sdk: SdkPlacement): Promise<Metafile> {
  const result = await build({ ...esbuildOptions(sdk), entryPoints: [entry], outfile: path.join(outdir, 'index.js'), metafile: true });
  return result.metafile;
}

/**
 * Throws unless no `node_modules` can be found from `dir` upwards: a bundle that loads there
 * does not borrow anything from an installation.
 */
export function assertNoNodeModulesAbove(dir: string): void {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    if (existsSync(path.join(current, 'node_modules'))) throw new Error(`${path.join(current, 'node_modules')} is reachable from ${dir}`);
    if (path.dirname(current) === current) return;
  }
}

interface Bundle {
  readonly handler: string;
  readonly sdk: SdkPlacement;
  readonly file: string;
}

/** Bundles each handler both ways and loads each bundle `samples` times; the rows keep the handlers' order. */
export async function measureColdStarts(handlers: readonly ColdStartHandler[], samples: number, onSample: () => void = () => undefined): Promise<ColdStart[]> {
  const outdir = await mkdtemp(path.join(os.tmpdir(), 'eo-bench-bundles-'));
  try {
    assertNoNodeModulesAbove(outdir);
    const bundles = await Promise.all(handlers.flatMap((handler) => SDK_PLACEMENTS.map((sdk) => bundle(handler, sdk, outdir))));
    const times = await loadTimes(bundles, samples, onSample);
    const measured = await Promise.all(bundles.map(async ({ handler, sdk, file }, index) => ({ handler, sdk, ...(await sizes(file)), initMs: median(times[index] ?? []) })));
    return compareColdStarts(measured);
  } finally {
    await rm(outdir, { recursive: true, force: true });
  }
}

/**
 * Adds to each row its ratios to the bare handler with the same SDK placement and to the same
 * handler with the SDK external; throws if either row is missing.
 */
export function compareColdStarts(measured: readonly MeasuredBundle[]): ColdStart[] {
  const find = (handler: string, sdk: SdkPlacement): MeasuredBundle => {
    const found = measured.find((other) => other.handler === handler && other.sdk === sdk);
    if (!found) throw new Error(`no cold start of ${handler} with the SDK ${sdk} to compare with`);
    return found;
  };
  return measured.map((row) => withRatios(row, find(BARE_HANDLER, row.sdk), find(row.handler, 'external')));
}

/** The row in the report's key order: the fields first. */
function withRatios(row: MeasuredBundle, bare: MeasuredBundle, external: MeasuredBundle): ColdStart {
  const { handler, sdk, bundleBytes, sourceMapBytes, initMs } = row;
  const over = (other: MeasuredBundle) => ({ bundleBytes: bundleBytes / other.bundleBytes, initMs: initMs / other.initMs });
  const vsBare = over(bare);
  const bundleKiB = Math.round((bundleBytes / 1024) * 10) / 10;
  return { handler, sdk, bundleKiB, initMs, bundleRatio: vsBare.bundleBytes, initRatio: vsBare.initMs, name: handler, bundleBytes, sourceMapBytes, vsExternal: over(external) };
}

async function bundle({ handler, entry }: ColdStartHandler, sdk: SdkPlacement, outdir: string): Promise<Bundle> {
  const dir = path.join(outdir, `${handler}-${sdk}`);
  await bundleHandler(entry, dir, sdk);
  return { handler, sdk, file: path.join(dir, 'index.js') };
}

async function sizes(file: string): Promise<{ bundleBytes: number; sourceMapBytes: number }> {
  const [code, map] = await Promise.all([stat(file), stat(`${file}.map`)]);
  return { bundleBytes: code.size, sourceMapBytes: map.size };
}

/**
 * Loads are measured one after another, never in parallel, so that they do not compete for the
 * CPU, and each sample loads every bundle once in turn, so that the machine's noise hits all alike.
 */
async function loadTimes(bundles: readonly Bundle[], samples: number, onSample: () => void): Promise<number[][]> {
  const times: number[][] = bundles.map(() => []);
  for (let sample = 0; sample < samples; sample++) {
    for (const [index, entry] of bundles.entries()) {
      times[index]?.push(await loadTime(entry));
      onSample();
    }
  }
  return times;
}

/**
 * One fresh process's `require` of the bundle. An `external` bundle finds the SDK through
 * `NODE_PATH`, where Lambda's runtime would provide its own; a `bundled` one gets no `NODE_PATH`
 * and runs in a directory with no `node_modules` above it, so that it loads on its own or fails.
 */
async function loadTime(entry: Bundle): Promise<number> {
  const script = `const t=process.hrtime.bigint();require(${JSON.stringify(entry.file)});process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6))`;
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
  if (entry.sdk === 'external') env.NODE_PATH = path.resolve(__dirname, '..', '..', 'node_modules');
  else delete env.NODE_PATH;
  const { stdout } = await run(process.execPath, [...NODE_FLAGS, '-e', script], { env, cwd: path.dirname(entry.file) });
  return Number(stdout);
}
