/**
 * `npm run docs:api`: writes the API reference to docs/api/ (tools/api-reference/reference.ts);
 * with `--check`, writes nothing and exits 1 when a page differs from what it would write. Either
 * way it exits 1 when an exported name lacks its doc comment, or a construct's prop its `@default`
 * or `@range`, naming each.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { API_REFERENCE_DIR, apiReference, describeProblems, stalePages } from '../tools/api-reference/reference';
import { everyCommand } from './eo-program';

const ROOT = path.join(__dirname, '..');

async function main(check: boolean): Promise<number> {
  const { pages, problems } = await apiReference(ROOT, await everyCommand());
  const folder = path.join(ROOT, API_REFERENCE_DIR);
  const stale = stalePages(pages, folder);
  if (problems.length > 0) process.stderr.write(`The TSDoc lacks what the reference needs:\n${describeProblems(problems)}`);
  if (check) {
    if (stale.length > 0) process.stderr.write(`${API_REFERENCE_DIR} is stale: run \`npm run docs:api\` and commit the result\n${stale.map((line) => `  ${line}\n`).join('')}`);
    else process.stdout.write(`${API_REFERENCE_DIR} is current (${pages.size} pages)\n`);
    return stale.length > 0 || problems.length > 0 ? 1 : 0;
  }
  rmSync(folder, { recursive: true, force: true });
  for (const [file, text] of pages) {
    mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
    writeFileSync(path.join(folder, file), text);
  }
  process.stdout.write(`wrote ${API_REFERENCE_DIR} (${pages.size} pages${stale.length > 0 ? `, ${stale.length} changed` : ', unchanged'})\n`);
  return problems.length > 0 ? 1 : 0;
}

main(process.argv.includes('--check')).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`docs:api: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 2;
  },
);
