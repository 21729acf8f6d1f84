/**
 * The links a reader follows: every relative link of a Markdown page, and every `docs/...` path
 * that a command's message names. The fast test (test/lint/doc-links.test.ts) holds them to the
 * checkout; the package test holds them to the packed tarball, which is what someone who installed
 * the package has.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

/** A link from a file to a path, both relative to the root, the path without its `#anchor`. */
export interface DocLink {
  readonly from: string;
  readonly to: string;
}

/** Fenced blocks and inline code spans hold examples, not links. */
function withoutCode(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

const EXTERNAL = /^([a-z][a-z0-9+.-]*:|#|\/\/)/i;

/** The targets of the inline links and images of `markdown` that are relative paths, anchors dropped. */
export function relativeTargets(markdown: string): string[] {
  const targets: string[] = [];
  for (const match of withoutCode(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = match[1] ?? '';
    if (EXTERNAL.test(target)) continue;
    targets.push(decodeURIComponent(target.replace(/[#?].*$/, '')));
  }
  return targets.filter((target) => target !== '');
}

/** The relative links of the Markdown file `file` (relative to `root`), resolved against its folder. */
export function markdownLinks(root: string, file: string): DocLink[] {
  const text = readFileSync(path.join(root, file), 'utf8');
  return relativeTargets(text).map((target) => ({ from: file, to: path.posix.normalize(path.posix.join(path.posix.dirname(file), target)) }));
}

/** README.md and every Markdown page under docs/, relative to `root`. */
export function markdownPages(root: string): string[] {
  const docs = readdirSync(path.join(root, 'docs'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.md'));
  return ['README.md', ...docs.map((file) => path.posix.join('docs', file.split(path.sep).join('/')))];
}

/** The folders whose messages reach a user of the installed `eo`, and the CLI's entry. */
export const MESSAGE_SOURCES = ['bin/eo.ts', 'bin/eo-program.ts', 'cli', 'operations', 'emulator', 'tools/scaffold'] as const;

function sourceFiles(root: string, entry: string): string[] {
  if (entry.endsWith('.ts')) return [entry];
  return readdirSync(path.join(root, entry), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.(ts|js|mjs)$/.test(file))
    .map((file) => path.posix.join(entry, file.split(path.sep).join('/')));
}

/**
 * Every `docs/...` path that the sources of {@link MESSAGE_SOURCES} name (in messages and in
 * comments alike: a comment's pointer should lead somewhere too), anchors and a sentence's final
 * dot dropped. A path ending in `/` names a folder.
 */
export function sourceDocMentions(root: string): DocLink[] {
  const links: DocLink[] = [];
  for (const file of MESSAGE_SOURCES.flatMap((entry) => sourceFiles(root, entry))) {
    for (const match of readFileSync(path.join(root, file), 'utf8').matchAll(/\bdocs\/[A-Za-z0-9_./-]*/g)) {
      links.push({ from: file, to: match[0].replace(/\.+$/, '') });
    }
  }
  return links;
}

/** The links whose path is not among `files` (nor, for a folder, a prefix of one of them), as `from -> to`. */
export function unresolved(links: readonly DocLink[], files: readonly string[]): string[] {
  const present = new Set(files);
  const resolves = (to: string) => present.has(to) || files.some((file) => file.startsWith(to.endsWith('/') ? to : `${to}/`));
  return links.filter((link) => !resolves(link.to)).map((link) => `${link.from} -> ${link.to}`);
}
