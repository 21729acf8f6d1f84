/**
 * Adds a consumer to `example/consumers/index.ts`: an import before the imports' end marker and an
 * entry before the consumers' end marker. Plain insertion at marker lines, never a rewrite of
 * what the file holds, so hand edits between the markers survive.
 */
import { REGISTRY_FILE } from './layout';
import { identifiersOf } from './names';

export const MARKERS = {
  importsStart: '// eo:generated-imports:start',
  importsEnd: '// eo:generated-imports:end',
  consumersStart: '// eo:generated-consumers:start',
  consumersEnd: '// eo:generated-consumers:end',
} as const;

/** Why the registry cannot take an entry; empty when it can. */
export function registryProblems(source: string): string[] {
  const problems: string[] = [];
  for (const marker of Object.values(MARKERS)) {
    const count = source.split('\n').filter((line) => line.trim() === marker).length;
    if (count !== 1) {
      problems.push(`${REGISTRY_FILE} must hold the line \`${marker}\` exactly once (found ${count}): restore it from git, or add it where generated consumers go`);
    }
  }
  return problems;
}

/** The registry with the consumer's import and entry added. @throws when `registryProblems` finds any */
export function addToRegistry(source: string, name: string): string {
  const problems = registryProblems(source);
  if (problems.length > 0) throw new Error(problems.join('\n'));
  const { pascal } = identifiersOf(name);
  const lines = source.split('\n');
  insertBefore(lines, MARKERS.importsEnd, `import { add${pascal} } from './${name}';`);
  insertBefore(lines, MARKERS.consumersEnd, `add${pascal},`);
  return lines.join('\n');
}

/** Inserts `text` above the marker line, with the marker's indentation. */
function insertBefore(lines: string[], marker: string, text: string): void {
  const index = lines.findIndex((line) => line.trim() === marker);
  const indentation = lines[index]?.match(/^\s*/)?.[0] ?? '';
  lines.splice(index, 0, indentation + text);
}
