/**
 * The API reference (docs/api/, `npm run docs:api`): the committed pages are what the script
 * writes, every exported name of both entry points has a doc comment, and every construct prop its
 * `@default` and, for a number or a duration, its `@range`. The checker is shown to fail on a
 * fixture entry point with gaps; the staleness comparison on a folder with a stale page.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Command, Option } from 'commander';
import { renderCliPage } from '../../tools/api-reference/cli-page';
import { docCommentProblems } from '../../tools/api-reference/doc-comments';
import { stalePages, withDocCodeDirectives } from '../../tools/api-reference/reference';

const ROOT = path.join(__dirname, '..', '..');

test('docs/api is what `npm run docs:api` writes, and the TSDoc has every doc comment, default and range it needs', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'bin/api-reference.ts', '--check'], { cwd: ROOT, encoding: 'utf8', timeout: 150_000 });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
}, 180_000);

test('the checker names an undocumented export, a re-exported one, and props without a doc comment, a default or a range', () => {
  const problems = docCommentProblems(ROOT, [{ file: 'test/lint/fixtures/undocumented-export/index.ts', props: true }]);
  expect(problems.map(({ name, problem }) => `${name} ${problem}`)).toEqual([
    'undocumented has no doc comment',
    'forgotten has no doc comment',
    'WidgetProps.label is optional and has no @default',
    'WidgetProps.wait is a number or a Duration and has no @range',
    'WidgetProps.name has no doc comment',
  ]);
}, 60_000);

test('stalePages names a page that differs, one that is missing and one that is not generated', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'eo-api-test-'));
  try {
    mkdirSync(path.join(folder, 'sub'));
    writeFileSync(path.join(folder, 'current.md'), 'same');
    writeFileSync(path.join(folder, 'sub', 'stale.md'), 'old');
    writeFileSync(path.join(folder, 'extra.md'), 'left over');
    const pages = new Map([['current.md', 'same'], ['sub/stale.md', 'new'], ['missing.md', 'text']]);
    expect(stalePages(pages, folder)).toEqual(['sub/stale.md is stale', 'missing.md is missing', 'extra.md is not generated']);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test('an example that exports or declares is compiled as a module, any other as the body of a stack method', () => {
  const page = ['#### Example', '', '```ts', 'export const handler = 1;', '```', '', '```ts', 'new Thing(this, "T");', '```', ''].join('\n');
  expect(withDocCodeDirectives(page)).toBe(['#### Example', '', '<!-- doc-code: module -->', '```ts', 'export const handler = 1;', '```', '', '<!-- doc-code: body -->', '```ts', 'new Thing(this, "T");', '```', ''].join('\n'));
});

test('the CLI page has a row and a section per command, with each option, its choices and its default', () => {
  const program = new Command('eo').description('the tool');
  const group = program.command('dlq').description('dead letters');
  group
    .command('redrive')
    .description('send them back')
    .argument('<queue>', 'the DLQ')
    .addOption(new Option('--mode <mode>', 'how').choices(['all', 'one']).default('all'))
    .option('--json', 'for machines | scripts');
  const page = renderCliPage(program);
  expect(page).toContain('| [`eo dlq redrive`](#eo-dlq-redrive) | send them back |');
  expect(page).toContain('## eo dlq redrive\n\n`eo dlq redrive [options] <queue>`\n\nSend them back.');
  expect(page).toContain('| `<queue>` | the DLQ |');
  expect(page).toContain('| `--mode <mode>` | how (one of `all`, `one`) | `"all"` |');
  expect(page).toContain('| `--json` | for machines \\| scripts |  |');
});
