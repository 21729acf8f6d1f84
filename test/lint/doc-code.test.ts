/**
 * Every TypeScript block of README.md and docs/ is checked, so that a renamed prop breaks the
 * build and not a reader: compiled against the package's sources as a module of its own (with the
 * context its doc-code comment gives), or found in the file it quotes, or skipped for a stated
 * reason (test/helpers/doc-code.ts says how a page marks which).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { codeLines, docCodeBlocks, missingInOrder, moduleSource, type DocCodeBlock } from '../helpers/doc-code';
import { markdownPages } from '../helpers/doc-links';

const ROOT = path.join(__dirname, '..', '..');
/** At the root, beside node_modules, so that the blocks' imports resolve as a user's app's would; outside tsconfig's folders. */
const OUT = path.join(ROOT, '.doc-code');

const blocks: DocCodeBlock[] = markdownPages(ROOT).flatMap((page) => docCodeBlocks(ROOT, page));
const where = (block: DocCodeBlock): string => `${block.file}:${block.line}`;

afterAll(() => rmSync(OUT, { recursive: true, force: true }));

test('the docs have TypeScript blocks, and each says how it is checked', () => {
  expect(blocks.length).toBeGreaterThan(15);
  expect(blocks.filter((block) => block.mode === 'skip').map((block) => [where(block), block.argument])).toEqual(blocks.filter((block) => block.mode === 'skip').map((block) => [where(block), expect.stringMatching(/\w{4,}/)]));
});

test('every compiled block type-checks against the package', () => {
  const compiled = blocks.filter((block) => block.mode === 'module' || block.mode === 'body');
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const files = compiled.map((block, index) => {
    const file = path.join(OUT, `${block.file.replace(/[^a-z0-9]+/gi, '-')}-${block.line}-${index}.ts`);
    writeFileSync(file, moduleSource(block));
    return { file, block };
  });
  const program = ts.createProgram(files.map(({ file }) => file), compilerOptions());
  const problems = ts.getPreEmitDiagnostics(program).filter((diagnostic) => diagnostic.file !== undefined && diagnostic.file.fileName.startsWith(OUT));
  const described = problems.map((diagnostic) => {
    const snippet = files.find(({ file }) => file === diagnostic.file?.fileName);
    return `${snippet ? where(snippet.block) : diagnostic.file?.fileName}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
  expect(described).toEqual([]);
}, 120_000);

test('every excerpt quotes its file, line for line and in order', () => {
  const excerpts = blocks.filter((block) => block.mode === 'excerpt');
  expect(excerpts.length).toBeGreaterThan(0);
  const stale = excerpts.flatMap((block) => {
    const source = codeLines(readFileSync(path.join(ROOT, block.argument as string), 'utf8'));
    const missing = missingInOrder(codeLines(block.code), source);
    return missing === undefined ? [] : [`${where(block)}: not in ${block.argument}: ${missing}`];
  });
  expect(stale).toEqual([]);
});

test('a block compiles only if it is right: a renamed prop fails', () => {
  const block: DocCodeBlock = { file: 'probe.md', line: 1, mode: 'module', context: '', code: "import { IdempotencyTable } from 'effectively-once';\nimport { App, Stack } from 'aws-cdk-lib';\nnew IdempotencyTable(new Stack(new App(), 'S'), 'I', { noSuchProp: true });" };
  mkdirSync(OUT, { recursive: true });
  const file = path.join(OUT, 'probe.ts');
  writeFileSync(file, moduleSource(block));
  const program = ts.createProgram([file], compilerOptions());
  const messages = ts.getPreEmitDiagnostics(program).filter((diagnostic) => diagnostic.file?.fileName === file).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
  expect(messages.join('\n')).toMatch(/noSuchProp/);
}, 120_000);

/** tsconfig.json's options, the package's two entry points mapped to their sources, and no complaint about a snippet's unused names. */
function compilerOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  return {
    ...options,
    noEmit: true,
    noUnusedLocals: false,
    noUnusedParameters: false,
    baseUrl: ROOT,
    paths: { 'effectively-once': ['lib/index.ts'], 'effectively-once/runtime': ['lambdas/runtime/index.ts'] },
  };
}
