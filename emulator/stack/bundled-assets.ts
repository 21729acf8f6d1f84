/**
 * Whether an assembly's functions can run as AWS would run them: each function's asset must be a
 * bundle in the assembly directory (`cdk.out`, or the app's `--output`) that holds its handler file. The CDK CLI bundles only for `synth`, `deploy`,
 * `diff`, `watch`, `import`, `publish-assets` and `refactor` (with `--exclusively`, only for the
 * stacks named). Every other command that runs the app (`cdk destroy`, `cdk list`, ...) rewrites
 * `cdk.out` with each `NodejsFunction`'s asset path (template metadata and assets manifest) set to
 * the project root and asset hashes of that folder; the `asset.<hash>` folders of an earlier synth
 * stay, but nothing points at them. The manifest is newer than the sources, the template looks
 * current, and no function in it can be loaded.
 */
import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { ResourceType, resourcesOfType, stringProp, type NamedResource, type Template } from '../../aws/cloudformation/template';

/** The asset metadata the CDK writes on every resource with a file asset. */
export const ASSET_PATH_METADATA = 'aws:asset:path';

/** Extensions Lambda's Node.js runtime loads a handler file with, in the order it tries them. */
const HANDLER_EXTENSIONS = ['.js', '.mjs', '.cjs'] as const;

/** A function whose code is not a bundle local mode can load, and why. */
export interface UnbundledFunction {
  readonly logicalId: string;
  /** The asset path as the template gives it; undefined when there is none. */
  readonly assetPath?: string;
  readonly problem: string;
}

/** Where the assembly is and what counts as the project. */
export interface BundleCheck {
  readonly template: Template;
  /** The assembly directory; asset paths are relative to it. */
  readonly outDir: string;
  /** The folder of the app's cdk.json, where `cdk synth` runs: `cdk destroy` points every asset at it. */
  readonly projectRoot: string;
}

/** Every function of the template whose asset is not a loadable bundle; empty when all are. */
export function unbundledFunctions(check: BundleCheck): UnbundledFunction[] {
  return resourcesOfType(check.template, ResourceType.FUNCTION).flatMap((fn) => {
    const problem = problemOf(fn, check);
    return problem === undefined ? [] : [{ logicalId: fn.logicalId, assetPath: assetPathOf(fn), problem }];
  });
}

function assetPathOf(fn: NamedResource): string | undefined {
  const value = fn.metadata[ASSET_PATH_METADATA];
  return typeof value === 'string' ? value : undefined;
}

function problemOf(fn: NamedResource, check: BundleCheck): string | undefined {
  const assetPath = assetPathOf(fn);
  if (assetPath === undefined) return `no ${ASSET_PATH_METADATA} metadata: local mode runs only functions whose code is a bundled asset`;
  const dir = path.resolve(check.outDir, assetPath);
  if (dir === path.resolve(check.projectRoot)) return `its asset path is the project root (${dir}), not a bundle in ${check.outDir}`;
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return `its asset directory ${dir} does not exist`;
  const handler = stringProp(fn.properties, 'Handler') ?? 'index.handler';
  const file = handler.slice(0, Math.max(0, handler.lastIndexOf('.')));
  if (file === '' || !HANDLER_EXTENSIONS.some((extension) => existsSync(path.join(dir, `${file}${extension}`)))) {
    return `${dir} holds no handler file for ${handler} (${HANDLER_EXTENSIONS.map((extension) => `${file || '<file>'}${extension}`).join(', ')})`;
  }
  return undefined;
}

/** One line per function, for an error message. */
export function describeUnbundled(functions: readonly UnbundledFunction[]): string {
  return functions.map((fn) => `  - ${fn.logicalId}: ${fn.problem}`).join('\n');
}
