/**
 * Every relative link of README.md and docs/ leads to a file of the checkout, and every
 * `docs/...` path a command names exists. The package test holds the same links to the packed
 * tarball (test/package/consumer-app.package.ts); this one needs no packing.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { markdownLinks, markdownPages, relativeTargets, sourceDocMentions, unresolved } from '../helpers/doc-links';

const ROOT = path.join(__dirname, '..', '..');

/** What git would put in a clone: tracked files and new ones it would track. */
function checkoutFiles(): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
}

test('relativeTargets keeps relative paths, drops anchors, and skips URLs, anchors alone and code', () => {
  const page = ['[a](docs/a.md#part) ![b](images/b.png) [c](https://example.com) [d](#here) [e](mailto:x@example.com)', '`[f](not/a-link.md)`', '```md', '[g](in/a/block.md)', '```', '[h](../up.md "title")'].join('\n');
  expect(relativeTargets(page)).toEqual(['docs/a.md', 'images/b.png', '../up.md']);
});

test('every relative link of README.md and docs/*.md leads to a file of the checkout', () => {
  const links = markdownPages(ROOT).flatMap((page) => markdownLinks(ROOT, page));
  expect(links.length).toBeGreaterThan(20);
  expect(unresolved(links, checkoutFiles())).toEqual([]);
});

test('every docs/... path named in the CLI\'s sources exists', () => {
  const mentions = sourceDocMentions(ROOT);
  expect(mentions.map((mention) => mention.to)).toEqual(expect.arrayContaining(['docs/local-mode.md', 'docs/operations.md']));
  expect(unresolved(mentions, checkoutFiles())).toEqual([]);
});
