import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NotACheckoutError, repositoryCheckout } from '../../../tools/cli/checkout';

const REPOSITORY_ROOT = path.resolve(__dirname, '..', '..', '..');
let scratch: string;

beforeEach(() => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'checkout-test-'));
});

afterEach(() => rmSync(scratch, { recursive: true, force: true }));

/** A folder with the package's manifest, and the example stack's TypeScript when `withExample`. */
function packageFolder(folder: string, withExample: boolean, name = 'effectively-once'): string {
  mkdirSync(path.join(folder, 'example'), { recursive: true });
  writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name }));
  if (withExample) writeFileSync(path.join(folder, 'example', 'event-pipeline-stack.ts'), '');
  return folder;
}

function refusal(run: () => unknown): NotACheckoutError {
  try {
    run();
  } catch (error) {
    if (error instanceof NotACheckoutError) return error;
    throw error;
  }
  throw new Error('expected a NotACheckoutError');
}

test('the source of this repository is a checkout: its root is returned', () => {
  expect(repositoryCheckout('eo new consumer')).toBe(REPOSITORY_ROOT);
});

test('an installed package is refused, saying what the command does and what to do instead', () => {
  const installed = packageFolder(path.join(scratch, 'node_modules', 'effectively-once'), false);
  const error = refusal(() => repositoryCheckout('eo docs', {}, installed));
  expect(error.message).toBe(
    `\`eo docs\` changes a checkout of the effectively-once repository (its example app and docs), and ${installed} is the installed package. ` +
      'In your own CDK app, add a consumer construct and its handler by hand: see "Use it in your own CDK app" in docs/quick-start.md of the repository.',
  );
});

test('a command that only runs the checkout says so, with its own advice', () => {
  const installed = packageFolder(path.join(scratch, 'installed'), false);
  const error = refusal(() => repositoryCheckout('eo demo', { needs: 'runs the example app', instead: 'Use `npx eo local up`.' }, installed));
  expect(error.message).toBe(`\`eo demo\` runs the example app, and ${installed} is the installed package. Use \`npx eo local up\`.`);
});

test('the build in a checkout\'s dist/ is refused, pointing at the source', () => {
  const checkout = packageFolder(path.join(scratch, 'checkout'), true);
  const built = path.join(checkout, 'dist');
  mkdirSync(built);
  expect(refusal(() => repositoryCheckout('eo new consumer', {}, built)).message).toBe(
    `\`eo new consumer\` runs from this repository's TypeScript, and this is its build (${built}): run it from the source, \`npm run eo -- new consumer ...\``,
  );
});

test('a folder with the example but another package\'s manifest is no checkout', () => {
  const other = packageFolder(path.join(scratch, 'other'), true, 'someone-elses-app');
  expect(refusal(() => repositoryCheckout('eo docs', {}, other)).message).toContain(`${other} is the installed package`);
});
