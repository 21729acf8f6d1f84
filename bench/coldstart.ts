/**
 * Cold start, the part our code controls: each strategy's handler bundled as CDK bundles it for
 * Node.js 24 (esbuild, minified, with a source map, the AWS SDK left out because the runtime
 * provides it), its size, and the time a fresh `node` takes to load it (`require`, median of
 * several processes). The runtime's own bootstrap and the first invocation's client setup are
 * not part of it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { median } from './median';
import { strategyEntry, type StrategyName } from './strategies';

const run = promisify(execFile);

/** As `lib/consumer-function.ts` bundles: CDK's defaults for Node.js 18+ plus ours. */
const BUNDLE_SETTINGS = {
  bundle: true,
  minify: true,
  sourcemap: true,
  platform: 'node',
  format: 'cjs',
  target: 'node24',
  external: ['@aws-sdk/*'],
  logLevel: 'silent',
} as const;

/** The deployed functions run with source maps on (`NODE_OPTIONS`, set by CDK with `sourceMap: true`). */
const NODE_FLAGS = ['--enable-source-maps'];

export interface ColdStart {
  readonly name: StrategyName;
  /** `index.js`, minified. */
  readonly bundleBytes: number;
  readonly sourceMapBytes: number;
  /** Median time to `require` the bundle in a fresh process. */
  readonly initMs: number;
}

/** Bundles and loads each strategy's handler `samples` times. */
export async function measureColdStarts(names: readonly StrategyName[], samples: number, onSample: () => void = () => undefined): Promise<ColdStart[]> {
  const outdir = await mkdtemp(path.join(os.tmpdir(), 'eo-bench-bundles-'));
  try {
    const bundles = await Promise.all(names.map((name) => bundle(name, outdir)));
    const results: ColdStart[] = [];
    for (const { name, file } of bundles) results.push({ name, ...(await sizes(file)), initMs: median(await loadTimes(file, samples, onSample)) });
    return results;
  } finally {
    await rm(outdir, { recursive: true, force: true });
  }
}

async function bundle(name: StrategyName, outdir: string): Promise<{ name: StrategyName; file: string }> {
  const file = path.join(outdir, name, 'index.js');
  await build({ ...BUNDLE_SETTINGS, external: [...BUNDLE_SETTINGS.external], entryPoints: [strategyEntry(name)], outfile: file });
  return { name, file };
}

async function sizes(file: string): Promise<{ bundleBytes: number; sourceMapBytes: number }> {
  const [code, map] = await Promise.all([stat(file), stat(`${file}.map`)]);
  return { bundleBytes: code.size, sourceMapBytes: map.size };
}

/**
 * Loads are measured one after another, never in parallel, so that they do not compete for the
 * CPU. `NODE_PATH` lets the bundle find the AWS SDK where Lambda's runtime would provide it.
 */
async function loadTimes(file: string, samples: number, onSample: () => void): Promise<number[]> {
  const script = `const t=process.hrtime.bigint();require(${JSON.stringify(file)});process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6))`;
  const env = { ...process.env, NODE_PATH: path.resolve(__dirname, '..', 'node_modules'), NODE_OPTIONS: '' };
  const times: number[] = [];
  for (let sample = 0; sample < samples; sample++) {
    const { stdout } = await run(process.execPath, [...NODE_FLAGS, '-e', script], { env });
    times.push(Number(stdout));
    onSample();
  }
  return times;
}
