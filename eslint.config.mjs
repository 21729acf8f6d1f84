import { readdirSync, readFileSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// ---------------------------------------------------------------------------------------------
// The boundaries between the roles (README.md, "Layout"): which folder may import which.
//
// `no-restricted-imports` matches the import as written, not the file it resolves to, so each
// zone gets one block per folder depth: a file `d` folders below the root reaches the root with
// exactly `d` `../`, and a pattern there can tell `../../emulator` (the role) from `../emulator`
// (a sibling folder that happens to share its name). Flat config replaces a rule's options
// instead of merging them, so every file matches exactly one block that sets the rule. Imports
// are expected in normal form (no `./../` or `a/../b`); `import()` and `require()` of a literal
// are held to the same patterns through `no-restricted-syntax`.
// ---------------------------------------------------------------------------------------------

const manifest = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const names = (field) => Object.keys(manifest[field] ?? {});

/** Optional peer dependencies: the local engines, which only emulator/engines loads. */
const ENGINES = Object.entries(manifest.peerDependenciesMeta ?? {}).filter(([, meta]) => meta.optional).map(([name]) => name);
/** What a published role may not import: a devDependency that is neither a dependency nor a peer. */
const DEV_ONLY = names('devDependencies').filter((name) => !names('dependencies').includes(name) && !names('peerDependencies').includes(name));
const CDK = ['aws-cdk-lib', 'constructs'];

const EMULATOR_MAY = ['aws', 'lambdas/runtime', 'operations', 'cli'];
const EMULATOR_BOUNDARY = 'emulator may import only aws/, lambdas/runtime/, operations/ and cli/ (example/ only in emulator/demo and emulator/chaos)';

/**
 * The runtime's rooms (docs/architecture.md, "The runtime's rooms"; tools/architecture/layout.ts
 * RUNTIME_ROOMS): each may import aws/ and the rooms listed for it, a strict DAG. Nothing below the
 * consumer imports it, the consumer imports no store (a store implements its Strategy port), and a
 * store imports no other store; only the one-call handlers and the runtime's index import a store.
 */
const RUNTIME = 'lambdas/runtime';
const runtimeRoom = (name, rooms, rule, why) => {
  const zone = `${RUNTIME}/${name}`;
  const names = rooms.length < 2 ? rooms.join('') : `${rooms.slice(0, -1).join(', ')} and ${rooms.at(-1)}`;
  const only = rooms.length === 0 ? 'aws/' : `aws/ and the runtime's ${names} room${rooms.length === 1 ? '' : 's'}`;
  return { zone, may: ['aws', ...rooms.map((room) => `${RUNTIME}/${room}`)], cdk: true, published: true, boundary: `${zone} may import only ${only}${rule ? `: ${rule}` : ''}`, why };
};
/** Every store on disk gets its own zone, so that a new one is held to the same rule as DynamoDB's from its first file. */
const STORES = readdirSync(new URL(`./${RUNTIME}/stores/`, import.meta.url), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => `stores/${entry.name}`);
const NOT_A_STORE = 'it may not import the consumer or a store';
/** Exported for the test that holds tools/architecture/layout.ts RUNTIME_ROOMS to it. */
export const RUNTIME_ROOMS = [
  runtimeRoom('core', [], 'the core may not import another room or a store', 'it is the vocabulary every room of the runtime shares (errors, failure kinds, retries, the time budget, metrics), so it depends on none of them'),
  runtimeRoom('events', ['core'], NOT_A_STORE, 'it is the event format that producers write and consumers read, shared by both sides'),
  runtimeRoom('decoding', ['core', 'events'], `${NOT_A_STORE}, nor what happens to a failed record`, 'it turns the sources\' records into events, whatever becomes of them next'),
  runtimeRoom('failures', ['core', 'events', 'decoding'], NOT_A_STORE, 'what happens to a failed record (a DLQ send with its context, a visibility backoff) depends on the record alone'),
  runtimeRoom('producing', ['core', 'events'], NOT_A_STORE, 'a producer publishes events and runs with none of the consuming side'),
  runtimeRoom('consumer', ['core', 'events', 'decoding', 'failures'], 'the consumer may not import a store', 'a store implements the consumer\'s Strategy port, so that the consumer runs on any store; the one-call handlers pick one'),
  ...STORES.map((store) =>
    runtimeRoom(store, ['core', 'events', 'decoding', 'failures', 'consumer'], 'a store may not import another store', 'each store implements the consumer\'s Strategy port on its own, so that the runtime can hold another store beside it'),
  ),
  runtimeRoom('one-call', ['core', 'events', 'decoding', 'failures', 'producing', 'consumer', ...STORES], '', 'the one-call handlers wire the consumer to a store from the environment their construct set'),
];

/**
 * A zone is a folder (a role, or a part of one that differs from the rest of it). `may` lists the
 * folders of ours it may import besides its own role (`lambdas/runtime$`: the runtime's public
 * index only), or `mayNot` the ones it may not; `cdk`, `published` and `engines` say which
 * packages it may not import. `boundary` and `why` make every message.
 */
const ZONES = [
  { zone: 'aws', may: [], cdk: true, published: true, boundary: 'aws/ may import nothing of ours', why: 'it holds the AWS facts that every role reads, so it depends on none of them' },
  // The runtime's index (lambdas/runtime/index.ts) may import every room: they are its own role.
  { zone: RUNTIME, may: ['aws'], cdk: true, published: true, boundary: 'lambdas/runtime may import only aws/', why: 'it runs inside the Lambda bundles and is published as effectively-once/runtime' },
  ...RUNTIME_ROOMS,
  { zone: 'lib', may: ['aws'], published: true, boundary: 'lib may import only aws/, aws-cdk-lib and constructs', why: 'the constructs are published as effectively-once and synthesize without the runtime, operations, the emulator, the tools or the example' },
  { zone: 'cli', may: ['aws'], cdk: true, published: true, boundary: 'cli may import only aws/', why: 'operations and the emulator share its terminal output, so it may carry neither into the other' },
  { zone: 'operations', may: ['aws', 'lambdas/runtime', 'cli'], cdk: true, published: true, boundary: 'operations may import only aws/, lambdas/runtime/ and cli/', why: 'eo dlq runs on an operator\'s install, against AWS, with no emulator, example, tools, constructs or CDK' },
  { zone: 'example', may: ['lib$', 'lambdas/runtime$'], boundary: 'example may import only the indexes of lib/ and lambdas/runtime, not their modules', why: 'it is an app on the published package and sees what such an app sees' },
  { zone: 'emulator', may: EMULATOR_MAY, published: true, boundary: EMULATOR_BOUNDARY, why: 'local mode runs whatever stack the template describes' },
  { zone: 'emulator/demo', role: 'emulator', may: [...EMULATOR_MAY, 'example'], boundary: 'emulator/demo may import only aws/, lambdas/runtime/, operations/, cli/ and example/', why: 'the demo runs the example app, and never the tools or the tests' },
  { zone: 'emulator/chaos', role: 'emulator', may: [...EMULATOR_MAY, 'example'], boundary: 'emulator/chaos may import only aws/, lambdas/runtime/, operations/, cli/ and example/', why: 'the chaos schedules run the example app, and never the tools or the tests' },
  { zone: 'emulator/engines', role: 'emulator', may: EMULATOR_MAY, engines: true, published: true, boundary: EMULATOR_BOUNDARY, why: 'the engines are started for any stack' },
  { zone: 'tools', mayNot: ['test'], boundary: 'tools may import anything but test/', why: 'the developer tooling runs without the test suite' },
  { zone: 'bin', mayNot: ['test'], boundary: 'bin may import anything but test/', why: 'the entry points ship without the tests' },
  // The tests may import anything; they get the engines rule like every other file.
  { zone: 'test', mayNot: [] },
];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const UP = '\\.\\.(?:/|$)';
const packagesRegex = (packages) => `^(?:${packages.map(escape).join('|')})(?:/|$)`;

/**
 * The regexes that match a relative import, written in a file `depth` folders below the root and
 * inside `zone`, whose target is none of `allowed`: one for each folder above the zone it can
 * climb to (for lambdas/runtime: lambdas/, then the root).
 */
function leavingRegexes(zone, allowed, depth) {
  const segments = zone.split('/');
  const regexes = [];
  for (let climbed = 1; climbed <= segments.length; climbed += 1) {
    const base = segments.slice(0, segments.length - climbed).join('/');
    const below = (folder) => (base === '' ? folder : folder.startsWith(`${base}/`) ? folder.slice(base.length + 1) : undefined);
    if (allowed.some((folder) => !folder.endsWith('$') && (base === folder || base.startsWith(`${folder}/`)))) continue;
    const targets = allowed
      .map((folder) => (folder.endsWith('$') ? [below(folder.slice(0, -1)), '(?:/index)?$'] : [below(folder), '(?:/|$)']))
      .filter(([relative]) => relative !== undefined)
      .map(([relative, end]) => `${escape(relative)}${end}`);
    const exact = climbed < segments.length ? `(?!${UP})` : '';
    const allowedHere = targets.length > 0 ? `(?!${targets.join('|')})` : '';
    regexes.push(`^(?:${UP}){${depth - segments.length + climbed}}${exact}${allowedHere}`);
  }
  return regexes;
}

/** The regex that matches a relative import, in a file `depth` folders below the root, of one of `folders`. */
const reachingRegex = (folders, depth) => `^(?:${UP}){${depth}}(?:${folders.map(escape).join('|')})(?:/|$)`;

/** Every file but those of emulator/engines: no engine package. */
const ENGINE_PATTERN = {
  regex: packagesRegex(ENGINES),
  message: `only emulator/engines may import an engine (${ENGINES.join(', ')}: optional peer dependencies, absent unless local mode is installed); use emulator/engines.`,
};

/** The patterns of one zone, for its files `depth` folders below the root. */
function zonePatterns({ zone, role = zone, may, mayNot = [], cdk, published, engines, boundary, why }, depth) {
  const message = `${boundary}: ${why}.`;
  const regexes = may ? leavingRegexes(zone, [role, ...may], depth) : mayNot.length > 0 ? [reachingRegex(mayNot, depth)] : [];
  const patterns = regexes.map((regex) => ({ regex, message }));
  if (cdk) patterns.push({ regex: packagesRegex(CDK), message: `${boundary}, not aws-cdk-lib or constructs: ${why}.` });
  if (published) patterns.push({ regex: packagesRegex(DEV_ONLY), message: `${zone} is published, so it may import no devDependency: an install without devDependencies lacks it (make it a dependency, or move the code out of ${zone}).` });
  if (!engines) patterns.push(ENGINE_PATTERN);
  return patterns;
}

/** The import, `import()` and `require()` rules for `patterns`. */
function rules(patterns) {
  const literal = (regex) => `/${regex.replaceAll('/', '\\x2F')}/`;
  const calls = patterns.flatMap(({ regex, message }) => [
    { selector: `ImportExpression[source.value=${literal(regex)}]`, message },
    { selector: `CallExpression[callee.name="require"][arguments.0.value=${literal(regex)}]`, message },
  ]);
  return {
    'no-restricted-imports': ['error', { patterns: patterns.map((pattern) => ({ ...pattern, caseSensitive: true })) }],
    'no-restricted-syntax': ['error', ...calls],
  };
}

/** How many folders below its zone the blocks reach; a file deeper than that fails the lint, so that no file escapes the rule. */
const MAX_NESTING = 6;

function boundaryBlocks() {
  const blocks = [{ files: ['**/*.ts'], rules: rules([ENGINE_PATTERN]) }];
  for (const zone of ZONES) {
    const inner = ZONES.filter((other) => other.zone.startsWith(`${zone.zone}/`)).map((other) => `${other.zone}/**`);
    const depth = zone.zone.split('/').length;
    for (let nesting = 0; nesting <= MAX_NESTING; nesting += 1) {
      blocks.push({ files: [`${zone.zone}/${'*/'.repeat(nesting)}*.ts`], ignores: inner, rules: rules(zonePatterns(zone, depth + nesting)) });
    }
    if (!zone.may && zone.mayNot.length === 0) continue;
    const tooDeep = `${zone.zone}/ is checked only ${MAX_NESTING} folders deep: move this file up, or raise MAX_NESTING in eslint.config.mjs`;
    blocks.push({ files: [`${zone.zone}/${'*/'.repeat(MAX_NESTING + 1)}**/*.ts`], ignores: inner, rules: { 'no-restricted-syntax': ['error', { selector: 'Program', message: tooDeep }] } });
  }
  return blocks;
}

export default tseslint.config(
  { ignores: ['node_modules/**', 'cdk.out/**', 'coverage/**', 'dist/**', '.eo/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  ...boundaryBlocks(),
);
