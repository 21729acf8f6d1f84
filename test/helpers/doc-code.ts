/**
 * The TypeScript blocks of the docs, and how each is checked. A block is compiled as a module of
 * its own against the package's sources (`effectively-once` is lib/, `effectively-once/runtime`
 * is lambdas/runtime/), unless an HTML comment right above its fence says otherwise:
 *
 * - `<!-- doc-code: module -->` (the default, needed only to give a context): compiled as it is;
 * - `<!-- doc-code: body -->`: its lines after the imports run inside a method of a CDK `Stack`
 *   (so `this` is a stack and `await` works), as a snippet "in your stack's constructor" or "in
 *   the handler" reads;
 * - `<!-- doc-code: excerpt <path> -->`: it quotes a file of the repository (which the build
 *   compiles): its code lines must appear in that file, in order;
 * - `<!-- doc-code: skip <reason> -->`: shown, not compiled (signatures, props elided with `...`);
 *   the reason is required.
 *
 * Further lines of the comment, after the first, are TypeScript put before the block: the
 * imports and `declare`s of what the snippet takes from around it.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

export type DocCodeMode = 'module' | 'body' | 'excerpt' | 'skip';

export interface DocCodeBlock {
  /** The Markdown file, relative to the root, and the block's first line (1-based) in it. */
  readonly file: string;
  readonly line: number;
  readonly mode: DocCodeMode;
  /** `excerpt`: the quoted file; `skip`: why. */
  readonly argument?: string;
  /** TypeScript to put before the block. */
  readonly context: string;
  readonly code: string;
}

const FENCE = /^(\s*)```(ts|typescript)\b.*$/;
const DIRECTIVE = /^<!--\s*doc-code:\s*(module|body|excerpt|skip)\b[ \t]*([^\n]*?)\s*(?:\n([\s\S]*?))?-->$/;

/** Every TypeScript block of the Markdown file `file` (relative to `root`). */
export function docCodeBlocks(root: string, file: string): DocCodeBlock[] {
  const lines = readFileSync(path.join(root, file), 'utf8').split('\n');
  const blocks: DocCodeBlock[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const fence = FENCE.exec(lines[index] ?? '');
    if (!fence) continue;
    const indent = fence[1] ?? '';
    const end = lines.findIndex((line, at) => at > index && line.trim() === '```');
    if (end < 0) throw new Error(`${file}:${index + 1}: a TypeScript block that never closes`);
    const code = lines.slice(index + 1, end).map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line)).join('\n');
    blocks.push({ file, line: index + 1, code, ...directiveAbove(lines, index, file) });
    index = end;
  }
  return blocks;
}

/** The directive in the HTML comment that ends on the line above the fence (blank lines allowed between), if any. */
function directiveAbove(lines: readonly string[], fenceIndex: number, file: string): Pick<DocCodeBlock, 'mode' | 'argument' | 'context'> {
  let end = fenceIndex - 1;
  while (end >= 0 && (lines[end] ?? '').trim() === '') end -= 1;
  if (!(lines[end] ?? '').trim().endsWith('-->')) return { mode: 'module', context: '' };
  let start = end;
  while (start >= 0 && !(lines[start] ?? '').includes('<!--')) start -= 1;
  const comment = lines.slice(start, end + 1).map((line) => line.trim()).join('\n');
  if (!comment.startsWith('<!-- doc-code:')) return { mode: 'module', context: '' };
  const match = DIRECTIVE.exec(comment);
  if (!match) throw new Error(`${file}:${start + 1}: a doc-code comment must say module, body, excerpt <path> or skip <reason>`);
  const mode = match[1] as DocCodeMode;
  const argument = match[2] === '' ? undefined : match[2];
  if ((mode === 'excerpt' || mode === 'skip') && argument === undefined) throw new Error(`${file}:${start + 1}: doc-code ${mode} needs ${mode === 'skip' ? 'a reason' : 'a path'}`);
  return { mode, argument, context: match[3] ?? '' };
}

/** The module a compiled block becomes: its context, then the block as it is, or its body inside a stack's method. */
export function moduleSource(block: DocCodeBlock): string {
  if (block.mode !== 'body') return `${block.context}\n${block.code}\nexport {};\n`;
  const lines = block.code.split('\n');
  const imports = lines.filter((line) => /^import\s/.test(line));
  const body = lines.filter((line) => !/^import\s/.test(line));
  return [
    "import { Stack as DocCodeStack } from 'aws-cdk-lib';",
    ...imports,
    block.context,
    'export class DocCodeSnippet extends DocCodeStack {',
    '  public async snippet(): Promise<unknown> {',
    ...body.map((line) => `    ${line}`),
    '    return undefined;',
    '  }',
    '}',
    '',
  ].join('\n');
}

/** The block's code lines (no blanks, no comment-only lines), trimmed: what an excerpt must find in its file. */
export function codeLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('//'));
}

/** The first of `quoted` that `source` does not have in order after the previous ones, or undefined when all are there. */
export function missingInOrder(quoted: readonly string[], source: readonly string[]): string | undefined {
  let from = 0;
  for (const line of quoted) {
    const at = source.indexOf(line, from);
    if (at < 0) return line;
    from = at + 1;
  }
  return undefined;
}
