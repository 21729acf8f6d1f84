/**
 * Function code for the LocalFunction tests, written to temporary asset directories shaped like
 * `cdk.out/asset.<hash>/index.js`: plain CommonJS for small handlers, and an esbuild bundle with
 * the AWS SDK left external (as the CDK bundles it) for handlers that call AWS.
 */
import { build } from 'esbuild';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO_NODE_MODULES = resolve(__dirname, '../../../node_modules');

/** Temporary asset directories; `removeAssets` deletes them all. */
const created: string[] = [];

async function assetDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'eo-asset-'));
  created.push(dir);
  return dir;
}

/** An asset whose `index.js` is `source` (CommonJS). */
export async function commonJsAsset(source: string): Promise<string> {
  const dir = await assetDir();
  await writeFile(join(dir, 'index.js'), source);
  return dir;
}

/**
 * An asset bundled from TypeScript `source` as the CDK's NodejsFunction bundles it: one CommonJS
 * file, `@aws-sdk/*` external. A real asset in `cdk.out` resolves the SDK from the repository's
 * node_modules, up the directory tree; a temporary directory has no such parent, so it gets a
 * `node_modules` link to the repository's.
 */
export async function bundledAsset(source: string): Promise<string> {
  const dir = await assetDir();
  const entry = join(dir, 'handler.ts');
  await writeFile(entry, source);
  await build({ entryPoints: [entry], outfile: join(dir, 'index.js'), bundle: true, platform: 'node', format: 'cjs', target: 'node20', external: ['@aws-sdk/*'], logLevel: 'silent' });
  await symlink(REPO_NODE_MODULES, join(dir, 'node_modules'), 'dir');
  return dir;
}

export async function removeAssets(): Promise<void> {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}
